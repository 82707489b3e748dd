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
