/** The foundation's HTTP behaviour, as the spec's requirement ids state it, through handle(). */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
  await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns2' } } });
});

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const deployment = (name: string) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const tableAccept = 'application/json;as=Table;g=meta.k8s.io;v=v1';

describe('paths and verbs', () => {
  it('[API-PATH-001] /api/v1 is an APIResourceList and /apis a group list', async () => {
    const r = await t.json('GET', '/api/v1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body.kind).toBe('APIResourceList');
    const g = await t.json('GET', '/apis', { headers: { accept: 'application/json' } });
    expect(g.body.kind).toBe('APIGroupList');
    expect(g.body.groups.map((x: { name: string }) => x.name)).toContain('apps');
  });

  it('[API-PATH-002][API-PATH-003][API-PATH-004][API-PATH-005][API-PATH-006][API-PATH-021][API-PATH-022][API-PATH-023][API-PATH-024][API-PATH-039][API-META-015] GET, POST, PUT, PATCH and DELETE on configmaps', async () => {
    const c = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1') });
    expect(c.status).toBe(201);
    const g = await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1');
    expect(g.status).toBe(200);
    expect(g.body.kind).toBe('ConfigMap');
    expect(typeof g.body.metadata.resourceVersion).toBe('string');
    const u = await t.json('PUT', '/api/v1/namespaces/ns1/configmaps/cm1', { body: { ...g.body, data: { k: 'v1' } } });
    expect(u.status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1')).body.data.k).toBe('v1');
    const p = await t.json('PATCH', '/api/v1/namespaces/ns1/configmaps/cm1', { body: { data: { k: 'v2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.status).toBe(200);
    expect(p.body.data.k).toBe('v2');
    expect(p.body.metadata.resourceVersion).not.toBe(u.body.metadata.resourceVersion);
    const d = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/cm1');
    expect(d.status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1')).status).toBe(404);
  });

  it('[API-PATH-007][API-PATH-008][API-PATH-019] status and scale sub-resources; scale serves autoscaling/v1 Scale', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p1') });
    const s = await t.json('GET', '/api/v1/namespaces/ns1/pods/p1/status');
    expect(s.status).toBe(200);
    expect(s.body.kind).toBe('Pod');
    await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: deployment('d1') });
    const sc = await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/d1/scale');
    expect(sc.status).toBe(200);
    expect(sc.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 }, status: { replicas: 0, selector: 'app=d1' } });
    const patched = await t.json('PATCH', '/apis/apps/v1/namespaces/ns1/deployments/d1/scale', { body: { spec: { replicas: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.body.spec.replicas).toBe(3);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/d1')).body.spec.replicas).toBe(3);
  });

  it('[API-PATH-009][API-PATH-019] eviction is a create-only virtual sub-resource that deletes the pod', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p1') });
    const g = await t.json('GET', '/api/v1/namespaces/ns1/pods/p1/eviction');
    expect(g.status).toBe(405);
    const e = await t.json('POST', '/api/v1/namespaces/ns1/pods/p1/eviction', { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p1', namespace: 'ns1' } } });
    expect(e.status).toBe(201);
    expect(e.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods/p1')).status).toBe(404);
  });

  it('[API-PATH-010] discovery says which resources are namespaced', async () => {
    const r = await t.json('GET', '/api/v1');
    const byName = Object.fromEntries(r.body.resources.map((x: { name: string; namespaced: boolean }) => [x.name, x.namespaced]));
    expect(byName['pods']).toBe(true);
    expect(byName['nodes']).toBe(false);
    expect(byName['namespaces']).toBe(false);
  });

  it('[API-PATH-011][API-PATH-012] core under /api/v1 only, groups under /apis/{group}/{version}', async () => {
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps')).status).toBe(200);
    expect((await t.json('GET', '/apis/core/v1/namespaces/ns1/configmaps')).status).toBe(404);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments')).status).toBe(200);
  });

  it('[API-PATH-013][API-PATH-015][API-META-005] cluster-scoped list and get; names unique cluster-wide', async () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r1' }, rules: [] };
    expect((await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: role })).status).toBe(201);
    expect((await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: role })).status).toBe(409);
    const l = await t.json('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles');
    expect(l.body.kind).toBe('ClusterRoleList');
    const g = await t.json('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/r1');
    expect(g.body.kind).toBe('ClusterRole');
    expect((await t.json('GET', '/api/v1/nodes')).body.kind).toBe('NodeList');
  });

  it('[API-PATH-014][API-PATH-016][API-PATH-017][API-META-007] lists across all namespaces and in one', async () => {
    await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: deployment('a') });
    await t.json('POST', '/apis/apps/v1/namespaces/ns2/deployments', { body: deployment('b') });
    const all = await t.json('GET', '/apis/apps/v1/deployments');
    expect(all.body.kind).toBe('DeploymentList');
    expect(all.body.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace)).toEqual(['ns1', 'ns2']);
    const one = await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments');
    expect(one.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a']);
    const g = await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/a');
    expect(g.body.kind).toBe('Deployment');
    expect((await t.json('GET', '/api/v1/pods')).body.kind).toBe('PodList');
    expect((await t.json('GET', '/api/v1/services')).body.kind).toBe('ServiceList');
  });

  it('[API-PATH-018] status sub-resource of a cluster-scoped resource', async () => {
    await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
    const s = await t.json('GET', '/api/v1/nodes/n1/status');
    expect(s.status).toBe(200);
    expect(s.body.kind).toBe('Node');
  });

  it('[API-PATH-020] namespaces are listed and fetched', async () => {
    expect((await t.json('GET', '/api/v1/namespaces')).body.kind).toBe('NamespaceList');
    expect((await t.json('GET', '/api/v1/namespaces/default')).body.kind).toBe('Namespace');
  });

  it('[API-PATH-025] delete collection removes matching objects and keeps the rest', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('a', { labels: { x: 'y' } }) });
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('b') });
    const d = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps?labelSelector=x%3Dy');
    expect(d.status).toBe(200);
    const l = await t.json('GET', '/api/v1/namespaces/ns1/configmaps');
    expect(l.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['b']);
  });

  it('[API-PATH-026] no collection-level sub-resource: pods/status is a pod named status', async () => {
    const r = await t.json('GET', '/api/v1/namespaces/ns1/pods/status');
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('pods "status" not found');
  });

  it('[API-PATH-032] PUT of a missing lease creates it, PUT of an existing one updates it', async () => {
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: { holderIdentity: 'a' } };
    expect((await t.json('PUT', '/apis/coordination.k8s.io/v1/namespaces/ns1/leases/l1', { body: lease })).status).toBe(201);
    const u = await t.json('PUT', '/apis/coordination.k8s.io/v1/namespaces/ns1/leases/l1', { body: { ...lease, spec: { holderIdentity: 'b' } } });
    expect(u.status).toBe(200);
    expect(u.body.spec.holderIdentity).toBe('b');
  });

  it('[API-PATH-038] create answers 201 Created', async () => {
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('c') })).status).toBe(201);
  });
});

