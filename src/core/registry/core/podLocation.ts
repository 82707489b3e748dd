/**
 * Where kube-apiserver would send a pod's log, exec, attach and port-forward
 * streams and a pod, service or node proxy request (pkg/registry/core/pod
 * strategy.go LogLocation / streamLocation / PortForwardLocation /
 * ResourceLocation, the service and node ResourceLocation, and the kubelet
 * client's GetConnectionInfo), with the errors each step answers. kubesim
 * runs no kubelet and no pod network: a location that resolves is one
 * nothing listens at, and the caller answers as kube does when the dial fails.
 */
import { isObject, type KubeObject } from '../../api/types';
import { newBadRequest, newNotFound, newServiceUnavailable, StatusError } from '../../errors';
import type { PodLogOptions } from '../../validation/core/binding';

/** Reads one core/v1 object (undefined when absent). */
export type CoreObjectGetter = (resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;

/** A backend address: scheme, host and port joined as Go's net.JoinHostPort joins them. */
export interface BackendLocation {
  scheme: string;
  /** host:port ([v6]:port). */
  hostPort: string;
  /** Path and query, for the messages that print the whole URL. */
  pathAndQuery: string;
}

/** The kubelet port a node reports none for (--kubelet-port). */
const defaultKubeletPort = 10250;
/** kube-apiserver's --kubelet-preferred-address-types default. */
const preferredAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A non-Status error as ErrorToAPIStatus answers it: 500, no reason, the error's text. */
export function unknownServerError(message: string, code = 500): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code });
}

export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** joinHostPort's inverse: host:port, or [v6]:port, in its parts. */
export function splitHostPort(hostPort: string): { host: string; port: number } {
  const at = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(at + 1)) };
}

async function getPod(get: CoreObjectGetter, namespace: string, name: string): Promise<KubeObject> {
  const pod = await get('pods', namespace, name);
  if (!pod) throw newNotFound({ group: '', resource: 'pods' }, name);
  return pod;
}

/** Every container's name, in podutil.VisitContainers order: init containers, containers, ephemeral containers. */
function containerNames(pod: KubeObject): string[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) => list(field(pod, 'spec', k)).map((c) => String(c['name'] ?? '')));
}

