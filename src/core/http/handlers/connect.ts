/**
 * The connect-style pod, service and node subresources (log, exec, attach,
 * portforward, proxy): the options decoded from the query, the backend
 * location resolved as kube-apiserver resolves it (registry/core/podLocation),
 * and kube's answer when that backend cannot be reached; a simulated node's
 * running kubelet answers nodes/proxy itself (simulation/kubeletServer). Every error is
 * written before any upgrade, as kube-apiserver writes a failed location.
 */
import type { KubeObject } from '../../api/types';
import { isObject } from '../../api/types';
import { isKubeletStopped, isSimulatedNode } from '../../simulation/nodes';
import { serveKubelet } from '../../simulation/kubeletServer';
import { allUnauthenticated, anonymousUser } from '../../auth/user';
import { newBadRequest, newForbidden, newInvalid, newRouteMethodNotAllowed } from '../../errors';
import { userFrom } from '../request/context';
import {
  nodeConnectionInfo,
  nodeProxyLocation,
  podLogLocation,
  podPortForwardLocation,
  podProxyLocation,
  podStreamLocation,
  serviceProxyLocation,
  splitSchemeNamePort,
  unreachableBackend,
  validateContainer,
  type CoreObjectGetter,
} from '../../registry/core/podLocation';
import { validatePodLogOptions, type PodLogOptions } from '../../validation/core/binding';
import { optionalBoolParam, queryOf } from '../queryParams';
import type { RequestScope } from './scope';
import { acceptUpgrade, isUpgradeRequest } from '../upgrade';
import { simulatedAttach, simulatedExec, type SimulatedKubeletSource } from '../../simulation/podExec';
import { serveContainerLog } from '../../simulation/containerLogs';
import { proxyToSimulatedPod } from '../../simulation/podProxy';
import { simulatedPortForward } from '../../simulation/podPortForward';

const minInt64 = -(2n ** 63n);
const maxInt64 = 2n ** 63n - 1n;

/** An int64 option as the parameter codec converts it (strconv.ParseInt's words on failure). */
function int64Param(q: URLSearchParams, name: string): number | undefined {
  const s = q.get(name);
  if (s === null) return undefined;
  if (!/^[-+]?\d+$/.test(s)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < minInt64 || n > maxInt64) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(n);
}

/** time.RFC3339 as Go parses it (fractional seconds allowed). */
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** PodLogOptions from the query (metav1.Time for sinceTime, RFC 3339). */
function podLogOptions(q: URLSearchParams): PodLogOptions {
  const sinceTime = q.get('sinceTime') ?? undefined;
  if (sinceTime !== undefined && !rfc3339.test(sinceTime)) {
    throw newBadRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`);
  }
  return {
    container: q.get('container') ?? undefined,
    follow: optionalBoolParam(q, 'follow'),
    previous: optionalBoolParam(q, 'previous'),
    timestamps: optionalBoolParam(q, 'timestamps'),
    sinceSeconds: int64Param(q, 'sinceSeconds'),
    sinceTime,
    tailLines: int64Param(q, 'tailLines'),
    limitBytes: int64Param(q, 'limitBytes'),
    insecureSkipTLSVerifyBackend: optionalBoolParam(q, 'insecureSkipTLSVerifyBackend'),
    stream: q.get('stream') ?? undefined,
  };
}

/** PodPortForwardOptions.ports: comma-separated values, each a uint16 (Convert_Slice_string_To_Slice_int32). */
function portsParam(q: URLSearchParams): number[] {
  const ports: number[] = [];
  for (const value of q.getAll('ports')) {
    for (const v of value.split(',')) {
      const problem = !/^\d+$/.test(v) ? 'invalid syntax' : Number(v) > 65535 ? 'value out of range' : undefined;
      if (problem) throw newBadRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(v)}: ${problem}`);
      ports.push(Number(v));
    }
  }
  return ports;
}

/** The subresources this handler serves, by resource. */
export const connectSubresources: Record<string, ReadonlySet<string>> = {
  pods: new Set(['log', 'exec', 'attach', 'portforward', 'proxy']),
  services: new Set(['proxy']),
  nodes: new Set(['proxy']),
};