describe('object metadata', () => {
  it('[API-META-001] a create with neither name nor generateName is 422', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
  });

  it('[API-META-002][API-META-003] names are unique per kind and namespace', async () => {
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('x') })).status).toBe(201);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('x') })).status).toBe(409);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } })).status).toBe(201);
    expect((await t.json('POST', '/api/v1/namespaces/ns2/configmaps', { body: cm('x') })).status).toBe(201);
  });

  it('[API-META-004][API-META-014] a deleted name can be reused and gets a new uid', async () => {
    const a = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1') });
    const b = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm2') });
    await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/cm1');
    const c = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1') });
    expect(c.status).toBe(201);
    const uids = [a.body.metadata.uid, b.body.metadata.uid, c.body.metadata.uid];
    expect(new Set(uids).size).toBe(3);
    for (const u of uids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('[API-META-006][API-META-009][API-META-010] kind and apiVersion of core and group objects', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p1') });
    const p = await t.json('GET', '/api/v1/namespaces/ns1/pods/p1');
    expect(p.body.kind).toBe('Pod');
    expect(p.body.apiVersion).toBe('v1');
    await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: deployment('d1') });
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/d1')).body.apiVersion).toBe('apps/v1');
  });

  it('[API-META-008] no resource kind named List exists in discovery', async () => {
    const groups = (await t.json('GET', '/apis', { headers: { accept: 'application/json' } })).body.groups as { versions: { groupVersion: string }[] }[];
    const paths = ['/api/v1', ...groups.flatMap((g) => g.versions.map((v) => `/apis/${v.groupVersion}`))];
    for (const p of paths) {
      const r = await t.json('GET', p);
      for (const res of r.body.resources) expect(res.kind).not.toBe('List');
    }
  });

  it('[API-META-011][API-META-012] generateName gives distinct names with the prefix', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'g-' } };
    const a = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body });
    const b = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body });
    expect(a.body.metadata.name).toMatch(/^g-.+/);
    expect(a.body.metadata.generateName).toBe('g-');
    expect(a.body.metadata.name).not.toBe(b.body.metadata.name);
  });

  it('[API-META-013] the namespace comes from the path; a different one in the body is 400', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('n') });
    expect(r.body.metadata.namespace).toBe('ns1');
    const bad = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('m', { namespace: 'ns2' }) });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('[API-META-016] creationTimestamp is set by the server', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('ts', { creationTimestamp: '2000-01-01T00:00:00Z' }) });
    expect(r.body.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
  });

  it('[API-META-017][API-DEL-004] finalizers may be reordered and removed in any order', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('f', { finalizers: ['a.example/x', 'b.example/y'] }) });
    const p = await t.json('PATCH', '/api/v1/namespaces/ns1/configmaps/f', { body: { metadata: { finalizers: ['b.example/y', 'a.example/x'] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.body.metadata.finalizers).toEqual(['b.example/y', 'a.example/x']);
    await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/f');
    const r1 = await t.json('PATCH', '/api/v1/namespaces/ns1/configmaps/f', { body: { metadata: { finalizers: ['a.example/x'] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r1.status).toBe(200);
    expect(r1.body.metadata.deletionTimestamp).toBeTruthy();
    const r2 = await t.json('PATCH', '/api/v1/namespaces/ns1/configmaps/f', { body: { metadata: { finalizers: [] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r2.status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/f')).status).toBe(404);
  });

  it('[API-DEL-002][API-DEL-003] deletionTimestamp is set by the first delete and kept by later ones', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('f', { finalizers: ['example.com/x'] }) });
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/f')).body.metadata.deletionTimestamp).toBeUndefined();
    const d1 = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/f');
    t.clock.advance(5000);
    const d2 = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/f');
    expect(d2.body.metadata.deletionTimestamp).toBe(d1.body.metadata.deletionTimestamp);
  });

  it('[API-DEL-008] preconditions on delete: wrong uid is 409, the right one deletes', async () => {
    const c = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('p') });
    const bad = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/p', { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'wrong' } } });
    expect(bad.status).toBe(409);
    expect(bad.body.reason).toBe('Conflict');
    const ok = await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/p', { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: c.body.metadata.uid } } });
    expect(ok.status).toBe(200);
  });

  it('[API-META-018] labels select objects', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('a', { labels: { app: 'a' } }) });
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('b', { labels: { app: 'b' } }) });
    const l = await t.json('GET', '/api/v1/namespaces/ns1/configmaps?labelSelector=app%3Da');
    expect(l.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a']);
  });

  it('[API-META-019] annotations round-trip unchanged', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('a', { annotations: { 'x.example/y': 'any text: with {json} and \n newlines' } }) });
    const g = await t.json('GET', '/api/v1/namespaces/ns1/configmaps/a');
    expect(g.body.metadata.annotations).toEqual({ 'x.example/y': 'any text: with {json} and \n newlines' });
  });
});

