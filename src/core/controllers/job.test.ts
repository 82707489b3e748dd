/** The Job controller driven through HTTP: a test writes pod phases as a kubelet would, and moves the fake clock. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const jobsPath = '/apis/batch/v1/namespaces/default/jobs';
const mergePatch = { 'content-type': 'application/merge-patch+json' };
const T0 = '2026-01-01T00:00:00Z';

async function server(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*', '-deployment-controller', '-replicaset-controller', '-disruption-controller'] });
  await t.json('POST', `${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  return t;
}

function job(name: string, spec: Record<string, unknown> = {}, template: Record<string, unknown> = {}) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { ...spec, template: { ...template, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

async function create(s: TestServer, body: unknown): Promise<any> {
  const r = await s.json('POST', jobsPath, { body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const getJob = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${jobsPath}/${name}`)).body;
const listPods = async (s: TestServer): Promise<any[]> => (await s.json('GET', `${ns}/pods`)).body.items;
const livePods = async (s: TestServer): Promise<any[]> => (await listPods(s)).filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status.phase));
const events = async (s: TestServer, name: string): Promise<[string, string, string][]> => {
  const items = (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items as any[];
  return items.map((e) => [e.type, e.reason, e.message]);
};
const setPhase = async (s: TestServer, pod: string, status: Record<string, unknown>) => {
  const r = await s.json('PATCH', `${ns}/pods/${pod}/status`, { body: { status }, headers: mergePatch });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};
/** Gives the controller turns to act on what it may (when the test checks that it did nothing). */
const settle = () => new Promise((r) => setTimeout(r, 20));
const until = <T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean) => eventually(fn, ok, what);

