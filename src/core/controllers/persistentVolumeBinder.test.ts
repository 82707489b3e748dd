/** persistentvolume-binder-controller driven through HTTP: static binding, both sides' bodies, events, reclaim. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

async function server(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['persistentvolume-binder-controller', 'pvc-protection', 'pv-protection'] });
  return t;
}

const pv = (name: string, storage: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, ...metadata },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, ...spec },
});
const pvc = (name: string, storage: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...spec },
});

const getPV = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `/api/v1/persistentvolumes/${name}`)).body;
const getPVC = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/persistentvolumeclaims/${name}`)).body;
const phaseIs = (phase: string) => (o: any) => o?.status?.phase === phase;
const eventsOf = async (s: TestServer, name: string): Promise<any[]> => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items;

describe('persistentvolume-binder-controller', () => {
  it('binds a claim to the smallest Available volume that satisfies it, writing both sides as kube-controller-manager does', async () => {
    const s = await server();
    for (const [name, size] of [['big', '10Gi'], ['small', '2Gi'], ['tiny', '500Mi']] as const) {
      const made = await s.json('POST', '/api/v1/persistentvolumes', { body: pv(name, size) });
      expect(made.status).toBe(201);
      expect(made.body.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: '2026-01-01T00:00:00Z' });
    }
    // Another class and another access mode are never taken.
    expect((await s.json('POST', '/api/v1/persistentvolumes', { body: pv('fast', '1Gi', { storageClassName: 'fast' }) })).status).toBe(201);
    expect((await s.json('POST', '/api/v1/persistentvolumes', { body: pv('shared', '1Gi', { accessModes: ['ReadWriteMany'] }) })).status).toBe(201);
    await eventually(() => getPV(s, 'small'), phaseIs('Available'), 'small Available');
    const created = await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('data', '1Gi') });
    expect(created.status).toBe(201);
    expect(created.body.status).toEqual({ phase: 'Pending' });
    const claim = await eventually(() => getPVC(s, 'data'), phaseIs('Bound'), 'the claim bound');
    expect(claim.metadata.annotations).toEqual({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(claim.spec.volumeName).toBe('small');
    expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
    const volume = await getPV(s, 'small');
    expect(volume.metadata.annotations).toEqual({ 'pv.kubernetes.io/bound-by-controller': 'yes' });
    // The claimRef carries the claim's uid and the resourceVersion it was bound at.
    expect(volume.spec.claimRef).toEqual({ kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: created.body.metadata.uid, apiVersion: 'v1', resourceVersion: created.body.metadata.resourceVersion });
    expect(volume.status).toEqual({ phase: 'Bound', lastPhaseTransitionTime: '2026-01-01T00:00:00Z' });
    // Defaults as SetDefaults_PersistentVolume(Claim) apply them.
    expect(volume.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data/small', type: '' } });
    expect(claim.spec.volumeMode).toBe('Filesystem');
    expect(Number(claim.metadata.resourceVersion)).toBeGreaterThan(Number(created.body.metadata.resourceVersion));
    for (const other of ['big', 'tiny', 'fast', 'shared']) expect((await getPV(s, other)).status.phase).toBe('Available');
  });

  it('honours volumeName and claimRef pre-binding, selectors and volumeMode', async () => {
    const s = await server();
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('named', '5Gi') });
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('reserved', '1Gi', { claimRef: { namespace: 'default', name: 'wants-reserved' } }) });
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('labelled', '3Gi', {}, { labels: { tier: 'gold' } }) });
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('block', '1Gi', { volumeMode: 'Block' }) });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('by-name', '1Gi', { volumeName: 'named' }) });
    const byName = await eventually(() => getPVC(s, 'by-name'), phaseIs('Bound'), 'by-name bound');
    // The user bound it: the claim is not marked bound-by-controller, only completed.
    expect(byName.metadata.annotations).toEqual({ 'pv.kubernetes.io/bind-completed': 'yes' });
    expect(byName.status.capacity).toEqual({ storage: '5Gi' });
    expect((await getPV(s, 'named')).metadata.annotations).toEqual({ 'pv.kubernetes.io/bound-by-controller': 'yes' });
    // A volume pre-bound to a claim waits for it (Available), then takes it without bound-by-controller.
    const reserved = await eventually(() => getPV(s, 'reserved'), phaseIs('Available'), 'reserved Available');
    expect(reserved.spec.claimRef).toEqual({ namespace: 'default', name: 'wants-reserved' });
    const wants = await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('wants-reserved', '1Gi') });
    await eventually(() => getPVC(s, 'wants-reserved'), (c) => c.spec.volumeName === 'reserved' && c.status.phase === 'Bound', 'wants-reserved bound');
    const nowReserved = await eventually(() => getPV(s, 'reserved'), phaseIs('Bound'), 'reserved Bound');
    expect(nowReserved.metadata.annotations).toBeUndefined();
    expect(nowReserved.spec.claimRef.uid).toBe(wants.body.metadata.uid);
    // A selector picks the labelled volume; a Block claim the Block volume.
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('gold', '1Gi', { selector: { matchLabels: { tier: 'gold' } } }) });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('raw', '1Gi', { volumeMode: 'Block' }) });
    expect((await eventually(() => getPVC(s, 'gold'), phaseIs('Bound'), 'gold bound')).spec.volumeName).toBe('labelled');
    expect((await eventually(() => getPVC(s, 'raw'), phaseIs('Bound'), 'raw bound')).spec.volumeName).toBe('block');
  });

  it('leaves a claim with nothing to bind Pending with kube\'s events, and binds it when a volume comes', async () => {
    const s = await server();
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('lonely', '1Gi') });
    await eventually(() => getPVC(s, 'lonely'), phaseIs('Pending'), 'lonely Pending');
    const events = await eventually(() => eventsOf(s, 'lonely'), (l) => l.length > 0, 'FailedBinding');
    expect(events[0]).toMatchObject({ type: 'Normal', reason: 'FailedBinding', message: 'no persistent volumes available for this claim and no storage class is set', source: { component: 'persistentvolume-controller' }, involvedObject: { kind: 'PersistentVolumeClaim', name: 'lonely' } });
    // A class without volumes: handed to its provisioner.
    await s.json('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'ssd' }, provisioner: 'example.com/ssd' } });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('ssd', '1Gi', { storageClassName: 'ssd' }) });
    const ssd = await eventually(() => getPVC(s, 'ssd'), (c) => c.status?.phase === 'Pending' && c.metadata.annotations, 'ssd annotated');
    expect(ssd.metadata.annotations).toEqual({ 'volume.beta.kubernetes.io/storage-provisioner': 'example.com/ssd', 'volume.kubernetes.io/storage-provisioner': 'example.com/ssd' });
    expect((await eventually(() => eventsOf(s, 'ssd'), (l) => l.length > 0, 'ExternalProvisioning'))[0]).toMatchObject({
      reason: 'ExternalProvisioning',
      message: "Waiting for a volume to be created either by the external provisioner 'example.com/ssd' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    });
    // WaitForFirstConsumer: the claim waits for a pod.
    await s.json('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'local' }, provisioner: 'example.com/local', volumeBindingMode: 'WaitForFirstConsumer' } });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('later', '1Gi', { storageClassName: 'local' }) });
    expect((await eventually(() => eventsOf(s, 'later'), (l) => l.length > 0, 'WaitForFirstConsumer'))[0]).toMatchObject({ reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding' });
    expect((await getPVC(s, 'later')).metadata.annotations).toBeUndefined();
    // A volume that fits arrives: the waiting claim takes it.
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('arrived', '1Gi') });
    expect((await eventually(() => getPVC(s, 'lonely'), phaseIs('Bound'), 'lonely bound')).spec.volumeName).toBe('arrived');
  });

  it('reclaims a released volume per its policy: Retain keeps it Released, Delete deletes it or fails as the deleter does', async () => {
    const s = await server();
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('kept', '1Gi', { persistentVolumeReclaimPolicy: 'Retain' }) });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('a', '1Gi', { volumeName: 'kept' }) });
    await eventually(() => getPVC(s, 'a'), phaseIs('Bound'), 'a bound');
    s.clock.advance(60_000);
    expect((await s.json('DELETE', `${ns}/persistentvolumeclaims/a`)).status).toBe(200);
    const kept = await eventually(() => getPV(s, 'kept'), phaseIs('Released'), 'kept Released');
    expect(kept.spec.claimRef.name).toBe('a');
    expect(kept.status).toEqual({ phase: 'Released', lastPhaseTransitionTime: '2026-01-01T00:01:00Z' });
    // A Released volume is not taken by another claim.
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('b', '1Gi') });
    await eventually(() => getPVC(s, 'b'), phaseIs('Pending'), 'b Pending');
    expect((await getPV(s, 'kept')).status.phase).toBe('Released');
    await s.json('DELETE', `${ns}/persistentvolumeclaims/b`);
    await eventually(async () => (await s.json('GET', `${ns}/persistentvolumeclaims/b`)).status, (st) => st === 404, 'b gone');

    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('scratch', '1Gi', { persistentVolumeReclaimPolicy: 'Delete', hostPath: { path: '/tmp/scratch' } }) });
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('mounted', '1Gi', { persistentVolumeReclaimPolicy: 'Delete', hostPath: { path: '/mnt/data' } }) });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('c', '1Gi', { volumeName: 'scratch' }) });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('d', '1Gi', { volumeName: 'mounted' }) });
    await eventually(() => getPVC(s, 'c'), phaseIs('Bound'), 'c bound');
    await eventually(() => getPVC(s, 'd'), phaseIs('Bound'), 'd bound');
    await s.json('DELETE', `${ns}/persistentvolumeclaims/c`);
    await s.json('DELETE', `${ns}/persistentvolumeclaims/d`);
    await eventually(async () => (await s.json('GET', '/api/v1/persistentvolumes/scratch')).status, (st) => st === 404, 'scratch deleted');
    const failed = await eventually(() => getPV(s, 'mounted'), phaseIs('Failed'), 'mounted Failed');
    expect(failed.status).toEqual({ phase: 'Failed', message: 'host_path deleter only supports /tmp/.+ but received provided /mnt/data', lastPhaseTransitionTime: '2026-01-01T00:01:00Z' });
    expect((await eventually(() => eventsOf(s, 'mounted'), (l) => l.length > 0, 'VolumeFailedDelete'))[0]).toMatchObject({ type: 'Warning', reason: 'VolumeFailedDelete', message: 'host_path deleter only supports /tmp/.+ but received provided /mnt/data' });
  });

  it('gives a claim that never chose a class the default class made after it (RetroactiveDefaultStorageClass)', async () => {
    const s = await server();
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('early', '1Gi') });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('classless', '1Gi', { storageClassName: '' }) });
    await eventually(() => getPVC(s, 'early'), (c) => c.status?.phase === 'Pending', 'early Pending');
    await s.json('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'late', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/late' } });
    const early = await eventually(() => getPVC(s, 'early'), (c) => c.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], 'early handed to the provisioner');
    expect(early.spec.storageClassName).toBe('late');
    // "" is a choice: no class, ever.
    expect((await getPVC(s, 'classless')).spec.storageClassName).toBe('');
  });

  it('warns when the named volume does not fit or is another claim\'s', async () => {
    const s = await server();
    await s.json('POST', '/api/v1/persistentvolumes', { body: pv('small', '1Gi') });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('greedy', '5Gi', { volumeName: 'small' }) });
    expect((await eventually(() => eventsOf(s, 'greedy'), (l) => l.length > 0, 'VolumeMismatch'))[0]).toMatchObject({ type: 'Warning', reason: 'VolumeMismatch', message: 'Cannot bind to requested volume "small": requested PV is too small' });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('first', '1Gi', { volumeName: 'small' }) });
    await eventually(() => getPVC(s, 'first'), phaseIs('Bound'), 'first bound');
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('second', '1Gi', { volumeName: 'small' }) });
    expect((await eventually(() => eventsOf(s, 'second'), (l) => l.length > 0, 'FailedBinding'))[0]).toMatchObject({ type: 'Warning', reason: 'FailedBinding', message: 'volume "small" already bound to a different claim.' });
    expect((await getPVC(s, 'second')).status.phase).toBe('Pending');
  });
});
