/**
 * A simulated node's kubelet on its HTTPS port as a pod reaches it (curl -k
 * https://<nodeIP>:10250/pods): the kubelet's auth filter over its server, as
 * kubeadm configures it (anonymous off, webhook authentication and
 * authorization). The bearer token is checked with a TokenReview and the
 * request with SubjectAccessReviews, both sent to the API server as the node
 * (system:node:<name>), as the kubelet's webhook clients do; so RBAC on
 * nodes/proxy, nodes/stats, nodes/metrics... decides what a service account
 * may read from a kubelet. kube's pkg/kubelet/server (auth.go, server.go's
 * InstallAuthFilter), with KubeletFineGrainedAuthz on (beta, on by default
 * since 1.33): /pods, /healthz and /configz are tried as their own
 * subresource first, then as proxy.
 */
import { isObject } from '../api/types';
import { withUser } from '../http/request/context';

export interface KubeletAuthDeps {
  /** The API server past authentication: a request carries its user (the node's). */
  apiServer(request: Request): Promise<Response>;
  /** The node's kubelet server (kubeletServer.ts) answering an authorized request. */
  serve(node: string, method: string, path: string, query: URLSearchParams): Promise<Response>;
}

interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

const textHeaders = { 'content-type': 'text/plain; charset=utf-8' };
const errorString = (status: number, text: string) => new Response(text, { status, headers: textHeaders });

/** The API verb of an HTTP method, as the kubelet's attributes getter maps it ('' for any other). */
const verbs: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** `path` is `prefix` or below it. */
const isSubpath = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/** The nodes subresources a request is authorized as, in the order tried (GetRequestAttributes with fine-grained authz). */
export function kubeletSubresources(path: string): string[] {
  if (isSubpath(path, '/pods')) return ['pods', 'proxy'];
  if (isSubpath(path, '/healthz')) return ['healthz', 'proxy'];
  if (isSubpath(path, '/configz')) return ['configz', 'proxy'];
  if (isSubpath(path, '/stats')) return ['stats'];
  if (isSubpath(path, '/metrics')) return ['metrics'];
  if (isSubpath(path, '/logs')) return ['log'];
  if (isSubpath(path, '/checkpoint')) return ['checkpoint'];
  return ['proxy'];
}

/** A review sent to the API server as the node's kubelet; its status, or undefined when the server did not create it. */
async function review(deps: KubeletAuthDeps, node: string, path: string, body: object): Promise<Record<string, unknown> | undefined> {
  const request = new Request(`https://kubernetes.default.svc${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  withUser(request, { username: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] });
  const response = await deps.apiServer(request);
  if (response.status !== 201) return undefined;
  const status = ((await response.json()) as { status?: unknown }).status;
  return isObject(status) ? status : {};
}

/** The kubelet's answer to an HTTPS request from a pod. */
export async function serveKubeletHttps(deps: KubeletAuthDeps, node: string, request: Request): Promise<Response> {
  const auth = request.headers.get('authorization') ?? '';
  const token = /^bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
  // Anonymous requests are off: no credentials is no user.
  if (!token) return errorString(401, 'Unauthorized');
  const tokenReview = await review(deps, node, '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
  const user = tokenReview?.['authenticated'] === true && isObject(tokenReview['user']) ? (tokenReview['user'] as unknown as ReviewedUser) : undefined;
  if (!user?.username) return errorString(401, 'Unauthorized');

  const url = new URL(request.url);
  const verb = verbs[request.method] ?? '';
  const subresources = kubeletSubresources(url.pathname);
  for (const subresource of subresources) {
    const spec = {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups ? { groups: user.groups } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
      resourceAttributes: { verb, version: 'v1', resource: 'nodes', subresource, name: node },
    };
    const decision = await review(deps, node, '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    if (!decision) return errorString(500, `Authorization error (user=${user.username}, verb=${verb}, resource=nodes, subresource=${subresource})`);
    if (decision['allowed'] === true) return deps.serve(node, request.method, url.pathname, url.searchParams);
  }
  return errorString(403, `Forbidden (user=${user.username}, verb=${verb}, resource=nodes, subresource(s)=[${subresources.join(' ')}])\n`);
}
