/**
 * Real kubectl 1.32 against the Node host on a fake clock: a CronJob made by
 * `kubectl create cronjob` runs when the test moves the clock to its
 * scheduled time (POST /debug/kubesim/clock), as `kubectl get cronjobs`,
 * `kubectl get jobs` and `kubectl describe cronjob` show. With no kubelet
 * no Job's pods run: the test reports one finished, as the Job controller would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually as poll } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { fakeClock: new Date('2026-01-01T00:00:00Z') } });
});
afterAll(async () => {
  await t?.stop();
});

const ok = (args: string[], input?: string) => t.kubectlOk(args, input);
/** Polls kubectl until its stdout satisfies done. */
const eventually = (args: string[], done: (stdout: string) => boolean, what: string) => poll(async () => (await t.kubectl(args)).stdout, done, what);
const advance = (duration: string) => t.advanceClock(duration);

const rows = (table: string) => table.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));

describe('kubectl and CronJobs', () => {
  it('kubectl create cronjob; the clock reaching the schedule makes a Job; get cronjobs shows ACTIVE and LAST SCHEDULE; a finished Job leaves the list', async () => {
    expect(await ok(['create', 'cronjob', 'hello', '--image=busybox:1.36', '--schedule=*/1 * * * *', '--', 'echo', 'hi'])).toBe('cronjob.batch/hello created\n');
    expect(rows(await ok(['get', 'cronjobs']))).toEqual([
      ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
      ['hello', '*/1 * * * *', '<none>', 'False', '0', '<none>', '0s'],
    ]);
    expect(await ok(['get', 'jobs'])).toBe('');

    await advance('1m');
    // 2026-01-01T00:01:00Z is 29453761 minutes after the epoch.
    await eventually(['get', 'cronjobs', 'hello', '-o', 'jsonpath={.status.active[*].name}'], (out) => out === 'hello-29453761', 'the active job');
    expect(rows(await ok(['get', 'cronjobs']))[1]).toEqual(['hello', '*/1 * * * *', '<none>', 'False', '1', '0s', '60s']);
    expect(await ok(['get', 'jobs', '-o', 'name'])).toBe('job.batch/hello-29453761\n');
    const jobs = rows(await ok(['get', 'jobs']));
    expect(jobs[0]).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(jobs[1]!.slice(0, 3)).toEqual(['hello-29453761', 'Running', '0/1']);
    expect(await ok(['get', 'job', 'hello-29453761', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}'])).toBe('CronJob/hello 2026-01-01T00:01:00Z');

    const described = await ok(['describe', 'cronjob', 'hello']);
    expect(described).toMatch(/Last Schedule Time:\s+Thu, 01 Jan 2026 00:01:00 \+0000/);
    expect(described).toMatch(/Active Jobs:\s+hello-29453761/);
    expect(described).toMatch(/Normal\s+SuccessfulCreate\s+\S+\s+cronjob-controller\s+Created job hello-29453761/);

    // The Job controller's report of a finished Job: it leaves the active list.
    await ok(['patch', 'job', 'hello-29453761', '--subresource=status', '--type=merge', '-p',
      '{"status":{"startTime":"2026-01-01T00:01:00Z","completionTime":"2026-01-01T00:01:00Z","succeeded":1,"conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}}']);
    await eventually(['get', 'cronjobs', 'hello', '-o', 'jsonpath={.status.lastSuccessfulTime}'], (out) => out === '2026-01-01T00:01:00Z', 'the last success');
    expect(rows(await ok(['get', 'cronjobs']))[1]).toEqual(['hello', '*/1 * * * *', '<none>', 'False', '0', '0s', '60s']);

    // A Job made by hand from the CronJob is its own: the controller records it as unexpected and leaves it out.
    expect(await ok(['create', 'job', 'manual', '--from=cronjob/hello'])).toBe('job.batch/manual created\n');
    await eventually(['get', 'events', '--field-selector=involvedObject.name=hello,reason=UnexpectedJob', '-o', 'jsonpath={.items[*].message}'],
      (out) => out === 'Saw a job that the controller did not create or forgot: manual', 'the UnexpectedJob event');

    await advance('1m');
    await eventually(['get', 'jobs', '-o', 'name'], (out) => out.includes('job.batch/hello-29453762'), 'the next run');
    expect(rows(await ok(['get', 'cronjobs']))[1]).toEqual(['hello', '*/1 * * * *', '<none>', 'False', '1', '0s', '2m']);
  });

  it('kubectl get cronjobs shows the time zone; the Job carries the scheduled time in it', async () => {
    await ok(['apply', '-f', '-'], `apiVersion: batch/v1
kind: CronJob
metadata:
  name: tokyo
spec:
  schedule: "0 9 * * *"
  timeZone: Asia/Tokyo
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox:1.36
`);
    expect(rows(await ok(['get', 'cronjob', 'tokyo']))[1]!.slice(0, 6)).toEqual(['tokyo', '0 9 * * *', 'Asia/Tokyo', 'False', '0', '<none>']);
    // The host clock is at 00:02Z, 09:02 in Tokyo: the next run is at 00:00Z tomorrow.
    await advance('23h58m');
    const name = await eventually(['get', 'cronjob', 'tokyo', '-o', 'jsonpath={.status.active[0].name}'], (out) => out !== '', 'the tokyo run');
    expect(name).toBe(`tokyo-${Date.UTC(2026, 0, 2) / 60_000}`);
    expect(await ok(['get', 'job', name, '-o', 'jsonpath={.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}'])).toBe('2026-01-02T09:00:00+09:00');
  });
});

describe('kubectl and CronJobs on simulated nodes', () => {
  let c: TestHost;
  beforeAll(async () => {
    c = await startTestHost({ flags: { fakeClock: new Date('2026-01-01T00:00:00Z'), simulatedNodes: 1 } });
  });
  afterAll(async () => {
    await c?.stop();
  });

  it('a run completes: get jobs shows Complete 1/1, get cronjobs ACTIVE 0, and the history limit keeps one', async () => {
    const run = async (args: string[]) => {
      const r = await c.kubectl(args);
      expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const until = async (args: string[], done: (out: string) => boolean, what: string) => {
      let last = '';
      for (let i = 0; i < 100; i++) {
        last = await run(args);
        if (done(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}: ${last}`);
    };
    const tick = (duration: string) => c.kubectl(['create', '--raw', `/debug/kubesim/clock?advance=${duration}`, '-f', '-'], '{}');
    await until(['get', 'serviceaccount', 'default', '-o', 'name'], (out) => out.trim() === 'serviceaccount/default', 'the default service account');
    expect(await run(['create', 'cronjob', 'tick', '--image=busybox:1.36', '--schedule=* * * * *', '--', 'true'])).toBe('cronjob.batch/tick created\n');
    await run(['patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"successfulJobsHistoryLimit":1}}']);
    await tick('1m');
    const job = rows(await until(['get', 'jobs'], (out) => /Complete/.test(out), 'the first run complete'))[1]!;
    expect(job.slice(0, 3)).toEqual(['tick-29453761', 'Complete', '1/1']);
    await until(['get', 'cronjob', 'tick', '-o', 'jsonpath={.status.lastSuccessfulTime}'], (out) => out !== '', 'the last success');
    expect(rows(await run(['get', 'cronjobs']))[1]!.slice(0, 6)).toEqual(['tick', '* * * * *', '<none>', 'False', '0', '0s']);
    await tick('1m');
    await until(['get', 'jobs', '-o', 'name'], (out) => out === 'job.batch/tick-29453762\n', 'the history limit');
  });
});
