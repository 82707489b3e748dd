/**
 * The CronJob controller through HTTP on the fake clock: the Jobs it makes at
 * scheduled times (names, bodies, status, events), each concurrency policy,
 * suspend, the starting deadline, history limits, time zones and daylight
 * saving. No Job controller runs: tests report Jobs finished themselves, as
 * the Job controller would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { FakeClock } from '../util/clock';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const batch = '/apis/batch/v1/namespaces/default';
const minute = 60_000;

async function server(start = '2026-01-01T00:00:00Z'): Promise<{ s: TestServer; clock: FakeClock }> {
  const clock = new FakeClock(start);
  t = await newTestServer({ clock, controllers: ['cronjob-controller', 'garbage-collector-controller'] });
  return { s: t, clock };
}

const jobTemplate = {
  metadata: { labels: { app: 'report' }, annotations: { team: 'ops' } },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
};

async function createCronJob(s: TestServer, name: string, spec: Record<string, unknown>): Promise<any> {
  const r = await s.json('POST', `${batch}/cronjobs`, { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { jobTemplate, ...spec } } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const jobNames = async (s: TestServer): Promise<string[]> => ((await s.json('GET', `${batch}/jobs`)).body.items as any[]).map((j) => j.metadata.name).sort();
const cronJob = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${batch}/cronjobs/${name}`)).body;
const events = async (s: TestServer, name: string): Promise<any[]> =>
  ((await s.json('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${name}`)).body.items as any[]).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
const reasons = async (s: TestServer, name: string): Promise<string[]> => (await events(s, name)).map((e) => `${e.type} ${e.reason}: ${e.message}`);

/** Moves the clock and waits until the jobs are as wanted. */
async function advanceTo(s: TestServer, clock: FakeClock, ms: number, wantJobs: string[]): Promise<void> {
  clock.advance(ms);
  await eventually(() => jobNames(s), (names) => JSON.stringify(names) === JSON.stringify([...wantJobs].sort()), `jobs ${wantJobs.join(', ')}`);
}

