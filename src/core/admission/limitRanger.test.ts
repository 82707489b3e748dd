/** The LimitRanger admission plugin through handle(): defaults on create, min/max/ratio 403s, claims, and LimitRange defaulting. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

const limitRange = (name: string, limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
const pod = (name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: containers.map((c, i) => ({ name: `c${i}`, image: 'nginx', ...c })), ...extra },
});

async function createLimitRange(s: TestServer, name: string, limits: unknown[]) {
  const r = await s.json('POST', `${ns}/limitranges`, { body: limitRange(name, limits) });
  expect(r.status).toBe(201);
  return r.body;
}

describe('LimitRange defaulting (SetDefaults_LimitRangeItem)', () => {
  it('a Container item\'s default comes from max, defaultRequest from default, then min; quantities are canonical', async () => {
    t = await newTestServer();
    const lr = await createLimitRange(t, 'lr', [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '50m', 'ephemeral-storage': '1Mi' }, default: { memory: '512Mi' } },
      { type: 'Pod', max: { cpu: '4000m' } },
    ]);
    expect(lr.spec.limits).toEqual([
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '50m', 'ephemeral-storage': '1Mi' }, default: { cpu: '2', memory: '512Mi' }, defaultRequest: { cpu: '2', 'ephemeral-storage': '1Mi', memory: '512Mi' } },
      { type: 'Pod', max: { cpu: '4' } },
    ]);
  });
});

describe('LimitRanger admission', () => {
  it('a pod created without resources gets the defaults and the kubernetes.io/limit-ranger annotation', async () => {
    t = await newTestServer();
    await createLimitRange(t, 'defaults', [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]);
    const r = await t.json('POST', `${ns}/pods`, { body: pod('web', [{}, { resources: { limits: { memory: '1Gi' } } }], { initContainers: [{ name: 'init', image: 'busybox' }] }) });
    expect(r.status).toBe(201);
    const [c0, c1] = r.body.spec.containers;
    expect(c0.resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    // c1's own limit stands; its memory request came from that limit (SetDefaults_Pod), before admission.
    expect(c1.resources).toEqual({ limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } });
    expect(r.body.spec.initContainers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    expect(r.body.metadata.annotations).toEqual({
      'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container c0; cpu, memory limit for container c0; cpu request for container c1; cpu limit for container c1; cpu, memory request for init container init; cpu, memory limit for init container init',
    });
    // The QoS class counts the defaults (kube's PrepareForCreate sets it after admission): requests below limits.
    expect(r.body.status.qosClass).toBe('Burstable');
    // Stored as answered.
    expect((await t.json('GET', `${ns}/pods/web`)).body.spec.containers[0].resources).toEqual(c0.resources);
    const equal = await t.json('POST', '/api/v1/namespaces/kube-system/limitranges', { body: limitRange('same', [{ type: 'Container', default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '1', memory: '1Gi' } }]) });
    expect(equal.status).toBe(201);
    const guaranteed = await t.json('POST', '/api/v1/namespaces/kube-system/pods', { body: pod('g', [{}]) });
    expect(guaranteed.body.status.qosClass).toBe('Guaranteed');
    // Another namespace has no LimitRange.
    const other = await t.json('POST', '/api/v1/namespaces/kube-public/pods', { body: pod('bare', [{}]) });
    expect(other.body.spec.containers[0].resources).toEqual({});
    expect(other.body.metadata.annotations).toBeUndefined();
  });

  it('Container max and min: kube\'s 403 messages, every broken rule in one aggregate', async () => {
    t = await newTestServer();
    await createLimitRange(t, 'bounds', [{ type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' }, default: { cpu: '1', memory: '128Mi' }, defaultRequest: { cpu: '1', memory: '128Mi' } }]);
    const big = await t.json('POST', `${ns}/pods`, { body: pod('big', [{ resources: { limits: { cpu: '2' } } }]) });
    expect(big.status).toBe(403);
    expect(big.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { name: 'big', kind: 'pods' },
      message: 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    });
    const both = await t.json('POST', `${ns}/pods`, { body: pod('both', [{ resources: { limits: { cpu: '2', memory: '32Mi' } } }]) });
    expect(both.body.message).toBe('pods "both" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Container is 1, but limit is 2]');
    expect((await t.json('POST', `${ns}/pods`, { body: pod('fits', [{}]) })).status).toBe(201);
  });

  it('maxLimitRequestRatio and Pod limits over the pod\'s summed containers', async () => {
    t = await newTestServer();
    await createLimitRange(t, 'ratio', [{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, { type: 'Pod', max: { memory: '1Gi' } }]);
    const ratio = await t.json('POST', `${ns}/pods`, { body: pod('ratio', [{ resources: { requests: { cpu: '100m', memory: '100Mi' }, limits: { cpu: '400m', memory: '100Mi' } } }]) });
    expect(ratio.status).toBe(403);
    expect(ratio.body.message).toBe('pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000');
    const noRequest = await t.json('POST', `${ns}/pods`, { body: pod('nolimit', [{ resources: { requests: { cpu: '100m' }, limits: { memory: '100Mi' } } }]) });
    expect(noRequest.body.message).toBe('pods "nolimit" is forbidden: cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0');
    const sum = await t.json('POST', `${ns}/pods`, {
      body: pod('sum', [
        { resources: { requests: { cpu: '100m' }, limits: { cpu: '200m', memory: '600Mi' } } },
        { resources: { requests: { cpu: '100m' }, limits: { cpu: '200m', memory: '600Mi' } } },
      ]),
    });
    expect(sum.body.message).toBe('pods "sum" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1200Mi');
  });

  it('PersistentVolumeClaim min and max over the storage request, on create and on update', async () => {
    t = await newTestServer();
    await createLimitRange(t, 'storage', [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '2Gi' } }]);
    const claim = (name: string, storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    const big = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('big', '5Gi') });
    expect(big.status).toBe(403);
    expect(big.body).toMatchObject({ reason: 'Forbidden', code: 403, details: { name: 'big', kind: 'persistentvolumeclaims' }, message: 'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi' });
    const small = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('small', '500Mi') });
    expect(small.body.message).toBe('persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    expect((await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('ok', '1Gi') })).status).toBe(201);
    // Updates are checked too: a label change on a claim that now breaks a tighter range is refused.
    await t.json('PUT', `${ns}/limitranges/storage`, { body: { ...limitRange('storage', [{ type: 'PersistentVolumeClaim', max: { storage: '512Mi' } }]) } });
    const relabel = await t.json('PATCH', `${ns}/persistentvolumeclaims/ok`, { body: { metadata: { labels: { a: 'b' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(relabel.status).toBe(403);
    expect(relabel.body.message).toBe('persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 512Mi, but request is 1Gi');
  });

  it('with a quota that requires cpu requests, a LimitRange default lets a bare pod in (defaults run before the quota check)', async () => {
    t = await newTestServer();
    const s = t;
    await createLimitRange(s, 'defaults', [{ type: 'Container', default: { cpu: '200m', memory: '128Mi' } }]);
    await s.json('POST', `${ns}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '300m', 'limits.memory': '1Gi' } } } });
    for (let i = 0; i < 500 && !(await s.json('GET', `${ns}/resourcequotas/compute`)).body.status?.used; i++) await new Promise((r) => setTimeout(r, 2));
    expect((await s.json('POST', `${ns}/pods`, { body: pod('a', [{}]) })).status).toBe(201);
    const b = await s.json('POST', `${ns}/pods`, { body: pod('b', [{}]) });
    expect(b.status).toBe(403);
    expect(b.body.message).toBe('pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=200m, used: requests.cpu=200m, limited: requests.cpu=300m');
  });

  it('a pod created by server-side apply and a dry run get the defaults too; a pod update is not defaulted again', async () => {
    t = await newTestServer();
    await createLimitRange(t, 'defaults', [{ type: 'Container', default: { memory: '64Mi' } }]);
    const applied = await t.json('PATCH', `${ns}/pods/applied?fieldManager=kubectl`, { body: JSON.stringify(pod('applied', [{}])), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect(applied.status).toBe(201);
    expect(applied.body.spec.containers[0].resources).toEqual({ limits: { memory: '64Mi' }, requests: { memory: '64Mi' } });
    const dry = await t.json('POST', `${ns}/pods?dryRun=All`, { body: pod('dry', [{}]) });
    expect(dry.status).toBe(201);
    expect(dry.body.spec.containers[0].resources).toEqual({ limits: { memory: '64Mi' }, requests: { memory: '64Mi' } });
    expect((await t.json('GET', `${ns}/pods/dry`)).status).toBe(404);
    // A tighter range later: the stored pod's updates are neither defaulted nor checked (LimitRanger ignores pod updates).
    await t.json('PUT', `${ns}/limitranges/defaults`, { body: limitRange('defaults', [{ type: 'Container', max: { memory: '32Mi' } }]) });
    const relabel = await t.json('PATCH', `${ns}/pods/applied`, { body: { metadata: { labels: { a: 'b' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(relabel.status).toBe(200);
  });

  it('the ReplicaSet controller\'s pods get the defaults too', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await createLimitRange(s, 'defaults', [{ type: 'Container', default: { cpu: '250m' } }]);
    await s.json('POST', '/apis/apps/v1/namespaces/default/replicasets', {
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 1, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    let pods: any[] = [];
    for (let i = 0; i < 500 && pods.length === 0; i++) {
      pods = (await s.json('GET', `${ns}/pods`)).body.items;
      if (!pods.length) await new Promise((r) => setTimeout(r, 2));
    }
    expect(pods[0].spec.containers[0].resources).toEqual({ limits: { cpu: '250m' }, requests: { cpu: '250m' } });
  });
});
