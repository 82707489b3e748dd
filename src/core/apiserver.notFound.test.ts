/**
 * Paths nothing serves, through handle(): under a built-in group's web
 * service kube answers go-restful's route miss as a negotiated Status; any
 * other path reaches the NotFoundHandler and gets Go's plain-text 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeEnvelope, decodeRaw, protoFilesAvailable } from './http/serializers/protobuf/protoFiles.test-data';
import { newTestServer, type TestServer } from './testing/client';

const widgetCrd = () => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
  expect((await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgetCrd() })).status).toBe(201);
});

const routeMiss = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

describe('unknown paths', () => {
  it.each([
    '/foo',
    '/apiz',
    '/apis/nope.example.com',
    '/apis/nope.example.com/v1',
    '/apis/nope.example.com/v1/foos',
    '/apis/nope.example.com/v1/namespaces/default/foos/x',
    '/apis/example.com/v2',
    '/apis/example.com/v1/gadgets',
    '/apis/example.com/v1/namespaces/default/gadgets',
  ])('%s reaches the NotFoundHandler: plain text, as http.NotFound writes it', async (path) => {
    const r = await t.request('GET', path, { headers: { accept: 'application/json' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await r.text()).toBe('404 page not found\n');
  });

  it.each([
    '/api/v2',
    '/api/v1/foos',
    '/api/v1/namespaces/default/foos/x',
    '/api/v1/namespaces/default/nodes',
    '/api/v1/namespaces/default/configmaps/x/foo',
    '/apis/apps/v2',
    '/apis/apps/v1/foos',
    '/apis/batch/v1beta1/namespaces/default/cronjobs',
    '/version/x',
  ])('%s is under a built-in web service: go-restful\'s route miss as a Status', async (path) => {
    const r = await t.json('GET', path);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toEqual(routeMiss);
  });

  it('[API-PATH-011] the core group is not under /apis/core: nothing serves it', async () => {
    for (const path of ['/apis/core/v1/namespaces/default/configmaps', '/apis/core/v1']) {
      const r = await t.request('GET', path);
      expect([path, r.status, await r.text()]).toEqual([path, 404, '404 page not found\n']);
    }
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  });

  it.skipIf(!protoFilesAvailable)('the route-miss Status is negotiated like any error (protobuf here)', async () => {
    const r = await t.request('GET', '/api/v1/foos', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const env = decodeEnvelope(new Uint8Array(await r.arrayBuffer()));
    expect(decodeRaw('k8s.io.apimachinery.pkg.apis.meta.v1.Status', env.raw)).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource', code: 404 });
  });

  it('an unknown subresource of a served custom resource is NotFound for the object, as the CRD handler answers', async () => {
    const r = await t.json('GET', '/apis/example.com/v1/namespaces/default/widgets/w1/status');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ reason: 'NotFound', message: 'widgets.example.com "w1" not found', details: { name: 'w1', group: 'example.com', kind: 'widgets' } });
  });

  it('a path nothing serves is 404 whatever the method; a served one is 405 for a method it lacks', async () => {
    const foo = await t.request('POST', '/foo', { body: '{}' });
    expect([foo.status, await foo.text()]).toEqual([404, '404 page not found\n']);
    const v2 = await t.json('DELETE', '/api/v2');
    expect([v2.status, v2.body]).toEqual([404, routeMiss]);
    const apis = await t.json('POST', '/apis', { body: {} });
    expect([apis.status, apis.body.reason]).toEqual([405, 'MethodNotAllowed']);
  });

  it('served documents and objects still answer', async () => {
    expect((await t.request('GET', '/apis/example.com/v1')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
    expect((await t.request('GET', '/version/')).status).toBe(200);
  });
});
