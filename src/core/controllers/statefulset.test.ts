/** The statefulset-controller, driven through HTTP as kubectl drives it; the test writes the readiness a kubelet would. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const apps = '/apis/apps/v1/namespaces/default';
const core = '/api/v1/namespaces/default';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

function statefulSet(spec: Record<string, unknown> = {}, image = 'nginx:1.27') {
  const claims = spec['volumeClaimTemplates'] === undefined || (spec['volumeClaimTemplates'] as unknown[]).length > 0;
  const volumeMounts = claims ? [{ name: 'www', mountPath: '/usr/share/nginx/html' }] : undefined;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      serviceName: 'nginx',
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image, volumeMounts }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...spec,
    },
  };
}

async function start(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'] });
  return t;
}

const podNames = async (s: TestServer) => ((await s.json('GET', `${core}/pods`)).body.items as any[]).map((p) => p.metadata.name).sort();
const getPod = async (s: TestServer, name: string) => (await s.json('GET', `${core}/pods/${name}`)).body;
const getSet = async (s: TestServer) => (await s.json('GET', `${apps}/statefulsets/web`)).body;
const revisions = async (s: TestServer) => ((await s.json('GET', `${apps}/controllerrevisions`)).body.items as any[]).sort((a, b) => a.revision - b.revision);
const events = async (s: TestServer) =>
  ((await s.json('GET', `${core}/events?fieldSelector=involvedObject.kind%3DStatefulSet`)).body.items as any[])
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
    .map((e) => `${e.type} ${e.reason} ${e.message}`);

/** A few turns for the controllers to act on the last change (to see that they do nothing). */
const settle = () => new Promise((r) => setTimeout(r, 30));

/** What a kubelet reports for a started pod: Running and Ready. */
async function makeReady(s: TestServer, name: string): Promise<void> {
  const pod = await eventually(() => getPod(s, name), (p) => p.kind === 'Pod', `pod ${name}`);
  const at = s.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
  const res = await s.json('PATCH', `${core}/pods/${name}/status`, {
    body: { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } },
    headers: mergePatch,
  });
  expect(res.status).toBe(200);
}

/** kubectl's StatefulSetStatusViewer (rollout status). */
function rolloutStatus(sts: any): string {
  const s = sts.status ?? {};
  if (!s.observedGeneration || sts.metadata.generation > s.observedGeneration) return 'Waiting for statefulset spec update to be observed...';
  if ((s.readyReplicas ?? 0) < sts.spec.replicas) return `Waiting for ${sts.spec.replicas - (s.readyReplicas ?? 0)} pods to be ready...`;
  const ru = sts.spec.updateStrategy.rollingUpdate;
  if (ru) {
    if (ru.partition !== undefined && (s.updatedReplicas ?? 0) < sts.spec.replicas - ru.partition) {
      return `Waiting for partitioned roll out to finish: ${s.updatedReplicas ?? 0} out of ${sts.spec.replicas - ru.partition} new pods have been updated...`;
    }
    return `partitioned roll out complete: ${s.updatedReplicas ?? 0} new pods have been updated...`;
  }
  if (s.updateRevision !== s.currentRevision) return `waiting for statefulset rolling update to complete ${s.updatedReplicas ?? 0} pods at revision ${s.updateRevision}...`;
  return `statefulset rolling update complete ${s.currentReplicas ?? 0} pods at revision ${s.currentRevision}...`;
}

/** Makes every pod ready as it appears, until the set has `count` ready pods. */
async function readyAll(s: TestServer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await eventually(() => podNames(s), (names) => names.includes(`web-${i}`), `web-${i}`);
    await makeReady(s, `web-${i}`);
  }
  await eventually(() => getSet(s), (x) => x.status?.readyReplicas === count, `${count} ready`);
}

