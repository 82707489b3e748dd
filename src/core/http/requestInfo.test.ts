import { describe, expect, it } from 'vitest';
import { newTestServer } from '../testing/client';
import { newRequestInfo } from './requestInfo';

const cases: { name: string; method: string; url: string; want: Partial<ReturnType<typeof newRequestInfo>> }[] = [
  { name: 'core list across namespaces', method: 'GET', url: '/api/v1/pods', want: { isResourceRequest: true, verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: '', name: '' } },
  { name: 'namespaced list', method: 'GET', url: '/api/v1/namespaces/ns1/pods', want: { verb: 'list', namespace: 'ns1', resource: 'pods' } },
  { name: 'namespaced get', method: 'GET', url: '/api/v1/namespaces/ns1/pods/p1', want: { verb: 'get', namespace: 'ns1', resource: 'pods', name: 'p1' } },
  { name: 'group namespaced get', method: 'GET', url: '/apis/apps/v1/namespaces/ns1/deployments/d1', want: { verb: 'get', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns1', resource: 'deployments', name: 'd1' } },
  { name: 'cluster-scoped get', method: 'GET', url: '/api/v1/nodes/n1', want: { verb: 'get', resource: 'nodes', name: 'n1', namespace: '' } },
  { name: 'namespace get', method: 'GET', url: '/api/v1/namespaces/ns1', want: { verb: 'get', resource: 'namespaces', name: 'ns1', namespace: 'ns1' } },
  { name: 'namespace list', method: 'GET', url: '/api/v1/namespaces', want: { verb: 'list', resource: 'namespaces', namespace: '' } },
  { name: 'namespace status', method: 'PUT', url: '/api/v1/namespaces/ns1/status', want: { verb: 'update', resource: 'namespaces', name: 'ns1', subresource: 'status' } },
  { name: 'namespace finalize', method: 'PUT', url: '/api/v1/namespaces/ns1/finalize', want: { verb: 'update', resource: 'namespaces', subresource: 'finalize' } },
  { name: 'subresource', method: 'PATCH', url: '/apis/apps/v1/namespaces/ns1/deployments/d1/scale', want: { verb: 'patch', resource: 'deployments', name: 'd1', subresource: 'scale' } },
  { name: 'create', method: 'POST', url: '/api/v1/namespaces/ns1/configmaps', want: { verb: 'create', resource: 'configmaps' } },
  { name: 'delete', method: 'DELETE', url: '/api/v1/namespaces/ns1/configmaps/c', want: { verb: 'delete', name: 'c' } },
  { name: 'deletecollection', method: 'DELETE', url: '/api/v1/namespaces/ns1/configmaps', want: { verb: 'deletecollection' } },
  { name: 'watch=1', method: 'GET', url: '/api/v1/namespaces/ns1/pods?watch=1', want: { verb: 'watch', resource: 'pods' } },
  { name: 'bare ?watch', method: 'GET', url: '/api/v1/pods?watch', want: { verb: 'watch' } },
  { name: 'watch=false is a list', method: 'GET', url: '/api/v1/pods?watch=false', want: { verb: 'list' } },
  { name: 'watch prefix', method: 'GET', url: '/api/v1/watch/namespaces/ns1/pods', want: { verb: 'watch', namespace: 'ns1', resource: 'pods' } },
  { name: 'watch by name via field selector', method: 'GET', url: '/api/v1/namespaces/ns1/pods?watch=true&fieldSelector=metadata.name%3Dp1', want: { verb: 'watch', name: 'p1' } },
  { name: 'discovery /api', method: 'GET', url: '/api', want: { isResourceRequest: false, verb: 'get' } },
  { name: 'discovery /apis/apps/v1', method: 'GET', url: '/apis/apps/v1', want: { isResourceRequest: false } },
  { name: 'non-resource /healthz', method: 'GET', url: '/healthz', want: { isResourceRequest: false, verb: 'get', path: '/healthz' } },
  { name: 'proxy parts', method: 'GET', url: '/api/v1/namespaces/ns1/pods/p1/proxy/a/b', want: { subresource: 'proxy', parts: ['a', 'b'] } },
];

describe('requestInfo', () => {
  for (const c of cases) {
    it(`${c.name}`, () => {
      const info = newRequestInfo(c.method, new URL(c.url, 'http://x'));
      expect(info).toMatchObject(c.want);
    });
  }
});

describe('requestInfo of paths under a collection resolved before', () => {
  const full = (info: ReturnType<typeof newRequestInfo>) => ({ ...info });

  it('a path naming another object of the collection has its own name and path, and everything else of the first', () => {
    const first = newRequestInfo('GET', new URL('http://x/apis/apps/v1/namespaces/ns9/deployments/d1'));
    const second = newRequestInfo('GET', new URL('http://x/apis/apps/v1/namespaces/ns9/deployments/d2'));
    expect(full(first)).toEqual({ isResourceRequest: true, path: '/apis/apps/v1/namespaces/ns9/deployments/d1', verb: 'get', apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns9', resource: 'deployments', subresource: '', name: 'd1', parts: [] });
    expect(full(second)).toEqual({ ...full(first), path: '/apis/apps/v1/namespaces/ns9/deployments/d2', name: 'd2' });
    // Another method on the same path resolves its own verb.
    expect(newRequestInfo('DELETE', new URL('http://x/apis/apps/v1/namespaces/ns9/deployments/d3'))).toMatchObject({ verb: 'delete', name: 'd3' });
    expect(newRequestInfo('PUT', new URL('http://x/apis/apps/v1/namespaces/ns9/deployments/d3'))).toMatchObject({ verb: 'update', name: 'd3' });
  });

  it('a query, an escaped name, a subresource or a namespace is resolved on its own after its collection was seen', () => {
    newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/a'));
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/b?watch=1'))).toMatchObject({ verb: 'watch', name: 'b' });
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/system%3Anode'))).toMatchObject({ verb: 'get', name: 'system:node' });
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/a/status'))).toMatchObject({ name: 'a', subresource: 'status' });
    newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/a/status'));
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/a/log'))).toMatchObject({ name: 'a', subresource: 'log' });
    newRequestInfo('GET', new URL('http://x/api/v1/namespaces/one'));
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/two'))).toMatchObject({ resource: 'namespaces', name: 'two', namespace: 'two' });
    newRequestInfo('GET', new URL('http://x/api/v1/watch/namespaces/ns8/pods/a'));
    expect(newRequestInfo('GET', new URL('http://x/api/v1/watch/namespaces/ns8/pods/b'))).toMatchObject({ verb: 'watch', name: 'b', namespace: 'ns8' });
    expect(newRequestInfo('GET', new URL('http://x/api/v1/namespaces/ns8/pods/'))).toMatchObject({ verb: 'list', name: '' });
  });

  it('[API-PATH-002] GETs of many objects in turn each answer their own object, and a missing one its own NotFound', async () => {
    const t = await newTestServer();
    for (const name of ['m0', 'm1', 'm2']) {
      expect((await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } } })).status).toBe(201);
    }
    for (const name of ['m0', 'm1', 'm2']) {
      const got = await t.json('GET', `/api/v1/namespaces/default/configmaps/${name}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: name } });
    }
    const missing = await t.json('GET', '/api/v1/namespaces/default/configmaps/m3');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'configmaps "m3" not found', details: { name: 'm3', kind: 'configmaps' } });
    const other = await t.json('GET', '/api/v1/namespaces/kube-system/configmaps/m0');
    expect(other.status).toBe(404);
  });
});

describe('a path with a malformed escape', () => {
  it('is a 400 BadRequest Status naming the escape, not a server error', async () => {
    const t = await newTestServer();
    for (const path of ['/api/v1/namespaces/default/configmaps/%zz', '/api/v1/namespaces/%G1/configmaps', '/apis/apps/v1/namespaces/default/deployments/a%']) {
      const r = await t.json('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(r.body.message).toMatch(/^invalid URL escape "%/);
    }
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps/%7a')).status).toBe(404);
    await t.server.close();
  });
});