/** validateContainer: the named container must exist; with none named, the pod must have exactly one. */
export function validateContainer(pod: KubeObject, container: string): string {
  const name = pod.metadata.name ?? '';
  if (!container) {
    const containers = list(field(pod, 'spec', 'containers'));
    if (containers.length === 1) return String(containers[0]!['name'] ?? '');
    if (containers.length === 0) throw newBadRequest(`a container name must be specified for pod ${name}`);
    throw newBadRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/**
 * NodeConnectionInfoGetter.GetConnectionInfo: the node's first address of
 * the preferred types and its kubelet port; a node without one is a plain
 * error (500), as nodeutil.GetPreferredNodeAddress's NoMatchError.
 */
export async function nodeConnectionInfo(get: CoreObjectGetter, nodeName: string): Promise<{ scheme: string; host: string; port: string }> {
  const node = await get('nodes', '', nodeName);
  if (!node) throw newNotFound({ group: '', resource: 'nodes' }, nodeName);
  const addresses = list(field(node, 'status', 'addresses'));
  for (const type of preferredAddressTypes) {
    const found = addresses.find((a) => a['type'] === type);
    if (found) {
      const port = field(node, 'status', 'daemonEndpoints', 'kubeletEndpoint', 'Port');
      return { scheme: 'https', host: String(found['address'] ?? ''), port: String(typeof port === 'number' && port > 0 ? port : defaultKubeletPort) };
    }
  }
  // %v of []v1.NodeAddress: [{InternalIP 10.0.0.1} {Hostname n1}]
  throw unknownServerError(`no preferred addresses found; known addresses: [${addresses.map((a) => `{${String(a['type'] ?? '')} ${String(a['address'] ?? '')}}`).join(' ')}]`);
}

function kubeletLocation(info: { scheme: string; host: string; port: string }, path: string, query: URLSearchParams): BackendLocation {
  const q = query.toString();
  return { scheme: info.scheme, hostPort: joinHostPort(info.host, info.port), pathAndQuery: q ? `${path}?${q}` : path };
}

/** LogLocation's query to the kubelet: the PodLogOptions it forwards, only those set, sorted by name (url.Values.Encode). */
export type LogQuery = Pick<PodLogOptions, 'follow' | 'previous' | 'timestamps' | 'sinceSeconds' | 'sinceTime' | 'tailLines' | 'limitBytes'>;

/** LogLocation: undefined when the pod has no node (the log is then empty). */
export async function podLogLocation(get: CoreObjectGetter, namespace: string, name: string, container: string, opts: LogQuery): Promise<BackendLocation | undefined> {
  const pod = await getPod(get, namespace, name);
  const c = validateContainer(pod, container);
  const nodeName = String(field(pod, 'spec', 'nodeName') ?? '');
  if (!nodeName) return undefined;
  const info = await nodeConnectionInfo(get, nodeName);
  const q = new URLSearchParams();
  if (opts.follow) q.append('follow', 'true');
  if (opts.limitBytes !== undefined) q.append('limitBytes', String(opts.limitBytes));
  if (opts.previous) q.append('previous', 'true');
  if (opts.sinceSeconds !== undefined) q.append('sinceSeconds', String(opts.sinceSeconds));
  if (opts.sinceTime !== undefined) q.append('sinceTime', opts.sinceTime);
  if (opts.tailLines !== undefined) q.append('tailLines', String(opts.tailLines));
  if (opts.timestamps) q.append('timestamps', 'true');
  return kubeletLocation(info, `/containerLogs/${namespace}/${name}/${c}`, q);
}

/** The kubelet streaming endpoints' query (streamParams): the stream flags as "1", then the command. */
export interface StreamQuery {
  stdin?: boolean;
  stdout?: boolean;
  stderr?: boolean;
  tty?: boolean;
  command?: string[];
  ports?: number[];
}

function streamQuery(opts: StreamQuery): URLSearchParams {
  const q = new URLSearchParams();
  // url.Values.Encode sorts by key: command, error, input, output, port, tty.
  for (const c of opts.command ?? []) q.append('command', c);
  if (opts.stderr) q.append('error', '1');
  if (opts.stdin) q.append('input', '1');
  if (opts.stdout) q.append('output', '1');
  if (opts.ports?.length) q.append('port', opts.ports.join(','));
  if (opts.tty) q.append('tty', '1');
  return q;
}

/** streamLocation (exec and attach): a valid container, a node, the node's kubelet. */
export async function podStreamLocation(get: CoreObjectGetter, namespace: string, name: string, container: string, path: 'exec' | 'attach', opts: StreamQuery): Promise<BackendLocation> {
  const pod = await getPod(get, namespace, name);
  const c = validateContainer(pod, container);
  const nodeName = String(field(pod, 'spec', 'nodeName') ?? '');
  if (!nodeName) throw newBadRequest(`pod ${name} does not have a host assigned`);
  const info = await nodeConnectionInfo(get, nodeName);
  return kubeletLocation(info, `/${path}/${namespace}/${name}/${c}`, streamQuery(opts));
}

/** PortForwardLocation: no container to check; a node, the node's kubelet. */
export async function podPortForwardLocation(get: CoreObjectGetter, namespace: string, name: string, opts: StreamQuery): Promise<BackendLocation> {
  const pod = await getPod(get, namespace, name);
  const nodeName = String(field(pod, 'spec', 'nodeName') ?? '');
  if (!nodeName) throw newBadRequest(`pod ${name} does not have a host assigned`);
  const info = await nodeConnectionInfo(get, nodeName);
  return kubeletLocation(info, `/portForward/${namespace}/${name}`, streamQuery(opts));
}

/** utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port", scheme http or https. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  return name && (scheme === '' || scheme === 'http' || scheme === 'https') ? { scheme, name, port } : undefined;
}

/** net.IP.IsGlobalUnicast for an address text (false for anything that does not parse). */
export function isGlobalUnicast(ip: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const b = v4.slice(1).map(Number);
    if (b.some((x) => x > 255)) return false;
    const [a, b1] = b as [number, number];
    if (a === 0 || a === 127 || a >= 224 || (a === 169 && b1 === 254)) return false;
    return b.some((x) => x !== 255);
  }
  if (!ip.includes(':') || !/^[0-9a-fA-F:.]+$/.test(ip)) return false;
  const lower = ip.toLowerCase();
  if (/^[0:]+$/.test(lower) || /^[0:]+1$/.test(lower) || lower.startsWith('ff') || /^fe[89ab]/.test(lower)) return false;
  return true;
}

/** Where an HTTP client with no port in the URL dials (Go's transport: 80, or 443 for https). */
function withDefaultPort(scheme: string, host: string, port: string): string {
  return joinHostPort(host, port || (scheme === 'https' ? '443' : '80'));
}

/** pod.ResourceLocation (pods/proxy): the pod's first IP, which must be a global unicast address, and a port. */
export async function podProxyLocation(get: CoreObjectGetter, namespace: string, id: string): Promise<BackendLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = await getPod(get, namespace, parsed.name);
  let port = parsed.port;
  if (!port) {
    for (const c of list(field(pod, 'spec', 'containers'))) {
      const ports = list(c['ports']);
      if (ports.length) {
        port = String(ports[0]!['containerPort'] ?? '');
        break;
      }
    }
  }
  const podIP = String(list(field(pod, 'status', 'podIPs'))[0]?.['ip'] ?? '');
  if (!isGlobalUnicast(podIP)) throw newBadRequest('address not allowed');
  const scheme = parsed.scheme || 'http';
  return { scheme, hostPort: withDefaultPort(scheme, podIP, port), pathAndQuery: '' };
}