/** HTTP methods each one has routes for (log is a getter; exec, attach and portforward take GET and POST; proxy all). */
function routed(subresource: string, method: string): boolean {
  if (subresource === 'log') return method === 'GET' || method === 'HEAD';
  if (subresource === 'proxy') return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(method);
  return method === 'GET' || method === 'HEAD' || method === 'POST';
}

/**
 * ensureAuthorizedForVerb: a WebSocket upgrade is a GET, authorized as get;
 * exec, attach and port-forward also need the create that SPDY's POST is
 * authorized as (AuthorizePodWebsocketUpgradeCreatePermission).
 */
async function ensureAuthorizedForCreate(scope: RequestScope): Promise<void> {
  const { info } = scope;
  if (info.verb === 'create' || !scope.gates.AuthorizePodWebsocketUpgradeCreatePermission || !scope.authorizer) return;
  const user = userFrom(scope.request) ?? { username: anonymousUser, groups: [allUnauthenticated] };
  const result = await scope.authorizer.authorize({
    user, verb: 'create', isResourceRequest: true, path: scope.url.pathname,
    namespace: info.namespace, apiGroup: info.apiGroup, apiVersion: info.apiVersion, resource: info.resource, subresource: info.subresource, name: info.name,
  });
  if (result.decision !== 'Allow') throw newForbidden({ group: info.apiGroup, resource: info.resource }, info.name, result.reason);
}

/** Validating admission of a connect (operation CONNECT), whose object is the versioned options. */
async function admitConnect(scope: RequestScope, kind: string, options: Record<string, unknown>): Promise<void> {
  const object = { kind, apiVersion: 'v1', ...options } as unknown as KubeObject;
  await scope.store.admit({ operation: 'CONNECT', kind, object, dryRun: false, subresource: scope.info.subresource });
}

/**
 * The proxy options' path as the connect handler fills it from the URL
 * (getRequestOptions): the segments after the subresource with a leading
 * slash, and the request's trailing slash kept; it replaces any ?path=.
 */
function proxyPath(parts: string[], requestPath: string): string {
  let p = parts.join('/');
  if (p && !p.startsWith('/')) p = '/' + p;
  if (requestPath.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

/** Drops unset options, as their omitempty JSON does. */
const present = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== false && v !== ''));

/**
 * nodes/proxy to a simulated node's kubelet port: the kubelet answers in
 * process (its node name resolves to the node, as a cluster's DNS resolves
 * it). Undefined for any other node or port, and for a stopped kubelet,
 * whose node is then looked up and dialed as before.
 */
async function proxyToSimulatedKubelet(scope: RequestScope, get: CoreObjectGetter, kubelets: SimulatedKubeletSource, path: string): Promise<Response | undefined> {
  const parsed = splitSchemeNamePort(scope.info.name);
  const node = parsed && (await get('nodes', '', parsed.name));
  if (!parsed || !node || !isSimulatedNode(node) || isKubeletStopped(node)) return undefined;
  if (parsed.port && parsed.port !== (await nodeConnectionInfo(get, parsed.name)).port) return undefined;
  return serveKubelet({ node, listPods: kubelets.listPods, clock: scope.clock, gates: scope.gates, proberResults: kubelets.proberResults }, scope.request.method, path || '/', queryOf(scope.url));
}

