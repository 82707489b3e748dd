/** Volumes on simulated nodes: the default class, provisioning after scheduling, VolumeBinding's messages, reclaim. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

async function cluster(nodes = 2): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: nodes });
  await eventually(async () => (await t!.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).body.items?.length, (n) => n === nodes, 'the node leases');
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  await eventually(async () => (await t!.json('GET', '/apis/storage.k8s.io/v1/storageclasses/standard')).status, (s) => s === 200, 'the default StorageClass');
  return t;
}

const pvc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const podWith = (name: string, claim: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }], ...spec },
});

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const getPVC = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/persistentvolumeclaims/${name}`)).body;
const eventsOf = async (s: TestServer, name: string): Promise<any[]> => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items;
const unschedulable = (p: any) => p?.status?.conditions?.[0]?.reason === 'Unschedulable';

describe('volumes on simulated nodes', () => {
  it('creates kind\'s default StorageClass: standard, WaitForFirstConsumer, Delete', async () => {
    const s = await cluster(1);
    const sc = (await s.json('GET', '/apis/storage.k8s.io/v1/storageclasses/standard')).body;
    expect(sc).toMatchObject({
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'kubesim.io/simulated-path',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
  });

  it('provisions a claim once its pod is scheduled, binds it, and runs the pod; deleting the claim deletes the volume', async () => {
    const s = await cluster(2);
    const created = await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('data') });
    expect(created.body.spec.storageClassName).toBe('standard');
    expect((await eventually(() => eventsOf(s, 'data'), (l) => l.length > 0, 'WaitForFirstConsumer'))[0]).toMatchObject({ reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding' });
    expect((await s.json('POST', `${ns}/pods`, { body: podWith('web', 'data') })).status).toBe(201);
    const pod = await eventually(() => getPod(s, 'web'), (p) => p.status?.phase === 'Running', 'web running');
    const claim = await getPVC(s, 'data');
    const node = pod.spec.nodeName;
    expect(claim.metadata.annotations).toEqual({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.beta.kubernetes.io/storage-provisioner': 'kubesim.io/simulated-path',
      'volume.kubernetes.io/selected-node': node,
      'volume.kubernetes.io/storage-provisioner': 'kubesim.io/simulated-path',
    });
    const name = `pvc-${created.body.metadata.uid}`;
    expect(claim.spec.volumeName).toBe(name);
    expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    const pv = (await s.json('GET', `/api/v1/persistentvolumes/${name}`)).body;
    expect(pv.metadata.annotations).toEqual({ 'pv.kubernetes.io/provisioned-by': 'kubesim.io/simulated-path' });
    expect(pv.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '1Gi' },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: created.body.metadata.uid, apiVersion: 'v1', resourceVersion: expect.any(String) },
      hostPath: { path: `/var/kubesim/simulated-path/${name}_default_data`, type: 'DirectoryOrCreate' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
    });
    expect(pv.status.phase).toBe('Bound');
    const claimEvents = (await eventsOf(s, 'data')).map((e) => e.reason);
    expect(claimEvents).toEqual(expect.arrayContaining(['WaitForFirstConsumer', 'ExternalProvisioning', 'Provisioning', 'ProvisioningSucceeded']));
    expect((await eventsOf(s, 'data')).find((e) => e.reason === 'ProvisioningSucceeded')).toMatchObject({ message: `Successfully provisioned volume ${name}`, source: { component: expect.stringMatching(/^kubesim\.io\/simulated-path_/) } });
    // A second pod of the claim goes where its volume is.
    await s.json('POST', `${ns}/pods`, { body: podWith('reader', 'data') });
    expect((await eventually(() => getPod(s, 'reader'), (p) => p.status?.phase === 'Running', 'reader running')).spec.nodeName).toBe(node);
    // Claim deleted (its pods gone first): Released, then deleted by its provisioner.
    await s.json('DELETE', `${ns}/pods/web?gracePeriodSeconds=0`);
    await s.json('DELETE', `${ns}/pods/reader?gracePeriodSeconds=0`);
    await s.json('DELETE', `${ns}/persistentvolumeclaims/data`);
    await eventually(async () => (await s.json('GET', `/api/v1/persistentvolumes/${name}`)).status, (st) => st === 404, 'the volume deleted');
  });

  it('rolls out a StatefulSet with volumeClaimTemplates: one provisioned volume per replica', async () => {
    const s = await cluster(2);
    await s.json('POST', '/apis/apps/v1/namespaces/default/statefulsets', {
      body: {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
        spec: {
          replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:17', env: [{ name: 'POSTGRES_PASSWORD', value: 'secret' }], volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } }],
        },
      },
    });
    const status = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/statefulsets/db')).body.status, (st) => st?.readyReplicas === 2, 'the rollout');
    expect(status).toMatchObject({ replicas: 2, readyReplicas: 2 });
    for (const i of [0, 1]) {
      const claim = await getPVC(s, `data-db-${i}`);
      expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
      expect(claim.metadata.annotations['volume.kubernetes.io/selected-node']).toBe((await getPod(s, `db-${i}`)).spec.nodeName);
    }
    const pvs = (await s.json('GET', '/api/v1/persistentvolumes')).body.items;
    expect(pvs.map((v: any) => [v.spec.claimRef.name, v.status.phase]).sort()).toEqual([['data-db-0', 'Bound'], ['data-db-1', 'Bound']]);
  });

  it('gives a generic ephemeral volume its claim (ephemeral-volume-controller), provisioned for the pod and gone with it', async () => {
    const s = await cluster(1);
    const created = await s.json('POST', `${ns}/pods`, {
      body: {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'scratch' },
        spec: {
          containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }],
          volumes: [{ name: 'cache', ephemeral: { volumeClaimTemplate: { metadata: { labels: { type: 'cache' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }],
        },
      },
    });
    const pod = await eventually(() => getPod(s, 'scratch'), (p) => p.status?.phase === 'Running', 'scratch running');
    const claim = await getPVC(s, 'scratch-cache');
    expect(claim.metadata.labels).toEqual({ type: 'cache' });
    expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'scratch', uid: created.body.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(claim.status.phase).toBe('Bound');
    expect(claim.metadata.annotations['volume.kubernetes.io/selected-node']).toBe(pod.spec.nodeName);
    // The pod goes, the garbage collector takes its claim, the provisioner its volume.
    await s.json('DELETE', `${ns}/pods/scratch`);
    await eventually(async () => (await s.json('GET', `/api/v1/persistentvolumes/${claim.spec.volumeName}`)).status, (st) => st === 404, 'the volume deleted');
    expect((await s.json('GET', `${ns}/persistentvolumeclaims/scratch-cache`)).status).toBe(404);
  });

  it('binds a WaitForFirstConsumer claim to a local volume the chosen node reaches (the scheduler\'s static binding)', async () => {
    const s = await cluster(2);
    await s.json('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'local-storage' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' } });
    await s.json('POST', '/api/v1/persistentvolumes', {
      body: {
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'disk-2' },
        spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'local-storage', local: { path: '/mnt/disks/ssd1' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-2'] }] }] } } },
      },
    });
    const claim = await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('local', { storageClassName: 'local-storage' }) });
    await s.json('POST', `${ns}/pods`, { body: podWith('db', 'local') });
    expect((await eventually(() => getPod(s, 'db'), (p) => p.status?.phase === 'Running', 'db running')).spec.nodeName).toBe('node-2');
    const bound = await getPVC(s, 'local');
    expect(bound.spec.volumeName).toBe('disk-2');
    expect(bound.metadata.annotations).toEqual({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(bound.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } });
    const pv = (await s.json('GET', '/api/v1/persistentvolumes/disk-2')).body;
    expect(pv.metadata.annotations).toEqual({ 'pv.kubernetes.io/bound-by-controller': 'yes' });
    expect(pv.spec.claimRef).toMatchObject({ name: 'local', uid: claim.body.metadata.uid });
    // A second pod on another claim of the class: no volume left, and the class cannot provision.
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('local-2', { storageClassName: 'local-storage' }) });
    await s.json('POST', `${ns}/pods`, { body: podWith('db-2', 'local-2') });
    const stuck = await eventually(() => getPod(s, 'db-2'), unschedulable, 'db-2 unschedulable');
    expect(stuck.status.conditions[0].message).toBe("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  });

  it('gives up binding a pod after bindTimeout (600s) when its claim never binds, as PreBind does', async () => {
    t = await newTestServer({ controllers: ['*', '-persistentvolume-binder-controller'], simulatedNodes: 1 });
    const s = t;
    await eventually(async () => (await s.json('GET', '/apis/storage.k8s.io/v1/storageclasses/standard')).status, (st) => st === 200, 'the default StorageClass');
    await eventually(async () => (await s.json('GET', '/api/v1/nodes')).body.items?.length, (n) => n === 1, 'the node');
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('never') });
    await s.json('POST', `${ns}/pods`, { body: podWith('patient', 'never') });
    // The scheduler chose the node and waits; with no PV controller nothing binds the claim.
    await eventually(() => getPVC(s, 'never'), (c) => c.metadata.annotations?.['volume.kubernetes.io/selected-node'] === 'node-1', 'the selected node');
    expect((await getPod(s, 'patient')).spec.nodeName).toBeUndefined();
    s.clock.advance(600_000);
    const failed = await eventually(() => getPod(s, 'patient'), (p) => p.status?.conditions?.[0]?.reason === 'SchedulerError', 'the binding timeout');
    const message = 'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded';
    expect(failed.status.conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', message });
    expect((await eventsOf(s, 'patient')).find((e) => e.reason === 'FailedScheduling')).toMatchObject({ type: 'Warning', message });
  });

  it('words VolumeBinding\'s rejections as kube-scheduler does', async () => {
    const s = await cluster(2);
    await s.json('POST', `${ns}/pods`, { body: podWith('orphan', 'missing') });
    const orphan = await eventually(() => getPod(s, 'orphan'), unschedulable, 'orphan unschedulable');
    expect(orphan.status.conditions[0].message).toBe('0/2 nodes are available: persistentvolumeclaim "missing" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
    // An Immediate class nothing provisions: the claim stays unbound and so does the pod.
    await s.json('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner' } });
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('manual', { storageClassName: 'manual' }) });
    await s.json('POST', `${ns}/pods`, { body: podWith('waiter', 'manual') });
    const waiter = await eventually(() => getPod(s, 'waiter'), unschedulable, 'waiter unschedulable');
    const message = '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';
    expect(waiter.status.conditions[0].message).toBe(message);
    expect((await eventsOf(s, 'waiter')).find((e) => e.reason === 'FailedScheduling')).toMatchObject({ type: 'Warning', message });
    // The claim the pod waits for appears: the pod is tried again and scheduled.
    await s.json('POST', `${ns}/persistentvolumeclaims`, { body: pvc('missing') });
    await eventually(() => getPod(s, 'orphan'), (p) => p.status?.phase === 'Running', 'orphan running');
    // A volume for the manual claim, reachable only from node-2: bound, and the pod placed there.
    await s.json('POST', '/api/v1/persistentvolumes', {
      body: {
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'local-2' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', local: { path: '/mnt/disk' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-2'] }] }] } } },
      },
    });
    expect((await eventually(() => getPod(s, 'waiter'), (p) => p.status?.phase === 'Running', 'waiter running')).spec.nodeName).toBe('node-2');
    // node-2 cordoned, node-1 cannot reach the volume: a volume node affinity conflict.
    await s.json('PATCH', '/api/v1/nodes/node-2', { body: { spec: { unschedulable: true } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await s.json('POST', `${ns}/pods`, { body: podWith('stuck', 'manual') });
    const stuck = await eventually(() => getPod(s, 'stuck'), unschedulable, 'stuck unschedulable');
    expect(stuck.status.conditions[0].message).toBe('0/2 nodes are available: 1 node(s) had volume node affinity conflict, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
  });
});