describe('statefulset-controller', () => {
  it('OrderedReady: web-0 and its claim www-web-0 first, a ControllerRevision, status and Events; web-1 waits for web-0 Running and Ready', async () => {
    const s = await start();
    const created = await s.json('POST', `${apps}/statefulsets`, { body: statefulSet() });
    expect(created.status).toBe(201);
    const uid = created.body.metadata.uid;
    const [rev] = await eventually(() => revisions(s), (l) => l.length === 1, 'a revision');
    const hash = rev.metadata.labels['controller.kubernetes.io/hash'];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rev.metadata.name).toBe(`web-${hash}`);
    expect(rev.metadata.labels).toEqual({ app: 'nginx', 'controller.kubernetes.io/hash': hash });
    expect(rev.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid, controller: true, blockOwnerDeletion: true }]);
    expect(rev.revision).toBe(1);
    expect(rev.data.spec.template).toMatchObject({ $patch: 'replace', metadata: { creationTimestamp: null, labels: { app: 'nginx' } }, spec: { containers: [expect.objectContaining({ name: 'nginx', image: 'nginx:1.27' })] } });
    // json.Marshal's order: `$patch` first, then the template's keys sorted.
    expect(Object.keys(rev.data.spec.template)).toEqual(['$patch', 'metadata', 'spec']);
    expect(Object.keys(rev.data.spec.template.spec)).toEqual([...Object.keys(rev.data.spec.template.spec)].sort());
    expect(Object.keys(rev.data)).toEqual(['spec']);
    expect(Object.keys(rev.data.spec)).toEqual(['template']);

    const pod = await eventually(() => getPod(s, 'web-0'), (p) => p.kind === 'Pod', 'web-0');
    expect(pod.metadata).toMatchObject({
      name: 'web-0',
      generateName: 'web-',
      namespace: 'default',
      labels: { app: 'nginx', 'controller-revision-hash': rev.metadata.name, 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid, controller: true, blockOwnerDeletion: true }],
    });
    expect(Object.keys(pod.metadata.labels).sort()).toEqual(['app', 'apps.kubernetes.io/pod-index', 'controller-revision-hash', 'statefulset.kubernetes.io/pod-name']);
    expect(pod.spec).toMatchObject({ hostname: 'web-0', subdomain: 'nginx' });
    expect(pod.spec.volumes[0]).toEqual({ name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } });
    expect(pod.status.phase).toBe('Pending');

    const claim = (await s.json('GET', `${core}/persistentvolumeclaims/www-web-0`)).body;
    expect(claim.metadata).toMatchObject({ name: 'www-web-0', namespace: 'default', labels: { app: 'nginx' } });
    expect(claim.metadata.ownerReferences).toBeUndefined();
    expect(claim.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });

    const set = await eventually(() => getSet(s), (x) => x.status?.replicas === 1, 'status');
    expect(set.status).toEqual({ observedGeneration: 1, replicas: 1, currentReplicas: 1, updatedReplicas: 1, currentRevision: rev.metadata.name, updateRevision: rev.metadata.name, collisionCount: 0, availableReplicas: 0 });
    expect(rolloutStatus(set)).toBe('Waiting for 3 pods to be ready...');
    // No kubelet: web-0 stays Pending, so web-1 is never made.
    await settle();
    expect(await podNames(s)).toEqual(['web-0']);
    expect(await eventually(() => events(s), (l) => l.length === 2, 'two events')).toEqual([
      'Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success',
      'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful',
    ]);

    await makeReady(s, 'web-0');
    await eventually(() => podNames(s), (l) => l.length === 2, 'web-1');
    expect(await podNames(s)).toEqual(['web-0', 'web-1']);
    await makeReady(s, 'web-1');
    await makeReady(s, 'web-2');
    const done = await eventually(() => getSet(s), (x) => x.status?.readyReplicas === 3, 'three ready');
    expect(done.status).toEqual({ observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: rev.metadata.name, updateRevision: rev.metadata.name, collisionCount: 0, availableReplicas: 3 });
    expect(rolloutStatus(done)).toBe('partitioned roll out complete: 3 new pods have been updated...');
    const claims = ((await s.json('GET', `${core}/persistentvolumeclaims`)).body.items as any[]).map((c) => c.metadata.name).sort();
    expect(claims).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
  });

  it('scales down from the highest ordinal, one pod at a time, keeping the claims (whenScaled: Retain)', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet() });
    await readyAll(s, 3);
    const scaled = await s.json('PATCH', `${apps}/statefulsets/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    expect(scaled.status).toBe(200);
    await eventually(() => podNames(s), (l) => l.length === 1, 'one pod');
    expect(await podNames(s)).toEqual(['web-0']);
    const deletes = (await events(s)).filter((e) => e.includes('SuccessfulDelete'));
    expect(deletes).toEqual(['Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful', 'Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful']);
    const claims = ((await s.json('GET', `${core}/persistentvolumeclaims`)).body.items as any[]).map((c) => c.metadata.name).sort();
    expect(claims).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
    const set = await eventually(() => getSet(s), (x) => x.status?.replicas === 1, 'status');
    expect(set.status).toMatchObject({ replicas: 1, readyReplicas: 1, availableReplicas: 1 });
  });

  it('scale-down waits while a lower pod is unhealthy (OrderedReady), then removes web-2 before web-1', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet() });
    await readyAll(s, 3);
    // web-0 stops being ready: a monotonic set neither scales nor updates until it is again.
    await s.json('PATCH', `${core}/pods/web-0/status`, { body: { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, headers: mergePatch });
    await s.json('PATCH', `${apps}/statefulsets/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    await eventually(() => getSet(s), (x) => x.status?.readyReplicas === 2 && x.status.observedGeneration === 2, 'observed');
    await settle();
    expect(await podNames(s)).toEqual(['web-0', 'web-1', 'web-2']);
    await makeReady(s, 'web-0');
    await eventually(() => podNames(s), (l) => l.length === 1, 'one pod');
  });

  it('Parallel makes every pod at once, without waiting for readiness', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ podManagementPolicy: 'Parallel', volumeClaimTemplates: [] }) });
    await eventually(() => podNames(s), (l) => l.length === 3, 'three pods');
    const set = await eventually(() => getSet(s), (x) => x.status?.replicas === 3, 'status');
    expect(set.status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 0 });
    expect(set.status.readyReplicas).toBeUndefined();
    await s.json('PATCH', `${apps}/statefulsets/web/scale`, { body: { spec: { replicas: 0 } }, headers: mergePatch });
    await eventually(() => podNames(s), (l) => l.length === 0, 'no pods');
  });

  it('spec.ordinals.start numbers the pods from it', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 2, podManagementPolicy: 'Parallel', ordinals: { start: 5 } }) });
    await eventually(() => podNames(s), (l) => l.length === 2, 'two pods');
    expect(await podNames(s)).toEqual(['web-5', 'web-6']);
    expect((await getPod(s, 'web-6')).metadata.labels['apps.kubernetes.io/pod-index']).toBe('6');
    expect((await getPod(s, 'web-6')).spec.volumes[0].persistentVolumeClaim.claimName).toBe('www-web-6');
  });

  it('RollingUpdate with a partition replaces only the ordinals at or above it, highest first; a new revision 2; rollback reuses revision 1', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet() });
    await readyAll(s, 3);
    const [rev1] = await revisions(s);
    const patch = { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } };
    expect((await s.json('PATCH', `${apps}/statefulsets/web`, { body: patch, headers: { 'content-type': 'application/strategic-merge-patch+json' } })).status).toBe(200);
    const revs = await eventually(() => revisions(s), (l) => l.length === 2, 'revision 2');
    const rev2 = revs[1];
    expect(rev2.revision).toBe(2);
    const updated = await eventually(() => getPod(s, 'web-2'), (p) => p.metadata?.labels?.['controller-revision-hash'] === rev2.metadata.name, 'web-2 updated');
    expect(updated.spec.containers[0].image).toBe('nginx:1.28');
    expect((await getPod(s, 'web-1')).metadata.labels['controller-revision-hash']).toBe(rev1.metadata.name);
    await makeReady(s, 'web-2');
    let set = await eventually(() => getSet(s), (x) => x.status?.readyReplicas === 3 && x.status.updatedReplicas === 1, 'partitioned');
    expect(set.status).toMatchObject({ observedGeneration: 2, replicas: 3, currentReplicas: 2, updatedReplicas: 1, currentRevision: rev1.metadata.name, updateRevision: rev2.metadata.name });
    expect(rolloutStatus(set)).toBe('partitioned roll out complete: 1 new pods have been updated...');
    // The second create repeats the first's message: the recorder counts it on the same Event.
    const podEvents = async () => ((await s.json('GET', `${core}/events`)).body.items as any[]).filter((e) => / Pod web-2 in /.test(e.message) && !e.message.includes('Claim'));
    const counted = await eventually(podEvents, (l) => l.some((e) => e.reason === 'SuccessfulCreate' && e.count === 2), 'a counted create');
    expect(counted.map((e) => [e.reason, e.message, e.count]).sort()).toEqual([
      ['SuccessfulCreate', 'create Pod web-2 in StatefulSet web successful', 2],
      ['SuccessfulDelete', 'delete Pod web-2 in StatefulSet web successful', 1],
    ]);

    // Partition 0: web-1, then web-0, each once the one above is ready again.
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, headers: mergePatch });
    for (const name of ['web-1', 'web-0']) {
      await eventually(() => getPod(s, name), (p) => p.metadata?.labels?.['controller-revision-hash'] === rev2.metadata.name, `${name} updated`);
      await makeReady(s, name);
    }
    set = await eventually(() => getSet(s), (x) => x.status?.currentRevision === rev2.metadata.name && x.status.readyReplicas === 3, 'complete');
    expect(set.status).toEqual({ observedGeneration: 3, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: rev2.metadata.name, updateRevision: rev2.metadata.name, collisionCount: 0, availableReplicas: 3 });

    // Back to the first template: revision 1's object becomes revision 3, no new object.
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    const back = await eventually(() => revisions(s), (l) => l.length === 2 && l[1].metadata.name === rev1.metadata.name, 'rollback');
    expect(back.map((r) => [r.metadata.name, r.revision])).toEqual([[rev2.metadata.name, 2], [rev1.metadata.name, 3]]);
    await eventually(() => getPod(s, 'web-2'), (p) => p.metadata?.labels?.['controller-revision-hash'] === rev1.metadata.name, 'web-2 rolled back');
  });

  it('OnDelete leaves pods at their revision until they are deleted, then makes them at the update revision', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 2, updateStrategy: { type: 'OnDelete' } }) });
    await readyAll(s, 2);
    const [rev1] = await revisions(s);
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { spec: { template: { metadata: { labels: { app: 'nginx', tier: 'web' } } } } }, headers: mergePatch });
    const set = await eventually(() => getSet(s), (x) => x.status?.observedGeneration === 2, 'observed');
    expect(set.status.updateRevision).not.toBe(rev1.metadata.name);
    expect(set.status).toMatchObject({ currentRevision: rev1.metadata.name, currentReplicas: 2 });
    expect(set.status.updatedReplicas).toBeUndefined();
    await settle();
    expect((await getPod(s, 'web-1')).metadata.labels['controller-revision-hash']).toBe(rev1.metadata.name);
    expect((await s.json('DELETE', `${core}/pods/web-1`)).status).toBe(200);
    const remade = await eventually(() => getPod(s, 'web-1'), (p) => p.metadata?.labels?.['controller-revision-hash'] === set.status.updateRevision, 'web-1 remade');
    expect(remade.metadata.labels.tier).toBe('web');
  });

  it('a Failed pod is deleted and made again (RecreatingFailedPod)', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 1 }) });
    const first = await eventually(() => getPod(s, 'web-0'), (p) => p.kind === 'Pod', 'web-0');
    await s.json('PATCH', `${core}/pods/web-0/status`, { body: { status: { phase: 'Failed' } }, headers: mergePatch });
    const second = await eventually(() => getPod(s, 'web-0'), (p) => p.kind === 'Pod' && p.metadata.uid !== first.metadata.uid, 'web-0 again');
    expect(second.status.phase).toBe('Pending');
    expect(await events(s)).toContain('Warning RecreatingFailedPod StatefulSet default/web is recreating failed Pod web-0');
    expect(await events(s)).toContain('Normal SuccessfulDelete delete Pod web-0 in StatefulSet web successful');
  });

  it('minReadySeconds: availableReplicas counts a ready pod once it has been ready that long on the server clock', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 1, minReadySeconds: 30 }) });
    await makeReady(s, 'web-0');
    const set = await eventually(() => getSet(s), (x) => x.status?.readyReplicas === 1, 'ready');
    expect(set.status.availableReplicas).toBe(0);
    s.clock.advance(30_000);
    await eventually(() => getSet(s), (x) => x.status?.availableReplicas === 1, 'available');
  });

  it('persistentVolumeClaimRetentionPolicy Delete/Delete: claims owned by the set, a scaled-down pod\'s claim by the pod, all collected', async () => {
    const s = await start();
    const set = (await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 2, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }) })).body;
    await readyAll(s, 2);
    const claim = await eventually(async () => (await s.json('GET', `${core}/persistentvolumeclaims/www-web-1`)).body, (c) => c.metadata?.ownerReferences?.length === 1, 'owned claim');
    expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await s.json('PATCH', `${apps}/statefulsets/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    await eventually(async () => (await s.json('GET', `${core}/persistentvolumeclaims/www-web-1`)).status, (code) => code === 404, 'www-web-1 collected');
    expect((await s.json('GET', `${core}/persistentvolumeclaims/www-web-0`)).status).toBe(200);
    expect((await s.json('DELETE', `${apps}/statefulsets/web`)).status).toBe(200);
    await eventually(async () => (await s.json('GET', `${core}/persistentvolumeclaims`)).body.items.length, (n) => n === 0, 'claims collected');
  });

  it('adopts an orphan pod of its name and selector (fixing its identity) and an orphan revision; releases a pod whose labels stop matching', async () => {
    const s = await start();
    const orphan = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
    expect((await s.json('POST', `${core}/pods`, { body: orphan })).status).toBe(201);
    const set = (await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 1, volumeClaimTemplates: [] }) })).body;
    await eventually(() => getPod(s, 'web-0'), (p) => p.metadata.ownerReferences?.length === 1, 'adopted');
    // The identity of a pod is fixed once it and its predecessors are Running and Ready.
    await makeReady(s, 'web-0');
    const adopted = await eventually(() => getPod(s, 'web-0'), (p) => p.metadata.labels['statefulset.kubernetes.io/pod-name'] === 'web-0', 'identity fixed');
    expect(adopted.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(adopted.metadata.labels['apps.kubernetes.io/pod-index']).toBe('0');
    // It has no controller-revision-hash label, so the rolling update then replaces it.
    expect(await eventually(() => events(s), (l) => l.length === 3, 'events')).toEqual([
      'Normal SuccessfulUpdate update Pod web-0 in StatefulSet web successful',
      'Normal SuccessfulDelete delete Pod web-0 in StatefulSet web successful',
      'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful',
    ]);
    await eventually(() => getPod(s, 'web-0'), (p) => p.metadata?.labels?.['controller-revision-hash'] !== undefined, 'web-0 at the revision');

    // Released: the pod no longer matches, so a new web-0 cannot be made while the name is taken.
    await s.json('PATCH', `${core}/pods/web-0`, { body: { metadata: { labels: { app: 'other' } } }, headers: mergePatch });
    const released = await eventually(() => getPod(s, 'web-0'), (p) => !p.metadata.ownerReferences, 'released');
    expect(released.metadata.labels.app).toBe('other');

    // An orphan revision the selector matches is adopted.
    const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-orphan', labels: { app: 'nginx' } }, data: { spec: { template: { $patch: 'replace' } } }, revision: 7 };
    expect((await s.json('POST', `${apps}/controllerrevisions`, { body: rev })).status).toBe(201);
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { metadata: { annotations: { touch: '1' } } }, headers: mergePatch });
    const owned = await eventually(async () => (await s.json('GET', `${apps}/controllerrevisions/web-orphan`)).body, (r) => r.metadata.ownerReferences?.length === 1, 'adopted revision');
    expect(owned.metadata.ownerReferences[0]).toMatchObject({ kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true });
  });

  it('a refused pod is a FailedCreate warning with the error, tried again with backoff once the quota has room', async () => {
    const s = await start();
    expect((await s.json('POST', `${core}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'one' }, spec: { hard: { pods: '1' } } } })).status).toBe(201);
    await eventually(async () => (await s.json('GET', `${core}/resourcequotas/one`)).body, (q) => q.status?.hard?.pods === '1', 'quota status');
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 2, podManagementPolicy: 'Parallel', volumeClaimTemplates: [] }) });
    const failed = await eventually(() => events(s), (l) => l.some((e) => e.includes('FailedCreate')), 'FailedCreate');
    expect(failed).toContain('Warning FailedCreate create Pod web-1 in StatefulSet web failed error: pods "web-1" is forbidden: exceeded quota: one, requested: pods=1, used: pods=1, limited: pods=1');
    expect(await podNames(s)).toEqual(['web-0']);
    await s.json('PATCH', `${core}/resourcequotas/one`, { body: { spec: { hard: { pods: '2' } } }, headers: mergePatch });
    await eventually(() => podNames(s), (l) => l.length === 2, 'web-1 once there is room');
  });

  it('a revision name taken by other data raises status.collisionCount and hashes again', async () => {
    const s = await start();
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 0 }) });
    const [first] = await eventually(() => revisions(s), (l) => l.length === 1, 'a revision');
    expect((await s.json('DELETE', `${apps}/statefulsets/web`)).status).toBe(200);
    await eventually(() => revisions(s), (l) => l.length === 0, 'collected');
    const squatter = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: first.metadata.name, labels: { app: 'other' } }, data: { other: true }, revision: 1 };
    expect((await s.json('POST', `${apps}/controllerrevisions`, { body: squatter })).status).toBe(201);
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 0 }) });
    const set = await eventually(() => getSet(s), (x) => x.status?.collisionCount === 1, 'a collision');
    expect(set.status.updateRevision).not.toBe(first.metadata.name);
    const mine = (await revisions(s)).find((r) => r.metadata.name === set.status.updateRevision);
    // As in history.CreateControllerRevision, only the name is hashed again: the label keeps the first hash.
    expect(mine.metadata.labels['controller.kubernetes.io/hash']).toBe(first.metadata.labels['controller.kubernetes.io/hash']);
    expect(mine.data).toEqual(first.data);
  });

  it('a retention policy changed to whenDeleted: Delete puts the set\'s controller reference on existing claims (SuccessfulUpdate)', async () => {
    const s = await start();
    const set = (await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 1 }) })).body;
    await readyAll(s, 1);
    expect((await s.json('GET', `${core}/persistentvolumeclaims/www-web-0`)).body.metadata.ownerReferences).toBeUndefined();
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' } } }, headers: mergePatch });
    const claim = await eventually(async () => (await s.json('GET', `${core}/persistentvolumeclaims/www-web-0`)).body, (c) => c.metadata.ownerReferences !== undefined, 'owned claim');
    expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(await eventually(() => events(s), (l) => l.some((e) => e.includes('SuccessfulUpdate')), 'update event')).toContain('Normal SuccessfulUpdate update Pod web-0 in StatefulSet web successful');
    // Back to Retain: the reference goes again.
    await s.json('PATCH', `${apps}/statefulsets/web`, { body: { spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' } } }, headers: mergePatch });
    await eventually(async () => (await s.json('GET', `${core}/persistentvolumeclaims/www-web-0`)).body, (c) => c.metadata.ownerReferences === undefined, 'released claim');
  });

  it('names the revision as kube-controller-manager does: the set of Kubernetes\' compatibility test data gets test-c77f6d978', async () => {
    const s = await start();
    const body = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'test' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'foo' } }, template: { metadata: { labels: { app: 'foo' }, annotations: { test: 'value' } }, spec: { containers: [{ name: 'test', image: 'test', imagePullPolicy: 'Always' }] } } },
    };
    expect((await s.json('POST', `${apps}/statefulsets`, { body })).status).toBe(201);
    const [rev] = await eventually(() => revisions(s), (l) => l.length === 1, 'a revision');
    expect(rev.metadata.name).toBe('test-c77f6d978');
    expect(rev.metadata.labels).toEqual({ app: 'foo', 'controller.kubernetes.io/hash': 'c77f6d978' });
  });

  it('a claim still owned by an earlier pod of the name holds the pod back (whenScaled: Delete) until the 30s resync finds it free', async () => {
    // No garbage collector here, so the stale reference stays until the test removes it.
    t = await newTestServer({ controllers: ['*', '-garbage-collector-controller'] });
    const s = t;
    await s.json('POST', `${apps}/statefulsets`, { body: statefulSet({ replicas: 1, podManagementPolicy: 'Parallel', persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' } }) });
    await eventually(() => podNames(s), (l) => l.length === 1, 'web-0');
    const stale = [{ apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: '00000000-0000-0000-0000-000000000000', controller: true, blockOwnerDeletion: true }];
    expect((await s.json('PATCH', `${core}/persistentvolumeclaims/www-web-0`, { body: { metadata: { ownerReferences: stale } }, headers: mergePatch })).status).toBe(200);
    expect((await s.json('DELETE', `${core}/pods/web-0`)).status).toBe(200);
    await eventually(() => getSet(s), (x) => x.status?.replicas === 0, 'no pod');
    await settle();
    expect(await podNames(s)).toEqual([]);
    // Freed without a pod event: only the periodic resync looks again.
    await s.json('PATCH', `${core}/persistentvolumeclaims/www-web-0`, { body: { metadata: { ownerReferences: null } }, headers: mergePatch });
    await settle();
    expect(await podNames(s)).toEqual([]);
    s.clock.advance(30_000);
    await eventually(() => podNames(s), (l) => l.length === 1, 'web-0 again');
  });
});
