/** The replicationcontroller-controller (the ReplicaSet logic run on ReplicationControllers), driven through HTTP as kubectl drives it. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const core = '/api/v1/namespaces/default';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

const rc = (replicas = 2, selector?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'web' },
  spec: { replicas, ...(selector ? { selector } : {}), template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
});

async function start(options: { simulatedNodes?: number; controllers?: string[] } = {}): Promise<TestServer> {
  t = await newTestServer({ controllers: options.controllers ?? ['*'], ...(options.simulatedNodes ? { simulatedNodes: options.simulatedNodes } : {}) });
  return t;
}

const listPods = async (s: TestServer) => ((await s.json('GET', `${core}/pods`)).body.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
const getRc = async (s: TestServer) => (await s.json('GET', `${core}/replicationcontrollers/web`)).body;
const events = async (s: TestServer) =>
  ((await s.json('GET', `${core}/events?fieldSelector=involvedObject.kind%3DReplicationController`)).body.items as any[])
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));

describe('replicationcontroller-controller', () => {
  it('makes spec.replicas pods from the template, owned by the ReplicationController; status and Events from replication-controller', async () => {
    const s = await start();
    const created = await s.json('POST', `${core}/replicationcontrollers`, { body: rc() });
    expect(created.status).toBe(201);
    // The selector defaults to the template's labels.
    expect(created.body.spec.selector).toEqual({ app: 'web' });
    expect(created.body.status).toEqual({ replicas: 0 });
    const pods = await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    for (const p of pods) {
      expect(p.metadata.generateName).toBe('web-');
      expect(p.metadata.labels).toEqual({ app: 'web' });
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: created.body.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      expect(p.status.phase).toBe('Pending');
    }
    const got = await eventually(() => getRc(s), (r) => r.status?.replicas === 2, 'status');
    expect(got.status).toEqual({ replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 });
    const evs = await events(s);
    expect(evs.map((e) => `${e.type} ${e.reason} ${e.message}`).sort()).toEqual(pods.map((p) => `Normal SuccessfulCreate Created pod: ${p.metadata.name}`).sort());
    expect(evs[0].source).toEqual({ component: 'replication-controller' });
    expect(evs[0].involvedObject).toMatchObject({ kind: 'ReplicationController', name: 'web', apiVersion: 'v1', uid: created.body.metadata.uid });
  });

  it('scales through the scale subresource (kubectl scale rc); pods whose labels stop matching are released and replaced', async () => {
    const s = await start();
    expect((await s.json('POST', `${core}/replicationcontrollers`, { body: rc(1) })).status).toBe(201);
    await eventually(() => listPods(s), (l) => l.length === 1, 'one pod');
    const scale = await s.json('PATCH', `${core}/replicationcontrollers/web/scale`, { body: { spec: { replicas: 3 } }, headers: mergePatch });
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 } });
    await eventually(() => listPods(s), (l) => l.length === 3, 'three pods');
    const scaled = await eventually(() => s.json('GET', `${core}/replicationcontrollers/web/scale`), (r) => r.body.status?.replicas === 3, 'scale status');
    expect(scaled.body.status).toEqual({ replicas: 3, selector: 'app=web' });
    // A pod relabelled away is released, and a new one takes its place.
    const [first] = await listPods(s);
    expect((await s.json('PATCH', `${core}/pods/${first.metadata.name}`, { body: { metadata: { labels: { app: 'debug' } } }, headers: mergePatch })).status).toBe(200);
    const released = await eventually(async () => (await s.json('GET', `${core}/pods/${first.metadata.name}`)).body, (p) => !p.metadata.ownerReferences, 'released');
    expect(released.metadata.labels).toEqual({ app: 'debug' });
    await eventually(() => listPods(s), (l) => l.filter((p) => p.metadata.labels.app === 'web').length === 3, 'replaced');
    expect((await s.json('PATCH', `${core}/replicationcontrollers/web/scale`, { body: { spec: { replicas: 0 } }, headers: mergePatch })).status).toBe(200);
    await eventually(() => listPods(s), (l) => l.length === 1 && l[0].metadata.name === first.metadata.name, 'scaled to zero');
    expect((await events(s)).filter((e) => e.reason === 'SuccessfulDelete').length).toBe(3);
  });

  it('on simulated nodes the pods run and become ready: readyReplicas and availableReplicas (kubectl get rc READY)', async () => {
    const s = await start({ simulatedNodes: 2 });
    expect((await s.json('POST', `${core}/replicationcontrollers`, { body: rc(3) })).status).toBe(201);
    const got = await eventually(() => getRc(s), (r) => r.status?.availableReplicas === 3, 'three available');
    expect(got.status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    expect((await listPods(s)).every((p) => p.status.phase === 'Running' && p.spec.nodeName)).toBe(true);
  });

  it('is off with --controllers=*,-replicationcontroller (and the ReplicaSet controller does not take ReplicationControllers)', async () => {
    const s = await start({ controllers: ['*', '-replicationcontroller'] });
    expect((await s.json('POST', `${core}/replicationcontrollers`, { body: rc(2) })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 30));
    expect(await listPods(s)).toEqual([]);
    expect((await getRc(s)).status).toEqual({ replicas: 0 });
  });
});
