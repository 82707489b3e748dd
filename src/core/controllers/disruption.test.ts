/** The disruption controller and the eviction subresource, driven through HTTP as kubectl get pdb and kubectl drain drive them. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const pdbs = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const apps = '/apis/apps/v1/namespaces/default';

async function server(controllers = ['*', '-deployment-controller', '-replicaset-controller']): Promise<TestServer> {
  t = await newTestServer({ controllers });
  await t.json('POST', `${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  return t;
}

const pdb = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });

/** A pod as a kubelet would report it: Running, and Ready when asked. */
async function runningPod(s: TestServer, name: string, labels: Record<string, string>, ready: boolean, ownerReferences?: unknown[]): Promise<void> {
  const created = await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, ...(ownerReferences ? { ownerReferences } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  expect(created.status).toBe(201);
  const status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  expect((await s.json('PATCH', `${ns}/pods/${name}/status`, { body: { status }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
}

const statusOf = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${pdbs}/${name}`)).body.status;
const settled = (want: Record<string, unknown>) => (st: any): boolean => !!st && Object.entries(want).every(([k, v]) => st[k] === v);

const evict = (s: TestServer, name: string, body: Record<string, unknown> = {}, query = '') =>
  s.json('POST', `${ns}/pods/${name}/eviction${query}`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...body } });

describe('disruption-controller', () => {
  it('[API-VER-124] [API-VER-125] counts the pods a budget selects: {} selects the namespace\'s pods, no selector none', async () => {
    const s = await server();
    await runningPod(s, 'a', { app: 'web' }, true);
    await runningPod(s, 'b', { app: 'web' }, true);
    await runningPod(s, 'c', { app: 'db' }, false);
    expect((await s.json('POST', pdbs, { body: pdb('all', { minAvailable: 1, selector: {} }) })).status).toBe(201);
    expect((await s.json('POST', pdbs, { body: pdb('none', { minAvailable: 1 }) })).status).toBe(201);
    expect((await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) })).status).toBe(201);
    const all = await eventually(() => statusOf(s, 'all'), settled({ observedGeneration: 1 }), 'the all budget');
    expect(all).toEqual({
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 3,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'SufficientPods', message: '' }],
    });
    const none = await eventually(() => statusOf(s, 'none'), settled({ observedGeneration: 1 }), 'the none budget');
    expect(none).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 0 });
    expect(none.conditions[0]).toMatchObject({ status: 'False', reason: 'InsufficientPods' });
    // kubectl describe pdb none: what the controller found.
    const events = await eventually(async () => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dnone`)).body.items as any[], (l) => l.length > 0, 'the NoPods event');
    expect(events[0]).toMatchObject({ reason: 'NoPods', message: 'No matching pods found', type: 'Normal', source: { component: 'controllermanager' }, involvedObject: { kind: 'PodDisruptionBudget', name: 'none' } });
    expect(await eventually(() => statusOf(s, 'web'), settled({ observedGeneration: 1 }), 'the web budget')).toMatchObject({ disruptionsAllowed: 1, currentHealthy: 2, expectedPods: 2 });
    // A pod turning unready moves the budget.
    await s.json('PATCH', `${ns}/pods/a/status`, { body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await eventually(() => statusOf(s, 'web'), settled({ currentHealthy: 1, disruptionsAllowed: 0 }), 'web after a pod turned unready');
    // A new pod the budget selects brings it back too.
    await runningPod(s, 'd', { app: 'web' }, true);
    await eventually(() => statusOf(s, 'web'), settled({ currentHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 }), 'web after a new pod');
  });

  it('a percentage or maxUnavailable counts the scale of the pods\' controllers; a pod whose controller cannot be found fails safe', async () => {
    // No garbage collector: it would delete the pod whose owner does not exist.
    const s = await server(['*', '-deployment-controller', '-replicaset-controller', '-garbage-collector-controller']);
    const rs = await s.json('POST', `${apps}/replicasets`, {
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    expect(rs.status).toBe(201);
    const owner = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.body.metadata.uid, controller: true }];
    for (const name of ['w1', 'w2', 'w3']) await runningPod(s, name, { app: 'web' }, true, owner);
    await s.json('POST', pdbs, { body: pdb('half', { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } }) });
    await s.json('POST', pdbs, { body: pdb('one-down', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    // Expected is the ReplicaSet's 4, not the 3 pods: 50% of 4 rounds up to 2; 4 - 1 = 3 must stay healthy.
    expect(await eventually(() => statusOf(s, 'half'), settled({ observedGeneration: 1 }), 'half')).toMatchObject({ expectedPods: 4, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 });
    expect(await eventually(() => statusOf(s, 'one-down'), settled({ observedGeneration: 1 }), 'one-down')).toMatchObject({ expectedPods: 4, desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 });
    // A Deployment's pods count its replicas, through their ReplicaSet.
    const d = await s.json('POST', `${apps}/deployments`, {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api' }, spec: { replicas: 5, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    const apiRs = await s.json('POST', `${apps}/replicasets`, {
      body: {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { name: 'api-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: d.body.metadata.uid, controller: true }] },
        spec: { replicas: 2, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      },
    });
    await runningPod(s, 'api-a', { app: 'api' }, true, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-1', uid: apiRs.body.metadata.uid, controller: true }]);
    await s.json('POST', pdbs, { body: pdb('api', { maxUnavailable: '20%', selector: { matchLabels: { app: 'api' } } }) });
    expect(await eventually(() => statusOf(s, 'api'), settled({ observedGeneration: 1 }), 'api')).toMatchObject({ expectedPods: 5, desiredHealthy: 4, currentHealthy: 1 });
    // A pod naming a controller that does not exist: the budget allows nothing and says why.
    await runningPod(s, 'stray', { app: 'web' }, true, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'u-gone', controller: true }]);
    const failed = await eventually(() => statusOf(s, 'half'), (st) => st?.conditions?.[0]?.reason === 'SyncFailed', 'half after a stray pod');
    expect(failed.disruptionsAllowed).toBe(0);
    expect(failed.conditions[0]).toMatchObject({ type: 'DisruptionAllowed', status: 'False', message: 'found no controllers for pod "stray"' });
  });
});

describe('pods/eviction', () => {
  it('[API-PATH-009] a running pod covered by a budget with room is evicted: one disruption is taken and the pod recorded', async () => {
    const s = await server();
    await runningPod(s, 'a', { app: 'web' }, true);
    await runningPod(s, 'b', { app: 'web' }, true);
    await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    await eventually(() => statusOf(s, 'web'), settled({ disruptionsAllowed: 1 }), 'web');
    const r = await evict(s, 'a');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    expect((await s.json('GET', `${ns}/pods/a`)).status).toBe(404);
    // The controller sees the pod gone and counts again; b is now the only healthy one.
    await eventually(() => statusOf(s, 'web'), settled({ currentHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 }), 'web after the eviction');
  });

  it('an eviction the budget cannot afford is 429 TooManyRequests with a DisruptionBudget cause, and the pod stays', async () => {
    const s = await server();
    await runningPod(s, 'a', { app: 'web' }, true);
    await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    await eventually(() => statusOf(s, 'web'), settled({ observedGeneration: 1, currentHealthy: 1 }), 'web');
    const r = await evict(s, 'a');
    expect(r.status).toBe(429);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }] },
      code: 429,
    });
    expect((await s.json('GET', `${ns}/pods/a`)).status).toBe(200);
  });

  it('a budget the controller has not seen since its last change answers 429 with Retry-After 10', async () => {
    const s = await server(['*', '-deployment-controller', '-replicaset-controller', '-disruption-controller']);
    await runningPod(s, 'a', { app: 'web' }, true);
    await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    const r = await evict(s, 'a');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('10');
    expect(r.body.details).toEqual({ causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }], retryAfterSeconds: 10 });
  });

  it('pending pods, pods no budget selects and unready pods of a met budget go without taking a disruption; two budgets are a 500', async () => {
    const s = await server();
    // Pending (no kubelet ran it): budgets are not consulted.
    await s.json('POST', `${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    await runningPod(s, 'a', { app: 'web' }, true);
    await runningPod(s, 'sick', { app: 'web' }, false);
    await runningPod(s, 'other', { app: 'db' }, true);
    await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    // An empty selector selects every pod for the controller but none for an eviction.
    await s.json('POST', pdbs, { body: pdb('all', { minAvailable: 5, selector: {} }) });
    await eventually(() => statusOf(s, 'web'), settled({ observedGeneration: 1, currentHealthy: 1, desiredHealthy: 1 }), 'web');
    expect((await evict(s, 'pending')).status).toBe(201);
    expect((await evict(s, 'other')).status).toBe(201);
    // Unready, and the budget already has its one healthy pod: deleted, no disruption taken.
    expect((await evict(s, 'sick')).status).toBe(201);
    expect((await statusOf(s, 'web')).disruptedPods).toBeUndefined();
    await s.json('POST', pdbs, { body: pdb('web-too', { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } }) });
    const two = await evict(s, 'a');
    expect(two.status).toBe(500);
    expect(two.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
  });

  it('[API-PATH-009] a dry-run eviction checks the budget but changes nothing; dry-run options in the query and the body must agree', async () => {
    const s = await server();
    await runningPod(s, 'a', { app: 'web' }, true);
    await runningPod(s, 'b', { app: 'web' }, true);
    await s.json('POST', pdbs, { body: pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    const before = await eventually(() => statusOf(s, 'web'), settled({ disruptionsAllowed: 1 }), 'web');
    expect((await evict(s, 'a', { deleteOptions: { dryRun: ['All'] } })).status).toBe(201);
    expect((await evict(s, 'a', {}, '?dryRun=All')).status).toBe(201);
    expect((await s.json('GET', `${ns}/pods/a`)).status).toBe(200);
    expect(await statusOf(s, 'web')).toEqual(before);
    const queryOnly = await evict(s, 'a', { deleteOptions: { dryRun: [] } }, '?dryRun=All');
    expect(queryOnly.status).toBe(201);
    const bad = await s.json('POST', `${ns}/pods/a/eviction?dryRun=All`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a' }, deleteOptions: { dryRun: ['All', 'All'] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Non-matching dry-run options in request and content: [All] and [All All]');
  });
});