/** kubesim's own kubelets answer nodes/proxy and exec for simulated nodes (simulation/kubeletServer.ts, podExec.ts); pods on them answer the pod and service proxies (simulation/podProxy.ts). */
export async function connect(scope: RequestScope, get: CoreObjectGetter, kubelets?: SimulatedKubeletSource): Promise<Response> {
  const { request, url, info, type } = scope;
  if (!routed(info.subresource, request.method)) throw newRouteMethodNotAllowed();
  const q = queryOf(url);
  const ns = info.namespace;
  const path = proxyPath(info.parts, url.pathname);
  if (type.resource === 'services') {
    await admitConnect(scope, 'ServiceProxyOptions', present({ path }));
    const location = await serviceProxyLocation(get, ns, info.name);
    const simulated = kubelets && (await proxyToSimulatedPod(kubelets.network, location, request, path, url.search, scope.clock.now().getTime()));
    if (simulated) return simulated;
    throw unreachableBackend('proxy', location);
  }
  if (type.resource === 'nodes') {
    await admitConnect(scope, 'NodeProxyOptions', present({ path }));
    const simulated = kubelets && (await proxyToSimulatedKubelet(scope, get, kubelets, path));
    if (simulated) return simulated;
    throw unreachableBackend('proxy', await nodeProxyLocation(get, info.name));
  }
  switch (info.subresource) {
    case 'log': {
      const opts = podLogOptions(q);
      const errs = validatePodLogOptions(opts);
      if (errs.length) throw newInvalid({ group: '', kind: 'PodLogOptions' }, info.name, errs);
      const loc = await podLogLocation(get, ns, info.name, opts.container ?? '', opts);
      // LocationStreamer without a location: no stream, 204.
      if (!loc) return new Response(null, { status: 204 });
      // A simulated kubelet answers with what the container's process wrote.
      const pod = await get('pods', ns, info.name);
      const nodeName = pod && isObject(pod['spec']) ? String(pod['spec']['nodeName'] ?? '') : '';
      const node = await get('nodes', '', nodeName);
      if (pod && kubelets && isSimulatedNode(node) && !isKubeletStopped(node)) {
        const container = validateContainer(pod, opts.container ?? '');
        return serveContainerLog({ runtime: kubelets.runtime, clock: scope.clock, get, pod, container, opts, signal: request.signal });
      }
      throw unreachableBackend('log', loc);
    }
    case 'exec':
    case 'attach': {
      // SetDefaults_PodExecOptions / _PodAttachOptions: stdout and stderr default to true.
      const opts = {
        stdin: optionalBoolParam(q, 'stdin') ?? false,
        stdout: optionalBoolParam(q, 'stdout') ?? true,
        stderr: optionalBoolParam(q, 'stderr') ?? true,
        tty: optionalBoolParam(q, 'tty') ?? false,
        command: info.subresource === 'exec' ? q.getAll('command') : undefined,
      };
      const container = q.get('container') ?? '';
      const kind = info.subresource === 'exec' ? 'PodExecOptions' : 'PodAttachOptions';
      await admitConnect(scope, kind, { ...present({ stdin: opts.stdin, stdout: opts.stdout, stderr: opts.stderr, tty: opts.tty, container }), ...(opts.command ? { command: opts.command } : {}) });
      await ensureAuthorizedForCreate(scope);
      const location = await podStreamLocation(get, ns, info.name, container, info.subresource, opts);
      // UpgradeAwareHandler with UpgradeRequired: a plain request is refused before any dial.
      if (!isUpgradeRequest(request)) throw newBadRequest('Upgrade request required');
      if (info.subresource === 'attach' && kubelets) {
        const pod = (await get('pods', ns, info.name))!;
        const { stdin, stdout, stderr, tty } = opts;
        const answer = await simulatedAttach(get, kubelets, scope.clock, pod, validateContainer(pod, container), { stdin, stdout, stderr, tty });
        if (answer instanceof Response) return answer;
        if (answer) return acceptUpgrade(request, answer);
      }
      if (info.subresource === 'exec' && kubelets) {
        const pod = (await get('pods', ns, info.name))!;
        const { stdin, stdout, stderr, tty } = opts;
        const answer = await simulatedExec(get, kubelets, pod, validateContainer(pod, container), { stdin, stdout, stderr, tty }, opts.command ?? []);
        if (answer instanceof Response) return answer;
        if (answer) return acceptUpgrade(request, answer);
      }
      throw unreachableBackend('upgrade', location);
    }
    case 'portforward': {
      const ports = portsParam(q);
      await admitConnect(scope, 'PodPortForwardOptions', ports.length ? { ports } : {});
      await ensureAuthorizedForCreate(scope);
      const location = await podPortForwardLocation(get, ns, info.name, { ports });
      if (!isUpgradeRequest(request)) throw newBadRequest('Upgrade request required');
      const session = kubelets && (await simulatedPortForward(get, kubelets, scope.clock, (await get('pods', ns, info.name))!));
      if (session) return acceptUpgrade(request, session);
      throw unreachableBackend('upgrade', location);
    }
    default:
      await admitConnect(scope, 'PodProxyOptions', present({ path }));
      const location = await podProxyLocation(get, ns, info.name);
      const simulated = kubelets && (await proxyToSimulatedPod(kubelets.network, location, request, path, url.search, scope.clock.now().getTime()));
      if (simulated) return simulated;
      throw unreachableBackend('proxy', location);
  }
}
