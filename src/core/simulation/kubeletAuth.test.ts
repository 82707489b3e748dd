/** The kubelet's auth filter on its HTTPS port: a TokenReview for the bearer token, then SubjectAccessReviews per subresource, sent as the node. */
import { describe, expect, it } from 'vitest';
import { userFrom } from '../http/request/context';
import { kubeletSubresources, serveKubeletHttps, type KubeletAuthDeps } from './kubeletAuth';

interface Sent {
  path: string;
  as: string | undefined;
  body: Record<string, unknown>;
}

/** An API server that knows one token and allows the subresources given; it records what the kubelet sent. */
function fakeDeps(allowed: string[], opts: { sarStatus?: number } = {}): { deps: KubeletAuthDeps; sent: Sent[]; served: string[] } {
  const sent: Sent[] = [];
  const served: string[] = [];
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  return {
    sent,
    served,
    deps: {
      async apiServer(request) {
        const path = new URL(request.url).pathname;
        const body = (await request.json()) as Record<string, unknown>;
        sent.push({ path, as: userFrom(request)?.username, body });
        const spec = body['spec'] as Record<string, unknown>;
        if (path.endsWith('/tokenreviews')) {
          const known = spec['token'] === 'sa-token';
          return json(201, { ...body, status: known ? { authenticated: true, user: { username: 'system:serviceaccount:default:reader', uid: 'u-1', groups: ['system:serviceaccounts', 'system:authenticated'] } } : { authenticated: false } });
        }
        if (opts.sarStatus) return json(opts.sarStatus, { kind: 'Status', code: opts.sarStatus });
        const attrs = spec['resourceAttributes'] as Record<string, unknown>;
        return json(201, { ...body, status: { allowed: allowed.includes(String(attrs['subresource'])) } });
      },
      async serve(node, method, path) {
        served.push(`${method} ${node}${path}`);
        return new Response('{"kind":"PodList"}', { headers: { 'content-type': 'application/json' } });
      },
    },
  };
}

const get = (path: string, token?: string, method = 'GET') => new Request(`https://172.18.0.2:10250${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('kubelet HTTPS auth', () => {
  it('maps paths to the nodes subresources the kubelet authorizes, fine-grained ones before proxy', () => {
    expect(kubeletSubresources('/pods')).toEqual(['pods', 'proxy']);
    expect(kubeletSubresources('/healthz')).toEqual(['healthz', 'proxy']);
    expect(kubeletSubresources('/configz')).toEqual(['configz', 'proxy']);
    expect(kubeletSubresources('/stats/summary')).toEqual(['stats']);
    expect(kubeletSubresources('/metrics/cadvisor')).toEqual(['metrics']);
    expect(kubeletSubresources('/logs/')).toEqual(['log']);
    expect(kubeletSubresources('/podsx')).toEqual(['proxy']);
    expect(kubeletSubresources('/runningpods/')).toEqual(['proxy']);
  });

  it('no token or an unknown one is 401 Unauthorized (anonymous requests are off)', async () => {
    const { deps, served } = fakeDeps(['proxy']);
    for (const token of [undefined, 'bogus']) {
      const res = await serveKubeletHttps(deps, 'node-1', get('/pods', token));
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe('Unauthorized');
    }
    expect(served).toEqual([]);
  });

  it('reviews the token and each subresource as the node; the first allowed one serves the request', async () => {
    const { deps, sent, served } = fakeDeps(['proxy']);
    const res = await serveKubeletHttps(deps, 'node-1', get('/pods', 'sa-token'));
    expect(res.status).toBe(200);
    expect(served).toEqual(['GET node-1/pods']);
    expect(sent.map((s) => [s.path, s.as])).toEqual([
      ['/apis/authentication.k8s.io/v1/tokenreviews', 'system:node:node-1'],
      ['/apis/authorization.k8s.io/v1/subjectaccessreviews', 'system:node:node-1'],
      ['/apis/authorization.k8s.io/v1/subjectaccessreviews', 'system:node:node-1'],
    ]);
    expect(sent[1]!.body['spec']).toEqual({
      user: 'system:serviceaccount:default:reader',
      uid: 'u-1',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'pods', name: 'node-1' },
    });
    expect((sent[2]!.body['spec'] as { resourceAttributes: { subresource: string } }).resourceAttributes.subresource).toBe('proxy');
  });

  it("denied: 403 with the kubelet's message naming every subresource tried; a POST is create", async () => {
    const { deps, served } = fakeDeps([]);
    const pods = await serveKubeletHttps(deps, 'node-1', get('/pods', 'sa-token'));
    expect(pods.status).toBe(403);
    expect(await pods.text()).toBe('Forbidden (user=system:serviceaccount:default:reader, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
    const run = await serveKubeletHttps(deps, 'node-1', get('/run/default/web/app', 'sa-token', 'POST'));
    expect(await run.text()).toBe('Forbidden (user=system:serviceaccount:default:reader, verb=create, resource=nodes, subresource(s)=[proxy])\n');
    expect(served).toEqual([]);
  });

  it('a review the API server refuses is a 500 authorization error', async () => {
    const { deps } = fakeDeps(['stats'], { sarStatus: 403 });
    const res = await serveKubeletHttps(deps, 'node-1', get('/stats/summary', 'sa-token'));
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('Authorization error (user=system:serviceaccount:default:reader, verb=get, resource=nodes, subresource=stats)');
  });
});
