/** kube-apiserver's APIServices through HTTP: autoregistered built-in group versions, CRDs' versions, metrics-server's. */
import { describe, expect, it } from 'vitest';
import { createApiServer } from './apiserver';
import { createMemoryStorage } from './storage/memory';
import { eventually } from './testing/eventually';
import { newTestServer, rawApiControllers, type TestServer } from './testing/client';
import { FakeClock, seededRandom } from './util/clock';

const path = '/apis/apiregistration.k8s.io/v1/apiservices';
const started = '2026-01-01T00:00:00Z';

const get = async (t: TestServer, name: string) => t.json('GET', `${path}/${name}`);
const names = async (t: TestServer): Promise<string[]> => (await t.json('GET', path)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);

const localStatus = { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: started, reason: 'Local', message: 'Local APIServices are always available' }] };

function crd(versions: string[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
    },
  };
}

describe('autoregistered APIServices', () => {
  it('every served built-in group version has a Local APIService with kube-apiserver\'s priorities', async () => {
    const t = await newTestServer();
    const list = await names(t);
    expect(list).toEqual([
      'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.authentication.k8s.io', 'v1.authorization.k8s.io',
      'v1.autoscaling', 'v1.batch', 'v1.certificates.k8s.io', 'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io',
      'v1.flowcontrol.apiserver.k8s.io', 'v1.networking.k8s.io', 'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io',
      'v1.resource.k8s.io', 'v1.scheduling.k8s.io', 'v1.storage.k8s.io', 'v2.autoscaling',
    ]);
    const core = await get(t, 'v1.');
    expect(core.status).toBe(200);
    expect(core.body.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.body.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.body.status).toEqual(localStatus);
    expect((await get(t, 'v1.apps')).body.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    expect((await get(t, 'v2.autoscaling')).body.spec).toEqual({ group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
    // The aggregator's own group and kubesim's groups have no entry in kube-apiserver's table.
    expect((await get(t, 'v1.apiregistration.k8s.io')).status).toBe(404);
  });

  it('kube-apiserver writes them: its managedFields for the object and the status', async () => {
    const t = await newTestServer();
    const { body } = await get(t, 'v1.batch');
    expect(body.metadata.managedFields.map((m: Record<string, unknown>) => [m['manager'], m['operation'], m['subresource']])).toEqual([
      ['kube-apiserver', 'Update', undefined],
      ['kube-apiserver', 'Update', 'status'],
    ]);
  });

  it('--runtime-config: a disabled version has none, an enabled beta one has its own', async () => {
    const t = await newTestServer({ runtimeConfig: 'batch/v1=false,networking.k8s.io/v1beta1=true' });
    const list = await names(t);
    expect(list).not.toContain('v1.batch');
    expect((await get(t, 'v1beta1.networking.k8s.io')).body.spec).toEqual({ group: 'networking.k8s.io', version: 'v1beta1', groupPriorityMinimum: 17200, versionPriority: 9 });
  });

  it('onstart ones come back on the next start only, and one for a version now disabled goes then', async () => {
    const storage = createMemoryStorage();
    const start = async (runtimeConfig?: string) => {
      const server = createApiServer({ storage, clock: new FakeClock(started), random: seededRandom(1), controllers: rawApiControllers, runtimeConfig });
      await server.ready;
      return server;
    };
    const call = async (server: Awaited<ReturnType<typeof start>>, method: string, p: string) => server.handle(new Request(`http://127.0.0.1${p}`, { method }));
    const first = await start();
    expect((await call(first, 'DELETE', `${path}/v1.apps`)).status).toBe(200);
    expect((await call(first, 'GET', `${path}/v1.apps`)).status).toBe(404);
    // A second server over the same storage is a restart (closing the first would close the storage).
    const second = await start('batch/v1=false');
    expect((await call(second, 'GET', `${path}/v1.apps`)).status).toBe(200);
    expect((await call(second, 'GET', `${path}/v1.batch`)).status).toBe(404);
    await second.close();
    await first.close().catch(() => undefined);
  });

  it('a user\'s APIService of the same name is left alone; a Local one of its own is made Available', async () => {
    const t = await newTestServer();
    const mine = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.org' }, spec: { group: 'example.org', version: 'v1', groupPriorityMinimum: 2000, versionPriority: 10 } };
    expect((await t.json('POST', path, { body: mine })).status).toBe(201);
    const available = await eventually(() => get(t, 'v1.example.org'), (r) => r.body.status?.conditions !== undefined, 'the Available condition');
    expect(available.body.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    expect(available.body.metadata.labels).toBeUndefined();
  });
});

describe('CRD APIServices', () => {
  it('a CRD\'s served versions get automanaged APIServices that follow its versions and go with it', async () => {
    const t = await newTestServer();
    expect((await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd(['v1']) })).status).toBe(201);
    const created = await eventually(() => get(t, 'v1.example.com'), (r) => r.status === 200 && r.body.status !== undefined, 'v1.example.com');
    expect(created.body.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(created.body.spec).toEqual({ group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(created.body.status).toEqual(localStatus);

    // A version added gets one; a user's edit of an automanaged one is put back.
    const current = (await t.json('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).body;
    expect((await t.json('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com', { body: { ...current, spec: crd(['v1', 'v2beta1']).spec } })).status).toBe(200);
    await eventually(() => get(t, 'v2beta1.example.com'), (r) => r.status === 200, 'v2beta1.example.com');
    const edited = { ...created.body, spec: { ...created.body.spec, versionPriority: 7 } };
    expect((await t.json('PUT', `${path}/v1.example.com`, { body: edited })).status).toBe(200);
    await eventually(() => get(t, 'v1.example.com'), (r) => r.body.spec.versionPriority === 100, 'the spec put back');

    // Deleted, it is recreated while the CRD serves it; with the CRD gone, both go.
    expect((await t.json('DELETE', `${path}/v2beta1.example.com`)).status).toBe(200);
    await eventually(() => get(t, 'v2beta1.example.com'), (r) => r.status === 200, 'v2beta1.example.com recreated');
    expect((await t.json('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status).toBe(200);
    await eventually(() => names(t), (l) => !l.includes('v1.example.com') && !l.includes('v2beta1.example.com'), 'the CRD APIServices removed');
  });
});

describe('metrics-server\'s APIService', () => {
  it('with simulated nodes v1beta1.metrics.k8s.io is registered as its manifest does, and Available', async () => {
    const t = await newTestServer({ simulatedNodes: 1 });
    const { body } = await eventually(() => get(t, 'v1beta1.metrics.k8s.io'), (r) => r.status === 200 && r.body.status !== undefined, 'v1beta1.metrics.k8s.io');
    expect(body.metadata.labels).toEqual({ 'k8s-app': 'metrics-server' });
    expect(body.spec).toEqual({ service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, group: 'metrics.k8s.io', version: 'v1beta1', insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 });
    expect(body.status.conditions).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: started, reason: 'Passed', message: 'all checks passed' }]);
    const table = await t.json('GET', `${path}/v1beta1.metrics.k8s.io`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.rows[0].cells).toEqual(['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'True', '0s']);
    const plain = await newTestServer();
    expect((await get(plain, 'v1beta1.metrics.k8s.io')).status).toBe(404);
  });
});

describe('autoregistration hooks', () => {
  it('/readyz lists the aggregator hooks and autoregister-completion', async () => {
    const t = await newTestServer();
    const text = await (await t.request('GET', '/readyz?verbose')).text();
    expect(text).toContain('[+]poststarthook/apiservice-registration-controller ok\n[+]poststarthook/kube-apiserver-autoregistration ok\n[+]autoregister-completion ok\n');
    expect((await t.request('GET', '/livez/autoregister-completion')).status).toBe(200);
  });

  it('[API-TABLE-004] Table: NAME SERVICE AVAILABLE AGE, Local and True', async () => {
    const t = await newTestServer();
    const table = await t.json('GET', path, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.columnDefinitions.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([['Name', 'string'], ['Service', 'string'], ['Available', 'string'], ['Age', 'string']]);
    expect(table.body.rows[0].cells).toEqual(['v1.', 'Local', 'True', '0s']);
  });
});
