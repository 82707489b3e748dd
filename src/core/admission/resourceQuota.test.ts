/** The ResourceQuota admission plugin through handle(): kube's 403s, the charge in the same request, dry runs. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
const pod = (name: string, resources?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(resources ? { resources } : {}) }], ...extra },
});
const getQuota = async (s: TestServer, name: string) => (await s.json('GET', `${ns}/resourcequotas/${name}`)).body;

/** Creates a quota and waits for the controller's first count (kube refuses nothing a quota without status covers). */
async function createQuota(s: TestServer, name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}) {
  const r = await s.json('POST', `${ns}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...extra } } });
  expect(r.status).toBe(201);
  return eventually(() => getQuota(s, name), (q) => q.status?.used !== undefined && Object.keys(q.status.used).length === Object.keys(hard).length, `${name} counted`);
}

function forbidden(message: string, name: string, kind: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: { name, kind }, code: 403 };
}

describe('ResourceQuota admission', () => {
  it('object counts: the namespace root CA ConfigMap counts, a create past the hard limit is 403 with kube\'s message, and admitted creates are charged in the same request', async () => {
    t = await newTestServer({ controllers: ['*', '-deployment-controller', '-replicaset-controller'] });
    const s = t;
    await eventually(() => s.json('GET', `${ns}/configmaps/kube-root-ca.crt`), (r) => r.status === 200, 'root CA ConfigMap');
    const q = await createQuota(s, 'q2', { configmaps: '2' });
    expect(q.status.used).toEqual({ configmaps: '1' });
    const before = q.metadata.resourceVersion;
    expect((await s.json('POST', `${ns}/configmaps`, { body: cm('a') })).status).toBe(201);
    // Charged before the write was stored, not by the controller's recount.
    const charged = await getQuota(s, 'q2');
    expect(charged.status.used).toEqual({ configmaps: '2' });
    expect(Number(charged.metadata.resourceVersion)).toBeGreaterThan(Number(before));
    const over = await s.json('POST', `${ns}/configmaps`, { body: cm('over1') });
    expect(over.status).toBe(403);
    expect(over.body).toEqual(forbidden('configmaps "over1" is forbidden: exceeded quota: q2, requested: configmaps=1, used: configmaps=2, limited: configmaps=2', 'over1', 'configmaps'));
    expect((await s.json('GET', `${ns}/configmaps/over1`)).status).toBe(404);
    // A generated name is named in the message once generated.
    const generated = await s.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    expect(generated.status).toBe(403);
    expect(generated.body.message).toMatch(/^configmaps "gen-[a-z0-9]{5}" is forbidden: exceeded quota: q2, /);
    // A delete gives the room back (the controller's replenishment).
    await s.json('DELETE', `${ns}/configmaps/a`);
    await eventually(() => getQuota(s, 'q2'), (x) => x.status.used.configmaps === '1', 'replenished');
    expect((await s.json('POST', `${ns}/configmaps`, { body: cm('b') })).status).toBe(201);
  });

  it('a quota whose status lacks the usage of what it limits refuses with "status unknown for quota"', async () => {
    t = await newTestServer();
    const s = t;
    const q = await createQuota(s, 'q', { configmaps: '5', secrets: '5' });
    // A status written without used (the controller recounts it at the next resync).
    const put = await s.json('PUT', `${ns}/resourcequotas/q/status`, { body: { ...q, status: { hard: q.status.hard } } });
    expect(put.status).toBe(200);
    const r = await s.json('POST', `${ns}/configmaps`, { body: cm('a') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps "a" is forbidden: status unknown for quota: q, resources: configmaps');
  });

  it('dry run is checked and charges nothing', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'q', { 'count/configmaps': '1' });
    const dry = await s.json('POST', `${ns}/configmaps?dryRun=All`, { body: cm('a') });
    expect(dry.status).toBe(201);
    expect((await getQuota(s, 'q')).status.used).toEqual({ 'count/configmaps': '0' });
    expect((await s.json('POST', `${ns}/configmaps`, { body: cm('a') })).status).toBe(201);
    const dryOver = await s.json('POST', `${ns}/configmaps?dryRun=All`, { body: cm('b') });
    expect(dryOver.status).toBe(403);
    expect(dryOver.body.message).toBe('configmaps "b" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  });

  it('compute quota: a pod must specify what the quota limits ("failed quota: ... must specify"), requests and limits are summed', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'compute', { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '2' });
    const bare = await s.json('POST', `${ns}/pods`, { body: pod('bare') });
    expect(bare.status).toBe(403);
    expect(bare.body).toEqual(forbidden('pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: app; requests.cpu for: app', 'bare', 'pods'));
    const ok = await s.json('POST', `${ns}/pods`, { body: pod('p1', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }) });
    expect(ok.status).toBe(201);
    expect((await getQuota(s, 'compute')).status.used).toEqual({ 'limits.memory': '512Mi', pods: '1', 'requests.cpu': '600m' });
    const over = await s.json('POST', `${ns}/pods`, { body: pod('p2', { requests: { cpu: '500m' }, limits: { memory: '256Mi' } }) });
    expect(over.status).toBe(403);
    expect(over.body.message).toBe('pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
    // Limits default requests (SetDefaults_Pod runs before admission): 400m fits.
    expect((await s.json('POST', `${ns}/pods`, { body: pod('p3', { limits: { cpu: '400m', memory: '512Mi' } }) })).status).toBe(201);
    expect((await getQuota(s, 'compute')).status.used).toEqual({ 'limits.memory': '1Gi', pods: '2', 'requests.cpu': '1' });
  });

  it('scopes: a BestEffort quota covers only best-effort pods; a terminal pod no longer uses compute', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'besteffort', { pods: '1' }, { scopes: ['BestEffort'] });
    expect((await s.json('POST', `${ns}/pods`, { body: pod('be1') })).status).toBe(201);
    const second = await s.json('POST', `${ns}/pods`, { body: pod('be2') });
    expect(second.status).toBe(403);
    expect(second.body.message).toBe('pods "be2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1');
    // Not best-effort: outside the quota's scope. ConfigMaps have no scopes: never covered.
    expect((await s.json('POST', `${ns}/pods`, { body: pod('burstable', { requests: { cpu: '100m' } }) })).status).toBe(201);
    expect((await s.json('POST', `${ns}/configmaps`, { body: cm('c') })).status).toBe(201);
    expect((await getQuota(s, 'besteffort')).status.used).toEqual({ pods: '1' });
    // be1 finishes: the controller gives its pod back.
    const st = await s.json('PATCH', `${ns}/pods/be1/status`, { body: { status: { phase: 'Succeeded' } }, headers: mergePatch });
    expect(st.status).toBe(200);
    await eventually(() => getQuota(s, 'besteffort'), (q) => q.status.used.pods === '0', 'terminal pod released');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('be3') })).status).toBe(201);
  });

  it('Terminating scope (activeDeadlineSeconds) and extended resources (requests.<domain>/<name>)', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'jobs', { pods: '1' }, { scopes: ['Terminating'] });
    await createQuota(s, 'gpu', { 'requests.example.com/gpu': '1' });
    expect((await s.json('POST', `${ns}/pods`, { body: pod('j1', undefined, { activeDeadlineSeconds: 60 }) })).status).toBe(201);
    const j2 = await s.json('POST', `${ns}/pods`, { body: pod('j2', undefined, { activeDeadlineSeconds: 60 }) });
    expect(j2.body.message).toBe('pods "j2" is forbidden: exceeded quota: jobs, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('long-running') })).status).toBe(201);
    // An extended resource's request defaults from its limit; the quota counts requests.
    expect((await s.json('POST', `${ns}/pods`, { body: pod('g1', { limits: { 'example.com/gpu': '1' } }) })).status).toBe(201);
    const g2 = await s.json('POST', `${ns}/pods`, { body: pod('g2', { limits: { 'example.com/gpu': '1' } }) });
    expect(g2.body.message).toBe('pods "g2" is forbidden: exceeded quota: gpu, requested: requests.example.com/gpu=1, used: requests.example.com/gpu=1, limited: requests.example.com/gpu=1');
  });

  it('services: node ports and load balancers are counted, on create and when an update changes the type', async () => {
    t = await newTestServer();
    const s = t;
    // The bootstrap `kubernetes` Service is a ClusterIP one.
    await createQuota(s, 'svc', { services: '3', 'services.nodeports': '1', 'services.loadbalancers': '0' });
    expect((await getQuota(s, 'svc')).status.used).toEqual({ services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' });
    const svc = (name: string, type: string, ports: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) } });
    const np = await s.json('POST', `${ns}/services`, { body: svc('np', 'NodePort', 2) });
    expect(np.status).toBe(403);
    expect(np.body.message).toBe('services "np" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    const lb = await s.json('POST', `${ns}/services`, { body: svc('lb', 'LoadBalancer', 1) });
    expect(lb.body.message).toBe('services "lb" is forbidden: exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0');
    expect((await s.json('POST', `${ns}/services`, { body: svc('web', 'ClusterIP', 2) })).status).toBe(201);
    const toNodePort = await s.json('PATCH', `${ns}/services/web`, { body: { spec: { type: 'NodePort' } }, headers: mergePatch });
    expect(toNodePort.status).toBe(403);
    expect(toNodePort.body.message).toBe('services "web" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    expect((await getQuota(s, 'svc')).status.used).toEqual({ services: '2', 'services.loadbalancers': '0', 'services.nodeports': '0' });
  });

  it('count/<resource>.<group> limits any kind; a quota counts quotas', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'apps', { 'count/deployments.apps': '1', resourcequotas: '1' });
    const dep = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
    expect((await s.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: dep('one') })).status).toBe(201);
    const two = await s.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: dep('two') });
    expect(two.status).toBe(403);
    expect(two.body).toEqual({ ...forbidden('deployments.apps "two" is forbidden: exceeded quota: apps, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1', 'two', 'deployments'), details: { name: 'two', group: 'apps', kind: 'deployments' } });
    const another = await s.json('POST', `${ns}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'another' }, spec: { hard: { pods: '1' } } } });
    expect(another.status).toBe(403);
    expect(another.body.message).toBe('resourcequotas "another" is forbidden: exceeded quota: apps, requested: resourcequotas=1, used: resourcequotas=1, limited: resourcequotas=1');
  });

  it('quotas of one namespace do not limit another; concurrent creates never pass the limit', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } });
    await createQuota(s, 'q', { 'count/secrets': '3' });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => s.json('POST', `${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(5);
    expect((await getQuota(s, 'q')).status.used).toEqual({ 'count/secrets': '3' });
    expect((await s.json('GET', `${ns}/secrets`)).body.items).toHaveLength(3);
    expect((await s.json('POST', '/api/v1/namespaces/other/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'free' } } })).status).toBe(201);
  });
});

describe('ResourceQuota admission: claims', () => {
  it('requests.storage and per-storage-class quota; a bound claim\'s expansion is charged the difference', async () => {
    t = await newTestServer();
    const s = t;
    await createQuota(s, 'storage', { 'requests.storage': '5Gi', persistentvolumeclaims: '3', 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' });
    const claim = (name: string, storage: string, storageClassName?: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) } });
    const gold = await s.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('gold', '2Gi', 'gold') });
    expect(gold.status).toBe(403);
    expect(gold.body.message).toBe('persistentvolumeclaims "gold" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=1Gi');
    expect((await s.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('data', '3Gi') })).status).toBe(201);
    expect((await getQuota(s, 'storage')).status.used).toEqual({ 'gold.storageclass.storage.k8s.io/requests.storage': '0', persistentvolumeclaims: '1', 'requests.storage': '3Gi' });
    // Expansion (of a bound claim) asks for the difference only.
    await s.json('PATCH', `${ns}/persistentvolumeclaims/data/status`, { body: { status: { phase: 'Bound', capacity: { storage: '3Gi' } } }, headers: mergePatch });
    const grow = await s.json('PATCH', `${ns}/persistentvolumeclaims/data`, { body: { spec: { resources: { requests: { storage: '6Gi' } } } }, headers: mergePatch });
    expect(grow.status).toBe(403);
    expect(grow.body.message).toBe('persistentvolumeclaims "data" is forbidden: exceeded quota: storage, requested: requests.storage=3Gi, used: requests.storage=3Gi, limited: requests.storage=5Gi');
    expect((await s.json('PATCH', `${ns}/persistentvolumeclaims/data`, { body: { spec: { resources: { requests: { storage: '4Gi' } } } }, headers: mergePatch })).status).toBe(200);
    expect((await getQuota(s, 'storage')).status.used['requests.storage']).toBe('4Gi');
  });

  it('PriorityClass scope selector: only pods of the named classes are covered', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 } });
    await createQuota(s, 'high', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    expect((await s.json('POST', `${ns}/pods`, { body: pod('h1', undefined, { priorityClassName: 'high' }) })).status).toBe(201);
    const h2 = await s.json('POST', `${ns}/pods`, { body: pod('h2', undefined, { priorityClassName: 'high' }) });
    expect(h2.status).toBe(403);
    expect(h2.body.message).toBe('pods "h2" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('plain') })).status).toBe(201);
  });
});

describe('ResourceQuota admission: controllers', () => {
  it('a Deployment shows its ReplicaSet\'s ReplicaFailure', async () => {
    t = await newTestServer({ controllers: ['*', '-root-ca-certificate-publisher-controller'] });
    const s = t;
    await createQuota(s, 'pods', { pods: '1' });
    await s.json('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    const d = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body, (x) => x.status?.conditions?.some((c: { type: string }) => c.type === 'ReplicaFailure'), 'the Deployment\'s ReplicaFailure');
    expect(d.status.conditions.find((c: { type: string }) => c.type === 'ReplicaFailure')).toEqual({
      type: 'ReplicaFailure', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'FailedCreate',
      message: expect.stringMatching(/^pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1$/),
    });
    expect(d.status.replicas).toBe(1);
  });

  it('a ReplicaSet\'s pods stop at the quota: ReplicaFailure says why, and more room lets it finish', async () => {
    t = await newTestServer({ controllers: ['*', '-root-ca-certificate-publisher-controller'] });
    const s = t;
    await createQuota(s, 'pods', { pods: '2' });
    await s.json('POST', '/apis/apps/v1/namespaces/default/replicasets', {
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 3, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    const listPods = async () => (await s.json('GET', `${ns}/pods`)).body.items as unknown[];
    const rs = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/replicasets/rs')).body, (x) => x.status?.replicas === 2, 'two replicas');
    expect(rs.status.replicas).toBe(2);
    expect(await listPods()).toHaveLength(2);
    expect((await getQuota(s, 'pods')).status.used).toEqual({ pods: '2' });
    // calculateStatus: the refusal is the ReplicaFailure condition's message.
    const failing = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/replicasets/rs')).body, (x) => x.status?.conditions?.length === 1, 'ReplicaFailure');
    expect(failing.status.conditions).toEqual([{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'FailedCreate', message: expect.stringMatching(/^pods "rs-[a-z0-9]{5}" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2$/) }]);
    // More room: the ReplicaSet's backoff retry makes the third pod and clears the condition.
    await s.json('PATCH', `${ns}/resourcequotas/pods`, { body: { spec: { hard: { pods: '3' } } }, headers: mergePatch });
    const done = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/replicasets/rs')).body, (x) => x.status?.replicas === 3 && !x.status.conditions, 'third replica', 3000);
    expect(done.status.replicas).toBe(3);
  });
});

describe('admission trace', () => {
  const trace = (r: { headers: Headers }) => (JSON.parse(decodeURIComponent(r.headers.get('x-kubesim-trace') ?? '[]')) as { stage: string; message: string; details?: Record<string, string> }[]).filter((e) => e.stage === 'admission');

  it('a traced write records LimitRanger\'s defaults, what ResourceQuota charged, and a refusal', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', `${ns}/limitranges`, { body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', default: { cpu: '100m' } }] } } });
    await createQuota(s, 'q', { 'requests.cpu': '150m', pods: '5' });
    const traced = { 'x-kubesim-trace': '1' };
    // PodSecurity annotates every pod write with the enforce level it was checked at.
    const ok = await s.json('POST', `${ns}/pods`, { body: pod('a'), headers: traced });
    expect(ok.status).toBe(201);
    expect(trace(ok)).toEqual([
      { stage: 'admission', message: 'LimitRanger: LimitRanger plugin set: cpu request for container app; cpu limit for container app' },
      { stage: 'admission', message: 'audit annotations', details: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' } },
      { stage: 'admission', message: 'ResourceQuota: q used pods=1,requests.cpu=100m' },
    ]);
    const dry = await s.json('POST', `${ns}/pods?dryRun=All`, { body: pod('b', { requests: { cpu: '50m' } }), headers: traced });
    expect(trace(dry)).toEqual([
      { stage: 'admission', message: 'LimitRanger: LimitRanger plugin set: cpu limit for container app' },
      { stage: 'admission', message: 'audit annotations', details: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' } },
      { stage: 'admission', message: 'ResourceQuota: q used pods=2,requests.cpu=150m (dry run: not written)' },
    ]);
    const refused = await s.json('POST', `${ns}/pods`, { body: pod('c'), headers: traced });
    expect(refused.status).toBe(403);
    expect(trace(refused)).toEqual([
      { stage: 'admission', message: 'LimitRanger: LimitRanger plugin set: cpu request for container app; cpu limit for container app' },
      { stage: 'admission', message: 'audit annotations', details: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' } },
      { stage: 'admission', message: 'ResourceQuota refused the write', details: { message: refused.body.message } },
    ]);
  });
});
