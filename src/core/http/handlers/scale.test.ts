import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
const parents = [
  { path: '/apis/apps/v1/namespaces/default/deployments', body: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: template('a') } } },
  { path: '/apis/apps/v1/namespaces/default/replicasets', body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', spec: { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: template('a') } } },
  { path: '/apis/apps/v1/namespaces/default/statefulsets', body: { apiVersion: 'apps/v1', kind: 'StatefulSet', spec: { replicas: 1, serviceName: 's', selector: { matchLabels: { app: 'a' } }, template: template('a') } } },
  { path: '/api/v1/namespaces/default/replicationcontrollers', body: { apiVersion: 'v1', kind: 'ReplicationController', spec: { replicas: 1, selector: { app: 'a' }, template: template('a') } } },
];

const patchScale = (path: string, type: string, body: unknown, query = '') =>
  t.json('PATCH', `${path}/w/scale${query}`, { body: JSON.stringify(body), headers: { 'content-type': type } });

describe('scale subresource patches', () => {
  it.each(parents.map((p) => [p.body.kind, p] as const))('API-PATH-007 API-PATH-008 API-PATCH-013: strategic merge patch of %s/scale sets spec.replicas', async (_kind, p) => {
    const created = await t.json('POST', p.path, { body: { ...p.body, metadata: { name: 'w' } } });
    expect(created.status).toBe(201);
    const r = await patchScale(p.path, 'application/strategic-merge-patch+json', { spec: { replicas: 3 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 3 } });
    const parent = await t.json('GET', `${p.path}/w`);
    expect(parent.body.spec.replicas).toBe(3);
    expect(r.body.metadata.resourceVersion).toBe(parent.body.metadata.resourceVersion);
  });

  it('merge and JSON patches of deployments/scale work too; a failing JSON patch test is 422', async () => {
    const p = parents[0]!;
    await t.json('POST', p.path, { body: { ...p.body, metadata: { name: 'w' } } });
    expect((await patchScale(p.path, 'application/merge-patch+json', { spec: { replicas: 4 } })).body.spec.replicas).toBe(4);
    expect((await patchScale(p.path, 'application/json-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 5 }])).body.spec.replicas).toBe(5);
    const failed = await patchScale(p.path, 'application/json-patch+json', [{ op: 'test', path: '/spec/replicas', value: 9 }]);
    expect(failed.status).toBe(422);
  });

  it('API-ERR-002: a strategic merge patch carrying a stale resourceVersion is 409', async () => {
    const p = parents[0]!;
    const d = (await t.json('POST', p.path, { body: { ...p.body, metadata: { name: 'w' } } })).body;
    await patchScale(p.path, 'application/strategic-merge-patch+json', { spec: { replicas: 2 } });
    const r = await patchScale(p.path, 'application/strategic-merge-patch+json', { metadata: { resourceVersion: d.metadata.resourceVersion }, spec: { replicas: 3 } });
    expect(r.status).toBe(409);
  });

  it('API-ERR-004: fieldValidation=Strict refuses an unknown Scale field with 400; Warn warns', async () => {
    const p = parents[0]!;
    await t.json('POST', p.path, { body: { ...p.body, metadata: { name: 'w' } } });
    const strict = await patchScale(p.path, 'application/strategic-merge-patch+json', { spec: { replica: 3 } }, '?fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: unknown field "spec.replica"');
    const warn = await patchScale(p.path, 'application/merge-patch+json', { spec: { replicas: 2, replica: 3 } });
    expect(warn.status).toBe(200);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.replica\\""');
    expect(warn.body.spec.replicas).toBe(2);
  });

  it('API-FV-002: a PUT of the Scale is field-validated too: Strict 400 names the unknown field', async () => {
    const p = parents[0]!;
    await t.json('POST', p.path, { body: { ...p.body, metadata: { name: 'w' } } });
    const scale = (await t.json('GET', `${p.path}/w/scale`)).body;
    const r = await t.json('PUT', `${p.path}/w/scale?fieldValidation=Strict`, { body: { ...scale, spec: { replicas: 2, replica: 2 } } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "spec.replica"');
    const ok = await t.json('PUT', `${p.path}/w/scale`, { body: { ...scale, spec: { replicas: 2 } } });
    expect(ok.status).toBe(200);
    expect(ok.body.spec.replicas).toBe(2);
  });
});
