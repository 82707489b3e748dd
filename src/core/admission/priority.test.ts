/** The Priority and DefaultTolerationSeconds admission plugins through handle(). */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });

describe('Priority admission', () => {
  it('kube-apiserver makes system-node-critical and system-cluster-critical at start; a pod in any namespace may use them', async () => {
    t = await newTestServer();
    const list = await t.json('GET', classes);
    expect(list.body.items.map((c: { metadata: { name: string }; value: number }) => [c.metadata.name, c.value])).toEqual([
      ['system-cluster-critical', 2000000000], ['system-node-critical', 2000001000],
    ]);
    expect(list.body.items[1]).toMatchObject({ description: 'Used for system critical pods that must not be moved from their current node.', preemptionPolicy: 'PreemptLowerPriority' });
    const r = await t.json('POST', `${ns}/pods`, { body: pod('critical', { priorityClassName: 'system-node-critical' }) });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ priorityClassName: 'system-node-critical', priority: 2000001000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('a pod without a class gets priority 0 and PreemptLowerPriority, then the globalDefault class once there is one', async () => {
    t = await newTestServer();
    const plain = await t.json('POST', `${ns}/pods`, { body: pod('plain') });
    expect(plain.body.spec.priority).toBe(0);
    expect(plain.body.spec.preemptionPolicy).toBe('PreemptLowerPriority');
    expect(plain.body.spec.priorityClassName).toBeUndefined();
    expect((await t.json('POST', classes, { body: priorityClass('batch', 100, { globalDefault: true, preemptionPolicy: 'Never' }) })).status).toBe(201);
    const defaulted = await t.json('POST', `${ns}/pods`, { body: pod('defaulted') });
    expect(defaulted.body.spec).toMatchObject({ priorityClassName: 'batch', priority: 100, preemptionPolicy: 'Never' });
  });

  it('an unknown class is Forbidden with kube\'s message, as is a stated priority the class does not give', async () => {
    t = await newTestServer();
    const r = await t.json('POST', `${ns}/pods`, { body: pod('p', { priorityClassName: 'gold' }) });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ reason: 'Forbidden', message: 'pods "p" is forbidden: no PriorityClass with name gold was found', details: { name: 'p', kind: 'pods' } });
    await t.json('POST', classes, { body: priorityClass('gold', 1000) });
    const stated = await t.json('POST', `${ns}/pods`, { body: pod('p', { priorityClassName: 'gold', priority: 5 }) });
    expect(stated.status).toBe(403);
    expect(stated.body.message).toBe('pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
    const policy = await t.json('POST', `${ns}/pods`, { body: pod('p', { priorityClassName: 'gold', preemptionPolicy: 'Never' }) });
    expect(policy.body.message).toBe('pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name');
    expect((await t.json('POST', `${ns}/pods`, { body: pod('p', { priorityClassName: 'gold', priority: 1000 }) })).status).toBe(201);
  });

  it('the classes admission reads follow their changes: an updated value, a removed default, a class made just before the pod', async () => {
    t = await newTestServer();
    expect((await t.json('POST', classes, { body: priorityClass('batch', 100, { globalDefault: true }) })).status).toBe(201);
    expect((await t.json('POST', `${ns}/pods`, { body: pod('a') })).body.spec).toMatchObject({ priorityClassName: 'batch', priority: 100 });
    const current = (await t.json('GET', `${classes}/batch`)).body;
    expect((await t.json('PUT', `${classes}/batch`, { body: { ...current, description: 'changed' } })).status).toBe(200);
    expect((await t.json('DELETE', `${classes}/batch`)).status).toBe(200);
    const plain = (await t.json('POST', `${ns}/pods`, { body: pod('b') })).body.spec;
    expect(plain.priority).toBe(0);
    expect(plain.priorityClassName).toBeUndefined();
    expect((await t.json('POST', classes, { body: priorityClass('fresh', 7) })).status).toBe(201);
    expect((await t.json('POST', `${ns}/pods`, { body: pod('c', { priorityClassName: 'fresh' }) })).body.spec).toMatchObject({ priority: 7, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('a second globalDefault PriorityClass is Forbidden; an update keeps a pod\'s priority when the body leaves it out', async () => {
    t = await newTestServer();
    expect((await t.json('POST', classes, { body: priorityClass('a', 1, { globalDefault: true }) })).status).toBe(201);
    const second = await t.json('POST', classes, { body: priorityClass('b', 2, { globalDefault: true }) });
    expect(second.status).toBe(403);
    expect(second.body.message).toBe('priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass b is marked as default and a default already exists');
    const created = (await t.json('POST', `${ns}/pods`, { body: pod('p') })).body;
    const { priority: _p, preemptionPolicy: _pp, ...spec } = created.spec;
    const updated = await t.json('PUT', `${ns}/pods/p`, { body: { ...created, spec } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec).toMatchObject({ priority: 1, preemptionPolicy: 'PreemptLowerPriority', priorityClassName: 'a' });
  });
});

describe('DefaultTolerationSeconds admission', () => {
  const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
  const unreachable = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

  it('adds the not-ready and unreachable tolerations after the pod\'s own, and only those the pod lacks', async () => {
    t = await newTestServer();
    const own = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };
    const r = await t.json('POST', `${ns}/pods`, { body: pod('p', { tolerations: [own] }) });
    expect(r.body.spec.tolerations).toEqual([own, notReady, unreachable]);
    const mine = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
    const kept = await t.json('POST', `${ns}/pods`, { body: pod('q', { tolerations: [mine] }) });
    expect(kept.body.spec.tolerations).toEqual([mine, notReady]);
    // An empty key with Exists tolerates every taint: nothing is added.
    const all = await t.json('POST', `${ns}/pods`, { body: pod('r', { tolerations: [{ operator: 'Exists' }] }) });
    expect(all.body.spec.tolerations).toEqual([{ operator: 'Exists' }]);
  });
});