/** The node ResourceLocation (nodes/proxy): the kubelet, or another port of the node's address. */
export async function nodeProxyLocation(get: CoreObjectGetter, id: string): Promise<BackendLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid node request ${JSON.stringify(id)}`);
  const info = await nodeConnectionInfo(get, parsed.name);
  // isProxyableHostname: a name is resolved first (no node name resolves here), then every address must be one the apiserver may dial.
  if (!/^[\d.]+$/.test(info.host) && !info.host.includes(':')) throw newBadRequest(`lookup ${info.host}: no such host`);
  if (!isGlobalUnicast(info.host)) throw newBadRequest('address not allowed');
  if (!parsed.port || parsed.port === info.port) return { scheme: info.scheme, hostPort: joinHostPort(info.host, info.port), pathAndQuery: '' };
  const scheme = parsed.scheme || 'http';
  return { scheme, hostPort: joinHostPort(info.host, parsed.port), pathAndQuery: '' };
}

/**
 * The service ResourceLocation (services/proxy): a numeric port names the
 * service port, then a ready address of the service's Endpoints whose pod
 * still has that IP. No Endpoints object is its 404; none usable is 503.
 */
export async function serviceProxyLocation(get: CoreObjectGetter, namespace: string, id: string): Promise<BackendLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid service request ${JSON.stringify(id)}`);
  const { name } = parsed;
  let portName = parsed.port;
  if (/^[-+]?\d+$/.test(portName)) {
    const svc = await get('services', namespace, name);
    if (!svc) throw newNotFound({ group: '', resource: 'services' }, name);
    const wanted = Number(portName);
    const found = list(field(svc, 'spec', 'ports')).find((p) => p['port'] === wanted);
    if (!found) throw newServiceUnavailable(`no service port ${wanted} found for service ${JSON.stringify(name)}`);
    portName = String(found['name'] ?? '');
  }
  const eps = await get('endpoints', namespace, name);
  if (!eps) throw newNotFound({ group: '', resource: 'endpoints' }, name);
  const subsets = list(eps['subsets']);
  if (subsets.length === 0) throw newServiceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
  for (const ss of subsets) {
    const addresses = list(ss['addresses']);
    if (!addresses.length) continue;
    for (const p of list(ss['ports'])) {
      if (String(p['name'] ?? '') !== portName) continue;
      for (const addr of addresses) {
        // isValidAddress: the address names a pod in this namespace that still has the IP.
        const ref = isObject(addr['targetRef']) ? addr['targetRef'] : undefined;
        if (!ref || ref['namespace'] !== namespace) continue;
        const pod = await get('pods', namespace, String(ref['name'] ?? ''));
        if (!pod || !list(field(pod, 'status', 'podIPs')).some((ip) => ip['ip'] === addr['ip'])) continue;
        return { scheme: parsed.scheme || 'http', hostPort: joinHostPort(String(addr['ip']), String(p['port'] ?? '')), pathAndQuery: '' };
      }
    }
  }
  throw newServiceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
}

/**
 * What kube-apiserver answers once it dials a location nothing listens at
 * (kubesim dials nothing: no kubelet serves a node and no pod has a network).
 */
export function unreachableBackend(kind: 'log' | 'upgrade' | 'proxy', loc: BackendLocation): StatusError {
  // An address is refused; a name (a Hostname address) does not resolve.
  const host = loc.hostPort.startsWith('[') ? '' : loc.hostPort.slice(0, loc.hostPort.lastIndexOf(':'));
  const dial = host && !/^[\d.]+$/.test(host) ? `dial tcp: lookup ${host}: no such host` : `dial tcp ${loc.hostPort}: connect: connection refused`;
  switch (kind) {
    // LocationStreamer: http.Client.Do's url.Error.
    case 'log':
      return unknownServerError(`Get "${loc.scheme}://${loc.hostPort}${loc.pathAndQuery}": ${dial}`);
    // UpgradeAwareHandler.DialForUpgrade.
    case 'upgrade':
      return unknownServerError(`error dialing backend: ${dial}`);
    // The proxy transport's RoundTrip.
    case 'proxy':
      return newServiceUnavailable(`error trying to reach service: ${dial}`);
  }
}