describe('tables', () => {
  it('[API-TABLE-001][API-TABLE-002][API-TABLE-003][API-TABLE-004][API-TABLE-010] pods as a Table with the pod columns', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p1') });
    const r = await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: { accept: tableAccept } });
    expect(r.body.kind).toBe('Table');
    expect(r.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    for (const c of r.body.columnDefinitions) expect(typeof c.type).toBe('string');
    expect(r.body.rows[0].cells.slice(0, 5)).toEqual(['p1', '0/1', 'Pending', '0', '0s']);
    expect(r.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'p1' } });
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('[API-TABLE-005][API-TABLE-006][API-TABLE-007] kinds without a printer get Name and Created At', async () => {
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } };
    expect((await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const r = await t.json('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { accept: tableAccept } });
    expect(r.body.columnDefinitions).toHaveLength(2);
    expect(r.body.columnDefinitions[0]).toMatchObject({ name: 'Name', type: 'string' });
    expect(r.body.columnDefinitions[1]).toMatchObject({ name: 'Created At', type: 'date' });
    expect(r.body.rows[0].cells).toEqual(['widgets.example.com', '2026-01-01T00:00:00Z']);
  });

  it('[API-TABLE-009][API-TABLE-012] Table then JSON: Table is served; namespaces as Table', async () => {
    const r = await t.json('GET', '/api/v1/namespaces', { headers: { accept: `${tableAccept},application/json` } });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Status', 'Age']);
  });
});