/** The status the Job controller writes for a finished Job. */
async function finish(s: TestServer, name: string, condition: 'Complete' | 'Failed', startTime: string, completionTime: string): Promise<void> {
  const status = condition === 'Complete'
    ? { startTime, completionTime, succeeded: 1, conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }
    : { startTime, failed: 1, conditions: [{ type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True' }] };
  const r = await s.json('PATCH', `${batch}/jobs/${name}/status`, { body: { status }, headers: { 'content-type': 'application/merge-patch+json' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const activeNames = (cj: any): string[] => ((cj.status?.active ?? []) as any[]).map((r) => r.name);

describe('cronjob-controller', () => {
  it('makes a Job named after the scheduled minute when the clock reaches it, with the template, the scheduled timestamp and the CronJob as controller', async () => {
    const { s, clock } = await server();
    const cj = await createCronJob(s, 'report', { schedule: '*/1 * * * *' });
    clock.advance(30_000);
    expect(await jobNames(s)).toEqual([]);
    // 00:01:00: 29453761 minutes since the epoch.
    await advanceTo(s, clock, 30_000, ['report-29453761']);
    const job = (await s.json('GET', `${batch}/jobs/report-29453761`)).body;
    expect(job.metadata).toMatchObject({
      name: 'report-29453761',
      namespace: 'default',
      creationTimestamp: '2026-01-01T00:01:00Z',
      labels: { app: 'report' },
      annotations: { team: 'ops', 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T00:01:00Z' },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'report', uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }],
    });
    expect(job.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'c', image: 'busybox' })]);
    const status = await eventually(() => cronJob(s, 'report'), (c) => activeNames(c).length === 1, 'the active list');
    expect(status.status).toEqual({
      active: [{ kind: 'Job', namespace: 'default', name: 'report-29453761', uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion }],
      lastScheduleTime: '2026-01-01T00:01:00Z',
    });
    expect(Number(status.metadata.resourceVersion)).toBeGreaterThan(Number(cj.metadata.resourceVersion));
    const created = (await events(s, 'report'))[0];
    expect(created).toMatchObject({
      type: 'Normal', reason: 'SuccessfulCreate', message: 'Created job report-29453761', count: 1,
      source: { component: 'cronjob-controller' }, reportingComponent: 'cronjob-controller',
      involvedObject: { kind: 'CronJob', namespace: 'default', name: 'report', uid: cj.metadata.uid, apiVersion: 'batch/v1' },
    });

    // The Job finishes: it leaves the active list and its completion is the last success.
    await finish(s, 'report-29453761', 'Complete', '2026-01-01T00:01:00Z', '2026-01-01T00:01:20Z');
    const done = await eventually(() => cronJob(s, 'report'), (c) => activeNames(c).length === 0, 'the finished job out of the active list');
    expect(done.status).toEqual({ lastScheduleTime: '2026-01-01T00:01:00Z', lastSuccessfulTime: '2026-01-01T00:01:20Z' });
    expect(await reasons(s, 'report')).toEqual(['Normal SuccessfulCreate: Created job report-29453761', 'Normal SawCompletedJob: Saw completed job: report-29453761, condition: Complete']);
    await advanceTo(s, clock, minute, ['report-29453761', 'report-29453762']);
  });

  it('Allow runs Jobs side by side; Forbid skips a time while one is active (JobAlreadyActive); Replace deletes the active one first', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'allow', { schedule: '* * * * *' });
    await createCronJob(s, 'forbid', { schedule: '* * * * *', concurrencyPolicy: 'Forbid' });
    await createCronJob(s, 'replace', { schedule: '* * * * *', concurrencyPolicy: 'Replace' });
    await advanceTo(s, clock, minute, ['allow-29453761', 'forbid-29453761', 'replace-29453761']);
    await eventually(() => cronJob(s, 'replace'), (c) => activeNames(c).length === 1, 'replace active');
    await eventually(() => cronJob(s, 'forbid'), (c) => activeNames(c).length === 1, 'forbid active');
    await advanceTo(s, clock, minute, ['allow-29453761', 'allow-29453762', 'forbid-29453761', 'replace-29453762']);
    expect(activeNames(await eventually(() => cronJob(s, 'allow'), (c) => activeNames(c).length === 2, 'allow active'))).toEqual(['allow-29453761', 'allow-29453762']);
    expect(activeNames(await eventually(() => cronJob(s, 'replace'), (c) => activeNames(c)[0] === 'replace-29453762', 'replace active'))).toEqual(['replace-29453762']);
    expect(await eventually(() => reasons(s, 'forbid'), (r) => r.length === 2, 'forbid events')).toEqual([
      'Normal SuccessfulCreate: Created job forbid-29453761',
      'Normal JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid',
    ]);
    expect(await eventually(() => reasons(s, 'replace'), (r) => r.length === 3, 'replace events')).toEqual([
      'Normal SuccessfulCreate: Created job replace-29453761',
      'Normal SuccessfulDelete: Deleted job replace-29453761',
      'Normal SuccessfulCreate: Created job replace-29453762',
    ]);
    // Forbid kept its last schedule at the run it made: once that finishes, the skipped 00:02 is still the most recent time, and runs.
    expect((await cronJob(s, 'forbid')).status.lastScheduleTime).toBe('2026-01-01T00:01:00Z');
    await finish(s, 'forbid-29453761', 'Failed', '2026-01-01T00:01:00Z', '');
    const caughtUp = await eventually(() => cronJob(s, 'forbid'), (c) => activeNames(c)[0] === 'forbid-29453762', 'forbid caught up');
    expect(caughtUp.status.lastScheduleTime).toBe('2026-01-01T00:02:00Z');
    expect(await reasons(s, 'forbid')).toEqual([
      'Normal SuccessfulCreate: Created job forbid-29453761',
      'Normal JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid',
      'Normal SawCompletedJob: Saw completed job: forbid-29453761, condition: Failed',
      'Normal SuccessfulCreate: Created job forbid-29453762',
    ]);
  });

  it('suspend holds the schedule; resuming runs the most recent missed time at once, unless startingDeadlineSeconds has passed it', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'late', { schedule: '*/5 * * * *', suspend: true });
    await createCronJob(s, 'deadline', { schedule: '*/5 * * * *', suspend: true, startingDeadlineSeconds: 10 });
    await advanceTo(s, clock, 6 * minute, []);
    for (const name of ['late', 'deadline']) {
      const r = await s.json('PATCH', `${batch}/cronjobs/${name}`, { body: { spec: { suspend: false } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expect(r.status).toBe(200);
    }
    // 00:05 was missed: late runs it now; deadline's window (10s) is past, so it waits for 00:10.
    await eventually(() => jobNames(s), (n) => n.length === 1, 'the late run');
    expect(await jobNames(s)).toEqual(['late-29453765']);
    // Made at 00:06 for 00:05: the name and the scheduled timestamp say when it was due.
    const late = (await s.json('GET', `${batch}/jobs/late-29453765`)).body.metadata;
    expect([late.creationTimestamp, late.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']]).toEqual(['2026-01-01T00:06:00Z', '2026-01-01T00:05:00Z']);
    expect((await cronJob(s, 'deadline')).status).toEqual({});
    await advanceTo(s, clock, 4 * minute, ['deadline-29453770', 'late-29453765', 'late-29453770']);
    expect(await reasons(s, 'deadline')).toEqual(['Normal SuccessfulCreate: Created job deadline-29453770']);
  });

  it('more than 100 missed times records TooManyMissedTimes and runs the most recent one', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'busy', { schedule: '* * * * *', suspend: true });
    clock.advance(120 * minute);
    await s.json('PATCH', `${batch}/cronjobs/busy`, { body: { spec: { suspend: false } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await eventually(() => jobNames(s), (n) => n.length === 1, 'one run');
    expect(await jobNames(s)).toEqual(['busy-29453880']);
    expect(await eventually(() => reasons(s, 'busy'), (r) => r.length === 2, 'events')).toEqual([
      'Warning TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      'Normal SuccessfulCreate: Created job busy-29453880',
    ]);
  });

  it('keeps successfulJobsHistoryLimit and failedJobsHistoryLimit finished Jobs, deleting the oldest by start time', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'hist', { schedule: '* * * * *', successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 });
    await advanceTo(s, clock, minute, ['hist-29453761']);
    await advanceTo(s, clock, minute, ['hist-29453761', 'hist-29453762']);
    await advanceTo(s, clock, minute, ['hist-29453761', 'hist-29453762', 'hist-29453763']);
    await eventually(() => cronJob(s, 'hist'), (c) => activeNames(c).length === 3, 'three active');
    await finish(s, 'hist-29453761', 'Complete', '2026-01-01T00:01:00Z', '2026-01-01T00:03:10Z');
    await finish(s, 'hist-29453762', 'Complete', '2026-01-01T00:02:00Z', '2026-01-01T00:03:05Z');
    await finish(s, 'hist-29453763', 'Failed', '2026-01-01T00:03:00Z', '');
    await eventually(() => jobNames(s), (n) => n.length === 1, 'the history trimmed');
    expect(await jobNames(s)).toEqual(['hist-29453762']);
    const status = await eventually(() => cronJob(s, 'hist'), (c) => activeNames(c).length === 0, 'none active');
    // The latest completion counts, whichever Job it came from.
    expect(status.status).toEqual({ lastScheduleTime: '2026-01-01T00:03:00Z', lastSuccessfulTime: '2026-01-01T00:03:10Z' });
    const got = await reasons(s, 'hist');
    expect(got).toContain('Normal SuccessfulDelete: Deleted job hist-29453761');
    expect(got).toContain('Normal SuccessfulDelete: Deleted job hist-29453763');
    expect(got).not.toContain('Normal SuccessfulDelete: Deleted job hist-29453762');
  });

  it('a Job deleted by hand leaves the active list (MissingJob); a Job made by hand for the CronJob is UnexpectedJob and not adopted', async () => {
    const { s, clock } = await server();
    const cj = await createCronJob(s, 'hand', { schedule: '0 * * * *' });
    await advanceTo(s, clock, 60 * minute, ['hand-29453820']);
    await eventually(() => cronJob(s, 'hand'), (c) => activeNames(c).length === 1, 'active');
    expect((await s.json('DELETE', `${batch}/jobs/hand-29453820`)).status).toBe(200);
    await eventually(() => cronJob(s, 'hand'), (c) => activeNames(c).length === 0, 'the missing job out of the list');
    // kubectl create job manual --from=cronjob/hand: a controller reference without blockOwnerDeletion, and the manual annotation.
    const manual = await s.json('POST', `${batch}/jobs`, {
      body: {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: 'manual', annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' }, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hand', uid: cj.metadata.uid, controller: true }] },
        spec: jobTemplate.spec,
      },
    });
    expect(manual.status).toBe(201);
    const got = await eventually(() => reasons(s, 'hand'), (r) => r.length === 3, 'events');
    expect(got).toEqual([
      'Normal SuccessfulCreate: Created job hand-29453820',
      'Normal MissingJob: Active job went missing: hand-29453820',
      'Warning UnexpectedJob: Saw a job that the controller did not create or forgot: manual',
    ]);
    expect(activeNames(await cronJob(s, 'hand'))).toEqual([]);
    // Its success still counts as the last one.
    await finish(s, 'manual', 'Complete', '2026-01-01T01:00:00Z', '2026-01-01T01:00:30Z');
    await eventually(() => cronJob(s, 'hand'), (c) => c.status?.lastSuccessfulTime === '2026-01-01T01:00:30Z', 'the manual success');
  });

  it('a schedule that never comes is InvalidSchedule; a schedule change waits for the next time under the new schedule', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'feb31', { schedule: '59 23 31 2 *' });
    expect(await eventually(() => reasons(s, 'feb31'), (r) => r.length === 1, 'the event')).toEqual([
      'Warning InvalidSchedule: invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second',
    ]);
    await createCronJob(s, 'moved', { schedule: '0 * * * *' });
    clock.advance(30 * minute);
    await s.json('PATCH', `${batch}/cronjobs/moved`, { body: { spec: { schedule: '*/20 * * * *' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    // 00:20 passed under the new schedule before the change: it is not run; 00:40 is.
    await advanceTo(s, clock, 9 * minute, []);
    await advanceTo(s, clock, minute, ['moved-29453800']);
  });

  it('runs in spec.timeZone: the Job name counts UTC minutes, the scheduled timestamp is in the zone', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'paris', { schedule: '0 9 * * *', timeZone: 'Europe/Paris' });
    await advanceTo(s, clock, 8 * 60 * minute - 1000, []);
    await advanceTo(s, clock, 1000, ['paris-29454240']);
    const job = (await s.json('GET', `${batch}/jobs/paris-29454240`)).body;
    expect(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe('2026-01-01T09:00:00+01:00');
    expect((await eventually(() => cronJob(s, 'paris'), (c) => !!c.status?.lastScheduleTime, 'status')).status.lastScheduleTime).toBe('2026-01-01T08:00:00Z');
  });

  it('in New York 01:30 happens twice when daylight saving ends, and runs twice (EDT, then EST)', async () => {
    const { s, clock } = await server('2026-10-31T12:00:00Z');
    await createCronJob(s, 'nyc', { schedule: '30 1 * * *', timeZone: 'America/New_York' });
    // 2026-11-01T05:30Z is 01:30 EDT; an hour later it is 01:30 EST.
    await advanceTo(s, clock, 17.5 * 60 * minute, ['nyc-29891850']);
    await advanceTo(s, clock, 60 * minute, ['nyc-29891850', 'nyc-29891910']);
    const stamps = await Promise.all(['nyc-29891850', 'nyc-29891910'].map(async (n) => (await s.json('GET', `${batch}/jobs/${n}`)).body.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']));
    expect(stamps).toEqual(['2026-11-01T01:30:00-04:00', '2026-11-01T01:30:00-05:00']);
    // The next run is a day later.
    await advanceTo(s, clock, 24 * 60 * minute - minute, ['nyc-29891850', 'nyc-29891910']);
    await advanceTo(s, clock, minute, ['nyc-29891850', 'nyc-29891910', 'nyc-29893350']);
  });

  it('a zone or a TZ= schedule validation refuses today, stored by an older server: UnknownTimeZone; UnsupportedSchedule, run in UTC-stamped zone time', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'mars', { schedule: '0 * * * *', timeZone: 'Europe/Paris' });
    await createCronJob(s, 'tokyo', { schedule: '0 9 * * *' });
    /** Rewrites the stored object as an older server could have written it. */
    const rewrite = async (name: string, change: (spec: any) => void) => {
      const raw = await s.request('GET', `/debug/kubesim/storage/registry/batch/cronjobs/default/${name}`);
      expect(raw.status).toBe(200);
      const obj = JSON.parse(await raw.text());
      change(obj.spec);
      expect((await s.request('PUT', `/debug/kubesim/storage/registry/batch/cronjobs/default/${name}`, { body: JSON.stringify(obj) })).status).toBe(200);
    };
    await rewrite('mars', (spec) => (spec.timeZone = 'Mars/Olympus'));
    await rewrite('tokyo', (spec) => (spec.schedule = 'TZ=Asia/Tokyo 0 9 * * *'));
    // A changed schedule or zone is looked at again at its next time, not at once: 01:00 for mars, 00:00 tomorrow for tokyo.
    clock.advance(60 * minute);
    expect(await eventually(() => reasons(s, 'mars'), (r) => r.length === 1, 'the mars event')).toEqual(['Warning UnknownTimeZone: invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus']);
    await advanceTo(s, clock, 23 * 60 * minute, ['tokyo-29455200']);
    expect((await s.json('GET', `${batch}/jobs/tokyo-29455200`)).body.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe('2026-01-02T00:00:00Z');
    expect(await eventually(() => reasons(s, 'tokyo'), (r) => r.length === 2, 'the tokyo events')).toEqual([
      'Warning UnsupportedSchedule: CRON_TZ or TZ used in schedule "TZ=Asia/Tokyo 0 9 * * *" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
      'Normal SuccessfulCreate: Created job tokyo-29455200',
    ]);
  });

  it('deleting a CronJob takes its Jobs with it (the garbage collector follows the controller reference)', async () => {
    const { s, clock } = await server();
    await createCronJob(s, 'gone', { schedule: '* * * * *' });
    await advanceTo(s, clock, minute, ['gone-29453761']);
    expect((await s.json('DELETE', `${batch}/cronjobs/gone`)).status).toBe(200);
    await eventually(() => jobNames(s), (n) => n.length === 0, 'the jobs collected');
    await advanceTo(s, clock, minute, []);
  });

  it('on a cluster (every default controller, simulated nodes) the runs complete: SawCompletedJob, lastSuccessfulTime, and the oldest past the history limit goes with its pods', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const s = (t = await newTestServer({ clock, controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (st) => st === 200, 'the default service account');
    // Each run's pod works for 30s of the server clock.
    const template = { ...jobTemplate, spec: { template: { metadata: { annotations: { 'kubesim.io/run-seconds': '30' } }, spec: jobTemplate.spec.template.spec } } };
    const r = await s.json('POST', `${batch}/cronjobs`, { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick' }, spec: { schedule: '* * * * *', successfulJobsHistoryLimit: 1, jobTemplate: template } } });
    expect(r.status).toBe(201);
    const podsOf = async (job: string) => ((await s.json('GET', `/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3D${job}`)).body.items as any[]).length;
    await advanceTo(s, clock, minute, ['tick-29453761']);
    await eventually(() => podsOf('tick-29453761'), (n) => n === 1, 'the first run\'s pod');
    clock.advance(30_000);
    const done = await eventually(() => cronJob(s, 'tick'), (c) => !!c.status?.lastSuccessfulTime, 'the first run complete');
    expect(done.status.active).toBeUndefined();
    expect(done.status.lastScheduleTime).toBe('2026-01-01T00:01:00Z');
    await advanceTo(s, clock, 30_000, ['tick-29453761', 'tick-29453762']);
    clock.advance(30_000);
    // The second success leaves room for one: the first Job is deleted in the background, and the garbage collector takes its pod.
    await eventually(() => jobNames(s), (n) => JSON.stringify(n) === '["tick-29453762"]', 'the history trimmed');
    await eventually(() => podsOf('tick-29453761'), (n) => n === 0, 'the first run\'s pod collected');
    expect(await eventually(() => reasons(s, 'tick'), (l) => l.length === 5, 'the events')).toEqual([
      'Normal SuccessfulCreate: Created job tick-29453761',
      'Normal SawCompletedJob: Saw completed job: tick-29453761, condition: Complete',
      'Normal SuccessfulCreate: Created job tick-29453762',
      // One sync cleans up the history before it looks at the active list.
      'Normal SuccessfulDelete: Deleted job tick-29453761',
      'Normal SawCompletedJob: Saw completed job: tick-29453762, condition: Complete',
    ]);
  });

  it('is on by default as cronjob (alias) and off in raw-API test servers', async () => {
    const { controllerEnabled, parseControllers } = await import('./names');
    expect(controllerEnabled('cronjob-controller')).toBe(true);
    expect(parseControllers(['-cronjob'])).toEqual(['-cronjob-controller']);
    const raw = await newTestServer();
    try {
      await raw.json('POST', `${batch}/cronjobs`, { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'still' }, spec: { schedule: '* * * * *', jobTemplate } } });
      raw.clock.advance(5 * minute);
      await new Promise((r) => setTimeout(r, 20));
      expect(await jobNames(raw)).toEqual([]);
    } finally {
      await raw.server.close();
    }
    // With batch/v1 switched off it has nothing to watch, and the server still starts.
    const off = await newTestServer({ controllers: ['cronjob-controller'], runtimeConfig: 'batch/v1=false' });
    try {
      expect((await off.json('GET', '/apis/batch/v1')).status).toBe(404);
      expect((await off.json('GET', '/readyz')).status).toBe(200);
    } finally {
      await off.server.close();
    }
  });
});
