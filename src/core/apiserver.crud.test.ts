import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('CRUD through handle()', () => {
  it('[API-PATH-001] create answers 201 with uid, creationTimestamp and resourceVersion', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('c1') });
    expect(r.status).toBe(201);
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.metadata.namespace).toBe('default');
    const g = await t.json('GET', '/api/v1/namespaces/default/configmaps/c1');
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ a: '1' });
    expect(g.body.metadata.resourceVersion).toBe(r.body.metadata.resourceVersion);
  });

  it('generateName produces a unique name with the prefix', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('fills apiVersion and kind from the URL when a typed client omits them', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'bare' } } });
    expect(r.status).toBe(201);
    expect(r.body.kind).toBe('ConfigMap');
    expect(r.body.apiVersion).toBe('v1');
  });

  it('create of an existing name is 409 AlreadyExists', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('dup') });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'configmaps "dup" already exists', reason: 'AlreadyExists',
      details: { name: 'dup', kind: 'configmaps' }, code: 409,
    });
  });

  it('create in a missing namespace is 404 naming the namespace', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/nope/configmaps', { body: cm('x') });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "nope" not found');
    expect(r.body.details).toEqual({ name: 'nope', kind: 'namespaces' });
  });

  it('get of a missing object is 404 NotFound with group in details', async () => {
    const r = await t.json('GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ reason: 'NotFound', message: 'deployments.apps "missing" not found', details: { name: 'missing', group: 'apps', kind: 'deployments' }, code: 404 });
  });

  it('invalid name is 422 Invalid with a cause per field', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('Bad_Name') });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    expect(r.body.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
  });

  it('namespace names must be DNS labels; missing name is Required', async () => {
    const r = await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } } });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('a lowercase RFC 1123 label must consist of');
    const r2 = await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: {} } });
    expect(r2.status).toBe(422);
    expect(r2.body.message).toBe('Namespace "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it('list returns <Kind>List with metadata.resourceVersion', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('l1') });
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('l2') });
    const r = await t.json('GET', '/api/v1/namespaces/default/configmaps');
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('ConfigMapList');
    expect(r.body.apiVersion).toBe('v1');
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.items.map((i: any) => i.metadata.name)).toEqual(['l1', 'l2']);
  });

  it('update with a stale resourceVersion is 409 Conflict; a fresh one moves the resourceVersion', async () => {
    const c = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('u1') });
    const rv = c.body.metadata.resourceVersion;
    const ok = await t.json('PUT', '/api/v1/namespaces/default/configmaps/u1', { body: { ...c.body, data: { a: '2' } } });
    expect(ok.status).toBe(200);
    expect(Number(ok.body.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    const stale = await t.json('PUT', '/api/v1/namespaces/default/configmaps/u1', { body: { ...c.body, data: { a: '3' } } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toBe('Operation cannot be fulfilled on configmaps "u1": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('an update that changes nothing keeps the resourceVersion', async () => {
    const c = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('same') });
    const u = await t.json('PUT', '/api/v1/namespaces/default/configmaps/same', { body: c.body });
    expect(u.status).toBe(200);
    expect(u.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });

  it('PUT of a missing configmap is 404; of a missing lease it creates (201)', async () => {
    const r = await t.json('PUT', '/api/v1/namespaces/default/configmaps/ghost', { body: cm('ghost') });
    expect(r.status).toBe(404);
    const l = await t.json('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l1', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: {} } });
    expect(l.status).toBe(201);
  });

  it('name in body must match the URL on update', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('n1') });
    const r = await t.json('PUT', '/api/v1/namespaces/default/configmaps/n1', { body: cm('n2') });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('the name of the object (n2) does not match the name on the URL (n1)');
  });

  it('delete returns a Success Status for configmaps and the object for pods; then 404', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('d1') });
    const d = await t.json('DELETE', '/api/v1/namespaces/default/configmaps/d1');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'd1', kind: 'configmaps' } });
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps/d1')).status).toBe(404);
    await t.json('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    const dp = await t.json('DELETE', '/api/v1/namespaces/default/pods/p');
    expect(dp.status).toBe(200);
    expect(dp.body.kind).toBe('Pod');
  });

  it('[API-DEL-002] delete of an object with finalizers sets deletionTimestamp; removing the last finalizer removes it', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { ...cm('f1'), metadata: { name: 'f1', finalizers: ['example.com/hold'] } } });
    const d = await t.json('DELETE', '/api/v1/namespaces/default/configmaps/f1');
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
    const g = await t.json('GET', '/api/v1/namespaces/default/configmaps/f1');
    expect(g.body.metadata.finalizers).toEqual(['example.com/hold']);
    const p = await t.json('PATCH', '/api/v1/namespaces/default/configmaps/f1', { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(p.status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps/f1')).status).toBe(404);
  });

  it('deletecollection deletes matching objects', async () => {
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { ...cm('x1'), metadata: { name: 'x1', labels: { app: 'a' } } } });
    await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { ...cm('x2'), metadata: { name: 'x2', labels: { app: 'b' } } } });
    const r = await t.json('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Da');
    expect(r.status).toBe(200);
    const l = await t.json('GET', '/api/v1/namespaces/default/configmaps');
    expect(l.body.items.map((i: any) => i.metadata.name)).toEqual(['x2']);
  });

  it('default namespaces exist at start', async () => {
    const r = await t.json('GET', '/api/v1/namespaces');
    expect(r.body.items.map((i: any) => i.metadata.name).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(r.body.items[0].status.phase).toBe('Active');
  });

  it('unknown resource is 404; wrong method on a create-only resource is 405', async () => {
    const r = await t.json('GET', '/api/v1/namespaces/default/widgets');
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('NotFound');
    const m = await t.json('GET', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews');
    expect(m.status).toBe(405);
    expect(m.body.reason).toBe('MethodNotAllowed');
  });

  it('malformed JSON is 400 BadRequest and the server keeps serving', async () => {
    const r = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: '{"metadata": {', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
    expect((await t.json('GET', '/api/v1/namespaces')).status).toBe(200);
  });

  it('YAML bodies and YAML responses', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  k: v\n', headers: { 'content-type': 'application/yaml', accept: 'application/yaml' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/yaml');
    expect(await r.text()).toContain('name: y1');
  });

  it('406 when nothing acceptable; 415 for an unknown body type', async () => {
    const a = await t.json('GET', '/api/v1/namespaces', { headers: { accept: 'text/html' } });
    expect(a.status).toBe(406);
    expect(a.body.reason).toBe('NotAcceptable');
    const u = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(u.status).toBe(415);
    expect(u.body.reason).toBe('UnsupportedMediaType');
  });
});