describe('encodings and compression', () => {
  it('[API-ENC-012][API-ENC-018][API-ENC-015] Accept picks JSON (default) or YAML', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1') });
    const j = await t.request('GET', '/api/v1/namespaces/ns1/configmaps/cm1');
    expect(j.headers.get('content-type')).toBe('application/json');
    const y = await t.request('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: { accept: 'application/yaml' } });
    expect(y.headers.get('content-type')).toBe('application/yaml');
    expect(await y.text()).toMatch(/^apiVersion: v1\n/);
  });

  it('[API-ENC-017][API-ENC-026][API-ENC-025][API-ENC-029] YAML create, answered in the negotiated type', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/ns1/configmaps', {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: "1"\n',
      headers: { 'content-type': 'application/yaml', accept: 'application/yaml' },
    });
    expect(r.status).toBe(201);
    const text = await r.text();
    expect(text).toContain('uid: ');
    expect(text).toContain('name: y');
  });

  it('[API-ERR-003] nothing acceptable is 406', async () => {
    const r = await t.json('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/x-unknown' } });
    expect(r.status).toBe(406);
    expect(r.body.reason).toBe('NotAcceptable');
  });

  it('[API-GZIP-001][API-GZIP-002][API-GZIP-003][API-GZIP-006] large get and list responses are gzip-compressed when asked', async () => {
    const big = 'x'.repeat(140 * 1024);
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { ...cm('big'), data: { blob: big } } });
    for (const path of ['/api/v1/namespaces/ns1/configmaps/big', '/api/v1/configmaps']) {
      const z = await t.request('GET', path, { headers: { 'accept-encoding': 'gzip' } });
      expect(z.headers.get('content-encoding')).toBe('gzip');
      const text = await new Response(z.body!.pipeThrough(new DecompressionStream('gzip'))).text();
      expect(text).toContain(big);
      const plain = await t.request('GET', path);
      expect(plain.headers.get('content-encoding')).toBeNull();
    }
    const small = await t.request('GET', '/api/v1/namespaces/default', { headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
  });

  it('[API-OTHER-009] pretty=true indents JSON', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/default?pretty=true');
    expect(await r.text()).toMatch(/^\{\n {2}"kind": "Namespace"/);
  });
});

describe('errors', () => {
  it('[API-ERR-002][API-ERR-008] PUT with a stale resourceVersion is 409', async () => {
    const a = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1') });
    await t.json('PATCH', '/api/v1/namespaces/ns1/configmaps/cm1', { body: { data: { k: 'b' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const r = await t.json('PUT', '/api/v1/namespaces/ns1/configmaps/cm1', { body: a.body });
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe('Conflict');
  });

  it('[API-ERR-007] a Deployment without spec.selector is 422', async () => {
    const d = deployment('nosel') as { spec: Record<string, unknown> };
    delete d.spec['selector'];
    const r = await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: d });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toContainEqual({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  });

  it('bodies over the request size limit are 413 and change nothing', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { ...cm('huge'), data: { k: 'x'.repeat(3 * 1024 * 1024 + 10) } } });
    expect(r.status).toBe(413);
    expect(r.body.reason).toBe('RequestEntityTooLarge');
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/huge')).status).toBe(404);
  });

  it('deeply nested bodies are 400 and the server keeps serving', async () => {
    const deep = '{"a":'.repeat(20000) + '1' + '}'.repeat(20000);
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: deep, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect((await t.json('GET', '/api/v1/namespaces/ns1')).status).toBe(200);
  });

  it('a body that is not an object is 400', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
  });

  it('a body of another kind is 400', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
    expect(r.status).toBe(400);
    const v = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 's' } } });
    expect(v.status).toBe(400);
    expect(v.body.message).toBe('the API version in the data (apps/v1) does not match the expected API version (v1)');
  });
});