describe('job-controller', () => {
  it('[API-META-012] runs a pod from the template with the Job as controller and the tracking finalizer; a Succeeded pod completes the Job in two steps', async () => {
    const s = await server();
    const created = await create(s, job('pi'));
    const uid = created.metadata.uid;
    const [pod] = await until('a pod', () => listPods(s), (l) => l.length === 1);
    expect(pod.metadata.name).toMatch(/^pi-[a-z0-9]{5}$/);
    expect(pod.metadata.generateName).toBe('pi-');
    expect(pod.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid, controller: true, blockOwnerDeletion: true }]);
    expect(pod.metadata.labels).toEqual({ 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' });
    expect(pod.spec.hostname).toBeUndefined();
    const running = await until('the first status', () => getJob(s, 'pi'), (j) => j.status?.active === 1);
    expect(running.status).toEqual({ startTime: T0, active: 1, terminating: 0, uncountedTerminatedPods: {}, ready: 0 });

    // A Ready pod is counted in status.ready.
    await setPhase(s, pod.metadata.name, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    await until('ready 1', () => getJob(s, 'pi'), (j) => j.status.ready === 1);

    // The pod succeeds: its uid is recorded in uncountedTerminatedPods, its finalizer removed, then it is counted.
    const rv = (await getJob(s, 'pi')).metadata.resourceVersion;
    const watch = await s.watch(`${jobsPath}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dpi`);
    await setPhase(s, pod.metadata.name, { phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'False' }] });
    const [first, second] = await watch.take(2);
    await watch.close();
    expect(first!.object.status.uncountedTerminatedPods).toEqual({ succeeded: [pod.metadata.uid] });
    expect(first!.object.status.conditions).toEqual([
      { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: T0, lastTransitionTime: T0, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
    ]);
    expect(first!.object.status.succeeded).toBeUndefined();
    expect(Number(second!.object.metadata.resourceVersion)).toBeGreaterThan(Number(first!.object.metadata.resourceVersion));
    expect(second!.object.status).toEqual({
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: T0, lastTransitionTime: T0, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
        { type: 'Complete', status: 'True', lastProbeTime: T0, lastTransitionTime: T0, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
      ],
      startTime: T0,
      completionTime: T0,
      succeeded: 1,
      terminating: 0,
      uncountedTerminatedPods: {},
      ready: 0,
    });
    const done = (await listPods(s))[0];
    expect(done.metadata.finalizers).toBeUndefined();
    expect(done.status.phase).toBe('Succeeded');
    expect(await until('the events', () => events(s, 'pi'), (l) => l.length === 2)).toEqual([
      ['Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`],
      ['Normal', 'Completed', 'Job completed'],
    ]);
  });

  it('Indexed: each pod has its index as annotation, label, hostname and JOB_COMPLETION_INDEX; completedIndexes counts them', async () => {
    const s = await server();
    await create(s, job('idx', { completionMode: 'Indexed', completions: 3, parallelism: 2 }));
    const pods = await until('two pods', () => listPods(s), (l) => l.length === 2);
    const byIndex = new Map(pods.map((p) => [p.metadata.annotations['batch.kubernetes.io/job-completion-index'], p]));
    expect([...byIndex.keys()].sort()).toEqual(['0', '1']);
    const p0 = byIndex.get('0')!;
    expect(p0.metadata.name).toMatch(/^idx-0-[a-z0-9]{5}$/);
    expect(p0.metadata.labels['batch.kubernetes.io/job-completion-index']).toBe('0');
    expect(p0.spec.hostname).toBe('idx-0');
    expect(p0.spec.containers[0].env).toEqual([{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } } }]);
    await setPhase(s, p0.metadata.name, { phase: 'Succeeded' });
    const third = await until('index 2', () => livePods(s), (l) => l.some((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'] === '2'));
    expect(third).toHaveLength(2);
    expect((await getJob(s, 'idx')).status).toMatchObject({ succeeded: 1, completedIndexes: '0', active: 2 });
    for (const p of third) await setPhase(s, p.metadata.name, { phase: 'Succeeded' });
    const done = await until('complete', () => getJob(s, 'idx'), (j) => !!j.status.completionTime);
    expect(done.status).toMatchObject({ succeeded: 3, completedIndexes: '0-2', uncountedTerminatedPods: {} });
    expect(done.status.active).toBeUndefined();
  });

  it('a failed pod is replaced after 10s on the server clock, then 20s; past backoffLimit the Job is FailureTarget then Failed', async () => {
    const s = await server();
    await create(s, job('flaky', { backoffLimit: 2 }));
    const [p1] = await until('a pod', () => listPods(s), (l) => l.length === 1);
    await setPhase(s, p1.metadata.name, { phase: 'Failed' });
    const counted = await until('failed 1', () => getJob(s, 'flaky'), (j) => j.status.failed === 1);
    expect(counted.status).toMatchObject({ failed: 1, uncountedTerminatedPods: {}, terminating: 0 });
    expect(counted.status.active).toBeUndefined();
    expect((await listPods(s)).find((p) => p.metadata.name === p1.metadata.name).metadata.finalizers).toBeUndefined();
    // The pod finished when it was created (no container finishedAt): the replacement waits 10s from then.
    s.clock.advance(9_000);
    await settle();
    expect(await listPods(s)).toHaveLength(1);
    s.clock.advance(1_000);
    const p2 = (await until('a replacement', () => listPods(s), (l) => l.length === 2)).find((p) => p.metadata.name !== p1.metadata.name);
    // The second failure waits 20s from its finish, the pod's Ready=False transition.
    await setPhase(s, p2.metadata.name, { phase: 'Failed', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:15Z' }] });
    await until('failed 2', () => getJob(s, 'flaky'), (j) => j.status.failed === 2);
    s.clock.advance(20_000);
    await settle();
    expect(await listPods(s)).toHaveLength(2);
    s.clock.advance(5_000);
    const pods = await until('a third pod', () => listPods(s), (l) => l.length === 3);
    const p3 = pods.find((p) => ![p1.metadata.name, p2.metadata.name].includes(p.metadata.name));
    await setPhase(s, p3.metadata.name, { phase: 'Failed' });
    const failed = await until('Failed', () => getJob(s, 'flaky'), (j) => j.status.conditions?.some((c: any) => c.type === 'Failed'));
    const at = '2026-01-01T00:00:35Z';
    expect(failed.status).toEqual({
      conditions: [
        { type: 'FailureTarget', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
        { type: 'Failed', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
      ],
      startTime: T0,
      failed: 3,
      terminating: 0,
      uncountedTerminatedPods: {},
      ready: 0,
    });
    expect((await events(s, 'flaky')).at(-1)).toEqual(['Warning', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
  });

  it('activeDeadlineSeconds: the active pod is deleted and counted failed, and the Job fails with DeadlineExceeded', async () => {
    const s = await server();
    await create(s, job('slow', { activeDeadlineSeconds: 30 }));
    const [pod] = await until('a pod', () => listPods(s), (l) => l.length === 1);
    s.clock.advance(29_000);
    await settle();
    expect(await listPods(s)).toHaveLength(1);
    s.clock.advance(1_000);
    const failed = await until('Failed', () => getJob(s, 'slow'), (j) => j.status.conditions?.some((c: any) => c.type === 'Failed'));
    expect(failed.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
      ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
    ]);
    expect(failed.status).toMatchObject({ failed: 1, terminating: 0, uncountedTerminatedPods: {} });
    expect(await listPods(s)).toEqual([]);
    expect(await until('events', () => events(s, 'slow'), (l) => l.length === 3)).toEqual([
      ['Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`],
      ['Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`],
      ['Warning', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
    ]);
  });

  it('suspend: a suspended Job runs nothing and has no startTime; resume starts it; suspending again deletes its pods', async () => {
    const s = await server();
    await create(s, job('later', { suspend: true, parallelism: 2, completions: 4 }));
    const suspended = await until('Suspended', () => getJob(s, 'later'), (j) => j.status?.conditions?.length === 1);
    expect(suspended.status).toEqual({
      conditions: [{ type: 'Suspended', status: 'True', lastProbeTime: T0, lastTransitionTime: T0, reason: 'JobSuspended', message: 'Job suspended' }],
      terminating: 0,
      uncountedTerminatedPods: {},
      ready: 0,
    });
    expect(await listPods(s)).toEqual([]);
    s.clock.advance(60_000);
    await s.json('PATCH', `${jobsPath}/later`, { body: { spec: { suspend: false } }, headers: mergePatch });
    await until('two pods', () => listPods(s), (l) => l.length === 2);
    const resumed = await until('resumed', () => getJob(s, 'later'), (j) => j.status.conditions[0].status === 'False');
    const at = '2026-01-01T00:01:00Z';
    expect(resumed.status.conditions).toEqual([{ type: 'Suspended', status: 'False', lastProbeTime: at, lastTransitionTime: at, reason: 'JobResumed', message: 'Job resumed' }]);
    expect(resumed.status.startTime).toBe(at);
    await s.json('PATCH', `${jobsPath}/later`, { body: { spec: { suspend: true } }, headers: mergePatch });
    await until('no pods', () => listPods(s), (l) => l.length === 0);
    const again = await until('suspended again', () => getJob(s, 'later'), (j) => j.status.conditions[0].status === 'True' && j.status.active === undefined);
    // Deleted by the controller, the pods are not failures.
    expect(again.status.failed).toBeUndefined();
    const reasons = (await until('the events', () => events(s, 'later'), (l) => l.length === 6)).map((e) => e[1]);
    expect(reasons).toEqual(['Suspended', 'SuccessfulCreate', 'SuccessfulCreate', 'Resumed', 'SuccessfulDelete', 'SuccessfulDelete']);
    // The second "Job suspended" is the same Event seen again.
    await until('Suspended x2', async () => (await s.json('GET', `${ns}/events?fieldSelector=reason%3DSuspended`)).body.items, (l: any[]) => l[0]?.count === 2);
  });

  it('[API-DEL-016] [API-DEL-017] deleting a Job (background or foreground): its pods lose the finalizer and the garbage collector deletes them', async () => {
    const s = await server();
    await create(s, job('gone', { parallelism: 2, completions: 2 }));
    await until('two pods', () => listPods(s), (l) => l.length === 2);
    const r = await s.json('DELETE', `${jobsPath}/gone`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(r.status).toBe(200);
    await until('no pods', () => listPods(s), (l) => l.length === 0);
    // Foreground: the garbage collector deletes the running pods first; the Job lets their finalizers go, then goes itself.
    await create(s, job('fg', { parallelism: 2, completions: 2 }));
    await until('two pods', () => listPods(s), (l) => l.length === 2);
    const fg = await s.json('DELETE', `${jobsPath}/fg`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    expect(fg.status).toBe(200);
    expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await until('the Job gone', async () => (await s.json('GET', `${jobsPath}/fg`)).status, (code) => code === 404);
    expect(await listPods(s)).toEqual([]);
  });

  it('parallelism lowered: the excess pods are deleted, not counted as failed', async () => {
    const s = await server();
    await create(s, {
      ...job('wide', { parallelism: 3, completions: 10, manualSelector: true, selector: { matchLabels: { app: 'wide' } } }, { metadata: { labels: { app: 'wide' } } }),
    });
    const three = await until('three pods', () => listPods(s), (l) => l.length === 3);
    await setPhase(s, three[0].metadata.name, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    await until('ready', () => getJob(s, 'wide'), (j) => j.status.ready === 1);
    await s.json('PATCH', `${jobsPath}/wide`, { body: { spec: { parallelism: 1 } }, headers: mergePatch });
    const left = await until('one pod', () => listPods(s), (l) => l.length === 1);
    // The ready one stays: not-ready pods go first.
    expect(left[0].metadata.name).toBe(three[0].metadata.name);
    const st = await until('active 1', () => getJob(s, 'wide'), (j) => j.status.active === 1);
    expect(st.status.failed).toBeUndefined();
  });

  it('an orphan pod matching a manual selector is adopted with the finalizer, and released when its labels stop matching', async () => {
    const s = await server();
    const orphan = await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', labels: { app: 'two' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    expect(orphan.status).toBe(201);
    const created = await create(s, job('two', { parallelism: 2, completions: 2, manualSelector: true, selector: { matchLabels: { app: 'two' } } }, { metadata: { labels: { app: 'two' } } }));
    const adopted = await until('adopted', async () => (await s.json('GET', `${ns}/pods/stray`)).body, (p) => !!p.metadata.ownerReferences);
    expect(adopted.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'two', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(adopted.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    // The adopted pod fills one of the two slots.
    await until('two active', () => getJob(s, 'two'), (j) => j.status?.active === 2);
    expect(await listPods(s)).toHaveLength(2);
    await s.json('PATCH', `${ns}/pods/stray`, { body: { metadata: { labels: { app: 'other' } } }, headers: mergePatch });
    const released = await until('released', async () => (await s.json('GET', `${ns}/pods/stray`)).body, (p) => !p.metadata.ownerReferences);
    expect(released.metadata.finalizers).toBeUndefined();
    await until('a replacement', () => listPods(s), (l) => l.length === 3);
  });

  it('podFailurePolicy: Ignore does not count a disruption, FailJob fails the Job with the rule\'s message', async () => {
    const s = await server();
    await create(s, job('policy', {
      backoffLimit: 6,
      podFailurePolicy: {
        rules: [
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } },
        ],
      },
    }));
    const job0 = await getJob(s, 'policy');
    expect(job0.spec.podReplacementPolicy).toBe('Failed');
    const [p1] = await until('a pod', () => listPods(s), (l) => l.length === 1);
    await setPhase(s, p1.metadata.name, { phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
    // Ignored: no failure counted, though the replacement still waits out the backoff.
    await until('the pod tracked', () => getJob(s, 'policy'), (j) => j.status.active === undefined);
    expect((await getJob(s, 'policy')).status.failed).toBeUndefined();
    s.clock.advance(10_000);
    const p2 = (await until('a replacement', () => listPods(s), (l) => l.length === 2)).find((p) => p.metadata.name !== p1.metadata.name);
    await setPhase(s, p2.metadata.name, { phase: 'Failed', containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 42, reason: 'Error', finishedAt: '2026-01-01T00:00:00Z' } } }] });
    const failed = await until('Failed', () => getJob(s, 'policy'), (j) => j.status.conditions?.some((c: any) => c.type === 'Failed'));
    const message = `Container c for pod default/${p2.metadata.name} failed with exit code 42 matching FailJob rule at index 1`;
    expect(failed.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'PodFailurePolicy', message],
      ['Failed', 'PodFailurePolicy', message],
    ]);
    expect(failed.status.failed).toBe(1);
  });

  it('podReplacementPolicy Failed waits for a deleted pod to fail; TerminatingOrFailed counts it failed and replaces it', async () => {
    const s = await server();
    await create(s, job('patient', { podReplacementPolicy: 'Failed' }));
    await create(s, job('eager'));
    const pods = await until('two pods', () => listPods(s), (l) => l.length === 2);
    const of = (name: string) => pods.find((p) => p.metadata.ownerReferences[0].name === name);
    for (const name of ['patient', 'eager']) expect((await s.json('DELETE', `${ns}/pods/${of(name).metadata.name}`)).status).toBe(200);
    const patient = await until('terminating 1', () => getJob(s, 'patient'), (j) => j.status.terminating === 1);
    expect(patient.status.active).toBeUndefined();
    await until('eager counted', () => getJob(s, 'eager'), (j) => j.status.failed === 1);
    // A deleted pod failed at its deletionTimestamp: the replacement waits the backoff.
    s.clock.advance(10_000);
    const eager = await until('eager replaced', () => getJob(s, 'eager'), (j) => j.status.failed === 1 && j.status.active === 1);
    expect(eager.status.terminating).toBe(0);
    expect((await listPods(s)).filter((p) => p.metadata.ownerReferences[0].name === 'patient')).toHaveLength(1);
    // The terminating pod ends Failed: now it is counted and replaced.
    await setPhase(s, of('patient').metadata.name, { phase: 'Failed' });
    await until('patient counted', () => getJob(s, 'patient'), (j) => j.status.failed === 1);
    s.clock.advance(10_000);
    await until('patient replaced', () => getJob(s, 'patient'), (j) => j.status.failed === 1 && j.status.active === 1 && j.status.terminating === 0);
  });
  it('backoffLimitPerIndex: a failed index waits for its own backoff, its replacement carries the failure count; a failed index fails the Job once the rest succeed', async () => {
    const s = await server();
    await create(s, job('per', { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 1 }));
    const ixOf = (p: any) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    const pods = await until('three pods', () => listPods(s), (l) => l.length === 3);
    expect(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-index-failure-count'])).toEqual(['0', '0', '0']);
    const first0 = pods.find((p) => ixOf(p) === '0');
    await setPhase(s, first0.metadata.name, { phase: 'Failed' });
    // The failed pod keeps its finalizer, so is not counted yet, until its replacement exists 10s later.
    // While pod creation backs off, manageJob reports no active pods, as kube's does.
    const waiting = await until('backing off', () => getJob(s, 'per'), (j) => j.status.failedIndexes === '' && j.status.active === undefined);
    expect(waiting.status.failed).toBeUndefined();
    expect((await s.json('GET', `${ns}/pods/${first0.metadata.name}`)).body.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    s.clock.advance(10_000);
    const second0 = (await until('index 0 again', () => livePods(s), (l) => l.length === 3)).find((p) => ixOf(p) === '0');
    expect(second0.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).toBe('1');
    await until('the first pod released', async () => (await s.json('GET', `${ns}/pods/${first0.metadata.name}`)).body.metadata.finalizers, (f) => f === undefined);
    await setPhase(s, second0.metadata.name, { phase: 'Failed' });
    const st = await until('index 0 failed', () => getJob(s, 'per'), (j) => j.status.failedIndexes === '0');
    expect(st.status).toMatchObject({ failed: 2, active: 2 });
    for (const p of (await livePods(s))) await setPhase(s, p.metadata.name, { phase: 'Succeeded' });
    const failed = await until('Failed', () => getJob(s, 'per'), (j) => j.status.conditions?.some((c: any) => c.type === 'Failed'));
    expect(failed.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'FailedIndexes', 'Job has failed indexes'],
      ['Failed', 'FailedIndexes', 'Job has failed indexes'],
    ]);
    expect(failed.status).toMatchObject({ succeeded: 2, failed: 2, completedIndexes: '1,2', failedIndexes: '0', uncountedTerminatedPods: {} });
    expect(failed.spec.backoffLimit).toBe(2147483647);
  });

  it('successPolicy: an Indexed Job whose rule is met is SuccessCriteriaMet, its other pods are deleted uncounted, then Complete', async () => {
    const s = await server();
    await create(s, job('leader', { completionMode: 'Indexed', completions: 3, parallelism: 3, successPolicy: { rules: [{ succeededIndexes: '0' }] } }));
    const pods = await until('three pods', () => listPods(s), (l) => l.length === 3);
    const leader = pods.find((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'] === '0');
    await setPhase(s, leader.metadata.name, { phase: 'Succeeded' });
    const done = await until('complete', () => getJob(s, 'leader'), (j) => !!j.status.completionTime);
    expect(done.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['SuccessCriteriaMet', 'SuccessPolicy', 'Matched rules at index 0'],
      ['Complete', 'SuccessPolicy', 'Matched rules at index 0'],
    ]);
    expect(done.status).toMatchObject({ succeeded: 1, completedIndexes: '0', terminating: 0, uncountedTerminatedPods: {} });
    expect(done.status.failed).toBeUndefined();
    expect((await listPods(s)).map((p) => p.metadata.name)).toEqual([leader.metadata.name]);
  });

  it('a create a quota refuses is a FailedCreate warning; a Job another controller manages (spec.managedBy) is left alone', async () => {
    const s = await server();
    expect((await s.json('POST', `${ns}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'one' }, spec: { hard: { pods: '1' } } } })).status).toBe(201);
    await until('the quota counted', async () => (await s.json('GET', `${ns}/resourcequotas/one`)).body.status?.used, (u) => u?.pods === '0');
    await create(s, job('quota', { parallelism: 2, completions: 2 }));
    const evs = await until('a FailedCreate', () => events(s, 'quota'), (l) => l.some((e) => e[1] === 'FailedCreate'));
    expect(evs.find((e) => e[1] === 'FailedCreate')).toEqual([
      'Warning', 'FailedCreate', expect.stringMatching(/^Error creating: pods "quota-[a-z0-9]{5}" is forbidden: exceeded quota: one, requested: pods=1, used: pods=1, limited: pods=1$/),
    ]);
    expect(await listPods(s)).toHaveLength(1);
    expect((await until('active 1', () => getJob(s, 'quota'), (j) => j.status?.active === 1)).status.active).toBe(1);

    await create(s, job('elsewhere', { managedBy: 'example.com/batch' }));
    await settle();
    const other = await getJob(s, 'elsewhere');
    expect(other.status ?? {}).toEqual({});
    expect((await listPods(s)).filter((p) => p.metadata.ownerReferences?.[0]?.name === 'elsewhere')).toEqual([]);
  });

  it('ttl-after-finished-controller deletes a finished Job ttlSecondsAfterFinished after it finished, its pods first', async () => {
    const s = await server();
    await create(s, job('short', { ttlSecondsAfterFinished: 60 }));
    const [pod] = await until('a pod', () => listPods(s), (l) => l.length === 1);
    s.clock.advance(5_000);
    await setPhase(s, pod.metadata.name, { phase: 'Succeeded' });
    await until('complete', () => getJob(s, 'short'), (j) => !!j.status.completionTime);
    s.clock.advance(59_000);
    await settle();
    expect((await s.json('GET', `${jobsPath}/short`)).status).toBe(200);
    s.clock.advance(1_000);
    await until('the Job deleted', async () => (await s.json('GET', `${jobsPath}/short`)).status, (code) => code === 404);
    expect(await listPods(s)).toEqual([]);
  });
});

describe('job-controller on simulated nodes', () => {
  async function cluster(): Promise<TestServer> {
    t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 });
    const s = t;
    await until('the default service account', async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (code) => code === 200);
    return s;
  }

  it('the kubelet runs a Job\'s pods to completion: three completions two at a time', async () => {
    const s = await cluster();
    await create(s, job('batch', { completions: 3, parallelism: 2 }));
    const done = await until('complete', () => getJob(s, 'batch'), (j) => !!j.status?.completionTime);
    expect(done.status).toMatchObject({ succeeded: 3, terminating: 0, uncountedTerminatedPods: {}, ready: 0 });
    const pods = await listPods(s);
    expect(pods.map((p) => [p.status.phase, p.spec.nodeName, p.metadata.finalizers])).toEqual(Array(3).fill(['Succeeded', 'node-1', undefined]));
    const reasons = (await until('the events', () => events(s, 'batch'), (l) => l.length === 4)).map((e) => e[1]);
    expect(reasons).toEqual(['SuccessfulCreate', 'SuccessfulCreate', 'SuccessfulCreate', 'Completed']);
  });

  it('pods exiting 1 fail; the replacement waits 10s from the container\'s finishedAt; backoffLimit 1 then fails the Job', async () => {
    const s = await cluster();
    await create(s, job('crash', { backoffLimit: 1 }, { metadata: { annotations: { 'kubesim.io/exit-code': '1' } } }));
    const failedOnce = await until('failed 1', () => getJob(s, 'crash'), (j) => j.status?.failed === 1);
    expect(failedOnce.status.active).toBeUndefined();
    const [first] = await listPods(s);
    expect(first.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 1 });
    s.clock.advance(9_000);
    await settle();
    expect(await listPods(s)).toHaveLength(1);
    s.clock.advance(1_000);
    const failed = await until('Failed', () => getJob(s, 'crash'), (j) => j.status.conditions?.some((c: any) => c.type === 'Failed'));
    expect(failed.status).toMatchObject({ failed: 2, terminating: 0, uncountedTerminatedPods: {} });
    expect(failed.status.conditions.map((c: any) => c.reason)).toEqual(['BackoffLimitExceeded', 'BackoffLimitExceeded']);
  });
});
