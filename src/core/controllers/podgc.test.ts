/** podgc (pod-garbage-collector-controller): pods of a deleted node, and unscheduled terminating pods, failed and deleted. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

const PODS = '/api/v1/namespaces/default/pods';
let t: TestServer;
afterEach(async () => {
  await t?.server.close();
});

const pod = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra },
});
/** One podgc round: the clock moves a check period on, and the round's writes land. */
async function round(): Promise<void> {
  t.clock.advance(20_000);
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('podgc', () => {
  it('[API-WATCH-002] [API-SSA-002] fails and deletes the pods of a node gone for the 40s quarantine, with the DisruptionTarget condition, as PodGC', async () => {
    t = await newTestServer();
    expect((await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } })).status).toBe(201);
    const created = await t.json('POST', PODS, { body: pod('orphan', { nodeName: 'n1' }) });
    expect(created.status).toBe(201);
    await round();
    expect((await t.json('GET', `${PODS}/orphan`)).status).toBe(200);
    expect((await t.json('DELETE', '/api/v1/nodes/n1')).status).toBe(200);
    const watch = await t.watch(`${PODS}?watch=1&fieldSelector=metadata.name=orphan&resourceVersion=${created.body.metadata.resourceVersion}`);
    await round(); // the node is first missed
    expect((await t.json('GET', `${PODS}/orphan`)).body.status.phase).toBe('Pending');
    await round(); // 20s later: not yet 40s
    expect((await t.json('GET', `${PODS}/orphan`)).status).toBe(200);
    await round(); // 40s after it was missed
    const failed = await watch.next();
    expect(failed?.type).toBe('MODIFIED');
    const status = (failed?.object as { status: { phase: string; conditions: Record<string, unknown>[] } }).status;
    expect(status.phase).toBe('Failed');
    expect(status.conditions).toContainEqual({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:01:20Z', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
    const managers = (failed?.object as { metadata: { managedFields: { manager: string; operation: string; subresource?: string }[] } }).metadata.managedFields;
    expect(managers).toContainEqual(expect.objectContaining({ manager: 'PodGC', operation: 'Update', subresource: 'status' }));
    expect(Number((failed?.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion)).toBeGreaterThan(Number(created.body.metadata.resourceVersion));
    // The delete with grace period 0: the deletionTimestamp written, then the object gone, as kube's store does it.
    const deleting = await watch.next();
    expect(deleting?.type).toBe('MODIFIED');
    expect((deleting?.object as { metadata: { deletionGracePeriodSeconds: number } }).metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await watch.next())?.type).toBe('DELETED');
    expect((await t.json('GET', `${PODS}/orphan`)).status).toBe(404);
    watch.close();
  });

  it('a node back within the quarantine keeps its pods', async () => {
    t = await newTestServer();
    expect((await t.json('POST', PODS, { body: pod('kept', { nodeName: 'n2' }) })).status).toBe(201);
    await round(); // n2 is missed
    expect((await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } } })).status).toBe(201);
    await round();
    await round();
    const kept = await t.json('GET', `${PODS}/kept`);
    expect(kept.status).toBe(200);
    expect(kept.body.status.phase).toBe('Pending');
  });

  it('fails an unscheduled pod that is terminating (held by a finalizer), without a condition', async () => {
    t = await newTestServer();
    expect((await t.json('POST', PODS, { body: pod('held', {}, { finalizers: ['example.com/hold'] }) })).status).toBe(201);
    expect((await t.json('DELETE', `${PODS}/held`)).status).toBe(200);
    expect((await t.json('GET', `${PODS}/held`)).body.status.phase).toBe('Pending');
    await round();
    const held = await t.json('GET', `${PODS}/held`);
    expect(held.body.status.phase).toBe('Failed');
    expect(held.body.status.conditions ?? []).not.toContainEqual(expect.objectContaining({ type: 'DisruptionTarget' }));
    expect((await t.json('PATCH', `${PODS}/held`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { finalizers: null } } })).status).toBe(200);
    expect((await t.json('GET', `${PODS}/held`)).status).toBe(404);
  });
});