describe('operational endpoints', () => {
  it('[AC-OTHER-002] /version reports Kubernetes 1.36', async () => {
    const r = await t.json('GET', '/version');
    expect(r.body).toMatchObject({ major: '1', minor: '36' });
    expect(r.body.gitVersion).toMatch(/^v1\.36\./);
  });

  it('[AC-HEALTH-001][AC-HEALTH-002][AC-HEALTH-003] /livez, /readyz and /healthz answer 200 ok', async () => {
    for (const p of ['livez', 'readyz', 'healthz']) {
      const r = await t.request('GET', `/${p}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await r.text()).toBe('ok');
    }
  });

  it('[AC-HEALTH-006][AC-HEALTH-007] verbose lists every check and ends with the endpoint check line', async () => {
    const v = await t.request('GET', '/readyz?verbose');
    expect(await v.text()).toMatch(/^\[\+\]ping ok\n\[\+\]log ok\n\[\+\]etcd ok\n[\s\S]*readyz check passed\n$/);
    const l = await t.request('GET', '/livez?verbose=');
    expect((await l.text()).trim().split('\n').pop()).toBe('livez check passed');
  });

  it('[AC-HEALTH-009][AC-HEALTH-010] exclude may repeat and shows excluded checks in verbose output', async () => {
    const r = await t.request('GET', '/readyz?verbose&exclude=etcd&exclude=ping');
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(text).toContain('[+]etcd excluded: ok\n');
    expect(text).toContain('[+]ping excluded: ok\n');
  });

  it('[AC-HEALTH-012][AC-HEALTH-013] a single named check; unknown names are 404', async () => {
    const p = await t.request('GET', '/livez/ping');
    expect(p.status).toBe(200);
    expect(await p.text()).toBe('ok');
    expect((await t.request('GET', '/readyz/etcd')).status).toBe(200);
    expect((await t.request('GET', '/readyz/nope')).status).toBe(404);
  });

  it('aggregated discovery v2 when asked for it', async () => {
    const r = await t.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' } });
    expect(r.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const body = await r.json();
    expect(body.kind).toBe('APIGroupDiscoveryList');
    const apps = body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'apps');
    const deploy = apps.versions[0].resources.find((x: { resource: string }) => x.resource === 'deployments');
    expect(deploy).toMatchObject({ scope: 'Namespaced', singularResource: 'deployment', shortNames: ['deploy'], categories: ['all'] });
    expect(deploy.subresources).toContainEqual(expect.objectContaining({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } }));
  });

  it('/openapi/v3 lists group versions; a document carries the fieldValidation parameter on PATCH', async () => {
    const root = await t.json('GET', '/openapi/v3');
    const url = root.body.paths['apis/apps/v1'].serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/i);
    const doc = await t.json('GET', url);
    const item = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(item.patch.parameters.map((p: { name?: string; $ref?: string }) => p.name ?? p.$ref).join(',')).toContain('fieldValidation');
  });
});

describe('namespace lifecycle', () => {
  async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const v = await fn();
      if (ok(v)) return v;
      await new Promise((r) => setTimeout(r, 2));
    }
    return fn();
  }

  it('[API-DEL-001] deleting a namespace deletes its objects, then the namespace', async () => {
    await t.json('POST', '/api/v1/namespaces/ns2/configmaps', { body: cm('cm1') });
    await t.json('POST', '/apis/apps/v1/namespaces/ns2/deployments', { body: deployment('d') });
    const d = await t.json('DELETE', '/api/v1/namespaces/ns2');
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('Namespace');
    expect(d.body.status.phase).toBe('Terminating');
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    const gone = await eventually(() => t.json('GET', '/api/v1/namespaces/ns2'), (r) => r.status === 404);
    expect(gone.status).toBe(404);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/configmaps/cm1')).status).toBe(404);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns2/deployments/d')).status).toBe(404);
  });

  it('creating in a terminating namespace is 403 Forbidden', async () => {
    await t.json('POST', '/api/v1/namespaces/ns2/configmaps', { body: cm('held', { finalizers: ['example.com/x'] }) });
    await t.json('DELETE', '/api/v1/namespaces/ns2');
    const r = await t.json('POST', '/api/v1/namespaces/ns2/configmaps', { body: cm('new') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps "new" is forbidden: unable to create new content in namespace ns2 because it is being terminated');
    expect(r.body.details).toEqual({ name: 'new', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns2 is being terminated', field: 'metadata.namespace' }] });
    expect((await t.json('GET', '/api/v1/namespaces/ns2')).body.status.phase).toBe('Terminating');
  });
});

describe('CEL evaluations virtual resource', () => {
  it('evaluates an expression with its cost, and is discovered and documented', async () => {
    const r = await t.json('POST', '/apis/cel.kubesim.dev/v1alpha1/evaluations', {
      body: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec: { expression: 'self.replicas <= 10', environment: 'crd', schema: { type: 'object', properties: { replicas: { type: 'integer' } } }, variables: { self: { replicas: 3 } } } },
    });
    expect(r.status).toBe(201);
    expect(r.body.status).toMatchObject({ value: true, type: 'bool' });
    expect(typeof r.body.status.cost).toBe('number');
    const bad = await t.json('POST', '/apis/cel.kubesim.dev/v1alpha1/evaluations', { body: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec: { expression: '1 +' } } });
    expect(bad.body.status.error).toMatch(/^ERROR: <input>:1:\d+: /);
    const d = await t.json('GET', '/apis/cel.kubesim.dev/v1alpha1');
    expect(d.body.resources).toContainEqual(expect.objectContaining({ name: 'evaluations', kind: 'Evaluation', verbs: ['create'] }));
    const root = await t.json('GET', '/openapi/v3');
    const doc = await t.json('GET', root.body.paths['apis/cel.kubesim.dev/v1alpha1'].serverRelativeURL);
    expect(Object.keys(doc.body.components.schemas)).toContain('dev.kubesim.cel.v1alpha1.Evaluation');
  });
});

describe('defaults a client sees after create', () => {
  it('the pull policy follows the image reference: Always without a tag or with latest (a registry port is no tag), IfNotPresent with a tag or a digest', async () => {
    const images = ['localhost:5000/app', 'registry.example:443/team/app:latest', 'nginx:1.27', 'nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'];
    const containers = images.map((image, i) => ({ name: `c${i}`, image }));
    const r = await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pull-policies' }, spec: { containers } } });
    expect(r.status).toBe(201);
    expect(r.body.spec.containers.map((c: { imagePullPolicy: string }) => c.imagePullPolicy)).toEqual(['Always', 'Always', 'IfNotPresent', 'IfNotPresent', 'IfNotPresent']);
  });

  it('pods get PodSpec and container defaults', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } });
    expect(r.body.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {}, enableServiceLinks: true, priority: 0 });
    expect(r.body.spec.containers[0]).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} });
    expect(r.body.spec.containers[1].imagePullPolicy).toBe('IfNotPresent');
    expect(r.body.spec.containers[1].ports[0].protocol).toBe('TCP');
    expect(r.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('deployments get strategy and template defaults; jobs get counts and a generated selector, and must choose a restartPolicy', async () => {
    const d = await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: deployment('d') });
    expect(d.body.spec).toMatchObject({ revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
    expect(d.body.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
    const job = (restartPolicy?: string) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox' }] } } } });
    // A PodSpec's restartPolicy defaults to Always, which a Job refuses.
    const bad = await t.json('POST', '/apis/batch/v1/namespaces/ns1/jobs', { body: job() });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
    const j = await t.json('POST', '/apis/batch/v1/namespaces/ns1/jobs', { body: job('Never') });
    expect(j.body.spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
    expect(j.body.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': j.body.metadata.uid } });
    expect(j.body.spec.template.metadata.labels).toMatchObject({ 'job-name': 'j', 'batch.kubernetes.io/job-name': 'j', 'controller-uid': j.body.metadata.uid });
  });
});

describe('watch encodings', () => {
  it('[API-ERR-003] a watch asked for YAML only is 406', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/ns1/configmaps?watch=1', { headers: { accept: 'application/yaml' } });
    expect(r.status).toBe(406);
    // The Status itself is still written in the encoding asked for.
    expect(r.headers.get('content-type')).toBe('application/yaml');
    expect(await r.text()).toContain('reason: NotAcceptable');
  });
});

describe('protobuf', () => {
  const pb = 'application/vnd.kubernetes.protobuf';
  it('[API-ENC-019][API-ENC-001] GET a pod as protobuf: the envelope with the magic prefix', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p1') });
    const r = await t.request('GET', '/api/v1/namespaces/ns1/pods/p1', { headers: { accept: `${pb},application/json` } });
    expect(r.headers.get('content-type')).toBe(pb);
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const { decodeProtobuf } = await import('./http/serializers/protobuf');
    const decoded = decodeProtobuf(bytes);
    expect(decoded).toMatchObject({ apiVersion: 'v1', kind: 'Pod' });
    expect((decoded.object as { metadata: { name: string } }).metadata.name).toBe('p1');
  });

  it('[API-ENC-027] create with a protobuf body; errors come back as protobuf Status when asked', async () => {
    const { decodeProtobuf, encodeProtobuf } = await import('./http/serializers/protobuf');
    const body = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pbcm' }, data: { a: 'b' } });
    const r = await t.request('POST', '/api/v1/namespaces/ns1/configmaps', { body, headers: { 'content-type': pb, accept: `${pb},application/json` } });
    expect(r.status).toBe(201);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/pbcm')).body.data).toEqual({ a: 'b' });
    const again = await t.request('POST', '/api/v1/namespaces/ns1/configmaps', { body, headers: { 'content-type': pb, accept: `${pb},application/json` } });
    expect(again.status).toBe(409);
    expect(decodeProtobuf(new Uint8Array(await again.arrayBuffer())).object).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', code: 409 });
  });

  it('[API-ENC-014] a JSON body sent as protobuf is a 400 decode error', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: JSON.stringify(cm('x')), headers: { 'content-type': pb } });
    expect(r.status).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
    expect(r.body.message).toContain('expected prefix [107 56 115 0]');
  });

  it('a Table asked for alongside protobuf comes back as JSON', async () => {
    const r = await t.request('GET', '/api/v1/namespaces', { headers: { accept: `application/json;as=Table;g=meta.k8s.io;v=v1,${pb}` } });
    expect(r.headers.get('content-type')).toBe('application/json');
    expect((await r.json()).kind).toBe('Table');
  });
});

describe('more errors and metadata', () => {
  it('[API-META-020] writes record managedFields for their manager', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/configmaps?fieldManager=m1', { body: cm('mf') });
    const g = await t.json('GET', '/api/v1/namespaces/ns1/configmaps/mf');
    expect(g.body.metadata.managedFields).toEqual([
      { manager: 'm1', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:k': {} } } },
    ]);
  });

  it('[API-ERR-001][API-ERR-015][API-ERR-016][API-ERR-017] a list at a resourceVersion the store has not reached: 504 with Retry-After', async () => {
    const pending = t.json('GET', '/api/v1/namespaces/ns1/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan');
    // The wait is on the server's clock.
    await new Promise((r) => setTimeout(r, 5));
    t.clock.advance(3000);
    const r = await pending;
    expect(r.status).toBe(504);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body.message).toContain('Too large resource version');
  });

  it('[API-ERR-009] an apply that changes another manager\'s field is a 409 conflict naming the field', async () => {
    const applyCm = (manager: string, v: string) =>
      t.json('PATCH', `/api/v1/namespaces/ns1/configmaps/sa?fieldManager=${manager}`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sa' }, data: { k: v } },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    expect((await applyCm('alice', 'a')).status).toBe(201);
    const r = await applyCm('bob', 'b');
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe('Conflict');
    expect(r.body.message).toBe('Apply failed with 1 conflict: conflict with "alice": .data.k');
    expect(r.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.k' }]);
  });
});

describe('scale selector', () => {
  it('[API-PATH-008] status.selector prints the parent selector as a label selector string', async () => {
    const d = deployment('sel') as { spec: { selector: Record<string, unknown>; template: { metadata: { labels: Record<string, string> } } } };
    d.spec.selector = { matchLabels: { app: 'sel' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }] };
    d.spec.template.metadata.labels = { app: 'sel', tier: 'a' };
    expect((await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: d })).status).toBe(201);
    const sc = await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/sel/scale');
    // Requirements sort by key, as labels.Selector.String() prints them.
    expect(sc.body.status.selector).toBe('app=sel,!canary,tier in (a,b)');
  });
});
