/**
 * What a running container of a simulated pod sees: its environment as the
 * kubelet builds it (makeEnvironmentVariables) and the files its volume
 * mounts give it (the kubelet's volume plugins and atomic writer), plus the
 * files every container gets (/etc/hosts, /etc/hostname, /etc/resolv.conf,
 * /dev/termination-log) and a small image around them. `kubectl exec` runs
 * its programs (containerExec.ts) against this view.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { parseQuantity, type Quantity } from '../api/quantity';
import type { CoreObjectGetter } from '../registry/core/podLocation';
import { nodeCapacity } from './nodes';
import { imageFor, type SimulatedImage } from './image';
import type { ClusterNetwork, PodNetwork } from './clusterNetwork';
import { clusterDnsIP, clusterDomain } from './clusterDns';
import { atomicLayout } from './atomicWriter';
import { containerLimit } from './containerResources';
import { nodeFilesVolume } from './containerFiles';
import { osRelease } from './packageTools';
import { cgroupFiles, meminfo } from './cgroupFiles';
import { mountTable, processSecurity, type MountEntry, type ProcessSecurity } from './procFs';

type Obj = Record<string, unknown>;

/** A file's bytes and mode, a directory, or a symlink (its mode always 0777, as Linux shows it). */
export type FsEntry = { type: 'file'; content: Uint8Array; mode: number } | { type: 'dir'; mode: number } | { type: 'link'; target: string; mode: number };

export interface ContainerView {
  container: string;
  /** The process environment, in the order `env` prints it. */
  env: [string, string][];
  /** Every path (absolute, no trailing slash; `/` for the root). */
  files: Map<string, FsEntry>;
  hostname: string;
  uid: number;
  gid: number;
  groups: number[];
  workingDir: string;
  /** The container's image: its tools and its own programs. */
  image: SimulatedImage;
  /** Its place in the cluster network (absent where no network is simulated). */
  network?: PodNetwork;
  /** Its volume mounts: a shared volume's files are not in `files` but in the volume's (containerFiles.ts). */
  mounts?: VolumeMount[];
  /** memory.max of its cgroup: the container's memory limit in bytes (absent: none), which the kernel's OOM killer enforces. */
  memoryLimitBytes?: number;
  /** Its /proc/mounts (procFs.ts). */
  mountTable?: readonly MountEntry[];
  /** The capabilities, no_new_privs and seccomp its processes run with (/proc/<pid>/status). */
  security?: ProcessSecurity;
}

/** The container's memory limit in bytes, rounded up as the kubelet sets memory.max. */
function memoryLimitOf(container: Record<string, unknown>): number | undefined {
  const bytes = containerLimit(container, 'memory');
  return bytes === undefined ? undefined : Number(bytes);
}

/**
 * A volume mounted in the container. A shared volume names its files: an
 * emptyDir the pod's (`emptyDir/<pod uid>/<volume>`), a claim its bound
 * PersistentVolume's (`pv/<name>`), a hostPath the node's (`node/<node>`,
 * its path in `subPath`); any other volume's files are in the view's files, read-only.
 */
export interface VolumeMount {
  path: string;
  volume?: string;
  /** The volume's directory mounted (normalized, no leading slash; '' for all of it). */
  subPath: string;
  readOnly: boolean;
  /**
   * A volume the kubelet writes (configMap, secret, downwardAPI, projected):
   * its first files are the view's under `path`, in the atomic writer's
   * layout (atomicWriter.ts); the kubelet rewrites them as their sources
   * change (volumeRefresh.ts).
   */
  seeded?: boolean;
}

/** What the kubelet reads from the API server to build the view. */
export interface ContainerViewSource {
  get: CoreObjectGetter;
  /** Services of a namespace (the kubelet's service informer). */
  listServices(namespace: string): Promise<KubeObject[]>;
  /** A TokenRequest for the pod's service account bound to the pod, as the kubelet's token manager makes it. */
  serviceAccountToken(pod: KubeObject, audience: string | undefined, expirationSeconds: number): Promise<string>;
  /** The cluster network the container's processes connect through. */
  network?: ClusterNetwork;
}

/** What a typical image sets (docker's default PATH). */
export const imagePath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The programs an image kubesim does not know has (containerTools.ts's tools, and sh and bash). */
export const imagePrograms = ['[', 'basename', 'bash', 'cat', 'chmod', 'cp', 'curl', 'cut', 'date', 'df', 'dig', 'dirname', 'echo', 'env', 'expr', 'false', 'find', 'free', 'grep', 'head', 'hostname', 'httpd', 'id', 'ifconfig', 'ip', 'kill', 'ls', 'md5sum', 'mkdir', 'mount', 'mv', 'nc', 'nproc', 'netstat', 'nslookup', 'ping', 'printenv', 'printf', 'ps', 'pwd', 'readlink', 'rm', 'sed', 'seq', 'sh', 'sha1sum', 'sha256sum', 'sha512sum', 'sleep', 'sort', 'tail', 'tar', 'tee', 'test', 'touch', 'tr', 'true', 'uname', 'uniq', 'wc', 'wget', 'which', 'whoami', 'yes'];

const encoder = new TextEncoder();
const text = (s: string): Uint8Array => encoder.encode(s);
const fromBase64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The pod's hostname: the node's on the host network, else spec.hostname, else its name cut to 63 characters (GeneratePodHostNameAndDomain). */
export function podHostname(pod: KubeObject): string {
  // On the host's network the pod has the node's UTS namespace too: the node's hostname (its name, here).
  if (field(pod, 'spec', 'hostNetwork') === true && str(field(pod, 'spec', 'nodeName'))) return str(field(pod, 'spec', 'nodeName'));
  const h = str(field(pod, 'spec', 'hostname'));
  if (h) return h;
  return (pod.metadata.name ?? '').slice(0, 63).replace(/[-.]+$/, '');
}

/** Go's %q for the ASCII the API's keys and most values are. */
const goQuote = (s: string): string => JSON.stringify(s).replace(/\u2028|\u2029/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));

/** fieldpath.FormatMap: `key="value"` lines sorted by key, no final newline. */
function formatMap(m: unknown): string {
  const o = isObject(m) ? (m as Record<string, string>) : {};
  return Object.keys(o).sort().map((k) => `${k}=${goQuote(String(o[k]))}`).join('\n');
}

/** fieldpath.ExtractFieldPathAsString plus the status fields the kubelet resolves for env (podFieldSelectorRuntimeValue). */
function fieldRefValue(pod: KubeObject, path: string): string {
  const sub = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (sub) return str(field(pod, 'metadata', sub[1]!, sub[2]!));
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
    case 'spec.nodeName':
      return str(field(pod, 'spec', 'nodeName'));
    case 'spec.serviceAccountName':
      return str(field(pod, 'spec', 'serviceAccountName'));
    case 'status.hostIP':
      return str(field(pod, 'status', 'hostIP'));
    case 'status.hostIPs':
      return objectsOf(field(pod, 'status', 'hostIPs')).map((i) => str(i['ip'])).join(',');
    case 'status.podIP':
      return str(field(pod, 'status', 'podIP'));
    case 'status.podIPs':
      return objectsOf(field(pod, 'status', 'podIPs')).map((i) => str(i['ip'])).join(',');
    default:
      return '';
  }
}

/** A quantity as an exact fraction n/d. */
const fraction = (q: Quantity): [bigint, bigint] => (q.scale >= 0 ? [q.unscaled * 10n ** BigInt(q.scale), 1n] : [q.unscaled, 10n ** BigInt(-q.scale)]);

/**
 * resource.ExtractContainerResourceValue: the container's request or limit
 * over the divisor, rounded up; an unset limit is the node's allocatable
 * (MergeContainerResourceLimits), an unset request 0.
 */
function resourceFieldValue(containers: Obj[], ref: Obj, defaultContainer: string): string {
  const name = str(ref['containerName']) || defaultContainer;
  const c = containers.find((x) => x['name'] === name);
  const [kind, res = ''] = str(ref['resource']).split('.', 2) as [string, string | undefined];
  const divisor = parseQuantity(ref['divisor'] ?? '1') ?? parseQuantity('1')!;
  const q = kind === 'limits' ? parseQuantity(field(c, 'resources', 'limits', res)) ?? parseQuantity(nodeCapacity[res]) : parseQuantity(field(c, 'resources', 'requests', res));
  if (!q) return '0';
  const [n1, d1] = fraction(q);
  const [n2, d2] = fraction(divisor);
  const num = n1 * d2;
  const den = d1 * n2 || 1n;
  return String(num / den + (num % den > 0n ? 1n : 0n));
}

/** makeEnvVariableName: upper case, dashes to underscores. */
const envName = (s: string) => s.toUpperCase().replace(/-/g, '_');

const serviceIPSet = (svc: KubeObject) => {
  const ip = str(field(svc, 'spec', 'clusterIP'));
  return ip !== '' && ip !== 'None';
};

/** envvars.FromServices: the `_SERVICE_HOST`/`_SERVICE_PORT` variables and Docker's link variables of each service. */
export function serviceEnvVars(services: KubeObject[]): [string, string][] {
  const out: [string, string][] = [];
  for (const svc of services) {
    if (!serviceIPSet(svc)) continue;
    const ports = objectsOf(field(svc, 'spec', 'ports'));
    if (!ports.length) continue;
    const ip = str(field(svc, 'spec', 'clusterIP'));
    const prefix = envName(svc.metadata.name ?? '');
    out.push([`${prefix}_SERVICE_HOST`, ip], [`${prefix}_SERVICE_PORT`, String(ports[0]!['port'])]);
    for (const p of ports) if (str(p['name'])) out.push([`${prefix}_SERVICE_PORT_${envName(str(p['name']))}`, String(p['port'])]);
    const hostPort = (port: unknown) => (ip.includes(':') ? `[${ip}]:${String(port)}` : `${ip}:${String(port)}`);
    ports.forEach((p, i) => {
      const protocol = str(p['protocol']) || 'TCP';
      const url = `${protocol.toLowerCase()}://${hostPort(p['port'])}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const portPrefix = `${prefix}_PORT_${String(p['port'])}_${protocol.toUpperCase()}`;
      out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(p['port'])], [`${portPrefix}_ADDR`, ip]);
    });
  }
  return out;
}

/** expansion.Expand: `$(VAR)` from the variables so far, `$$` an escaped `$`; an unknown reference stays as written. */
export function expandEnv(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c !== '$' || i + 1 >= input.length) {
      out += c;
      continue;
    }
    const next = input[i + 1]!;
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const end = input.indexOf(')', i + 2);
      if (end < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, end);
      const value = lookup(name);
      out += value ?? `$(${name})`;
      i = end;
    } else {
      out += '$' + next;
      i++;
    }
  }
  return out;
}

/** Reads a ConfigMap's or Secret's key/value pairs as bytes (Secrets and binaryData are base64 in JSON). */
async function sourceData(src: Pick<ContainerViewSource, 'get'>, namespace: string, kind: 'configmaps' | 'secrets', name: string): Promise<Map<string, Uint8Array> | undefined> {
  const obj = await src.get(kind, namespace, name);
  if (!obj) return undefined;
  const out = new Map<string, Uint8Array>();
  const data = isObject(obj['data']) ? obj['data'] : {};
  for (const [k, v] of Object.entries(data)) out.set(k, kind === 'secrets' ? fromBase64(String(v)) : text(String(v)));
  if (kind === 'configmaps' && isObject(obj['binaryData'])) for (const [k, v] of Object.entries(obj['binaryData'])) out.set(k, fromBase64(String(v)));
  return out;
}

const decoder = new TextDecoder();

/**
 * makeEnvironmentVariables: envFrom, then env (each `$(VAR)` expanded from
 * those before it and the service variables), over the service variables of
 * the pod's namespace (when enableServiceLinks is not false) and the
 * `kubernetes` Service of `default`; services created after the container
 * started are not in its environment.
 */
async function containerEnv(src: ContainerViewSource, pod: KubeObject, container: Obj, startedAt: string): Promise<[string, string][]> {
  const ns = pod.metadata.namespace ?? '';
  const existedAtStart = (s: KubeObject) => !startedAt || (s.metadata.creationTimestamp ?? '') <= startedAt;
  const master = (await src.get('services', 'default', 'kubernetes')) as KubeObject | undefined;
  const enableServiceLinks = field(pod, 'spec', 'enableServiceLinks') !== false;
  const local = enableServiceLinks ? (await src.listServices(ns)).filter(existedAtStart) : [];
  const services = [...local.filter((s) => !(ns === 'default' && s.metadata.name === 'kubernetes'))];
  if (master && existedAtStart(master) && !services.some((s) => s.metadata.name === 'kubernetes')) services.push(master);
  services.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const serviceEnv = new Map(serviceEnvVars(services));

  const declared = new Map<string, string>();
  for (const from of objectsOf(container['envFrom'])) {
    const prefix = str(from['prefix']);
    const ref = isObject(from['configMapRef']) ? from['configMapRef'] : isObject(from['secretRef']) ? from['secretRef'] : undefined;
    if (!ref) continue;
    const data = await sourceData(src, ns, isObject(from['configMapRef']) ? 'configmaps' : 'secrets', str(ref['name']));
    for (const [k, v] of data ?? []) declared.set(prefix + k, decoder.decode(v));
  }
  const containers = objectsOf(field(pod, 'spec', 'containers'));
  for (const e of objectsOf(container['env'])) {
    const name = str(e['name']);
    let value = str(e['value']);
    if (value) value = expandEnv(value, (n) => declared.get(n) ?? serviceEnv.get(n));
    else if (isObject(e['valueFrom'])) {
      const vf = e['valueFrom'];
      if (isObject(vf['fieldRef'])) value = fieldRefValue(pod, str(vf['fieldRef']['fieldPath']));
      else if (isObject(vf['resourceFieldRef'])) value = resourceFieldValue(containers, vf['resourceFieldRef'], str(container['name']));
      else {
        const keyRef = isObject(vf['configMapKeyRef']) ? vf['configMapKeyRef'] : isObject(vf['secretKeyRef']) ? vf['secretKeyRef'] : undefined;
        if (!keyRef) continue;
        const data = await sourceData(src, ns, isObject(vf['configMapKeyRef']) ? 'configmaps' : 'secrets', str(keyRef['name']));
        const bytes = data?.get(str(keyRef['key']));
        // An optional reference to a missing object or key sets nothing.
        if (!bytes) continue;
        value = decoder.decode(bytes);
      }
    }
    declared.set(name, value);
  }
  for (const [k, v] of declared) serviceEnv.set(k, v);
  return [...serviceEnv];
}

export interface MountedFile {
  path: string;
  content: Uint8Array;
  mode: number;
  /** A token file written without asking for a token: the one already there stays (the token manager renews it on its own schedule). */
  keep?: boolean;
}

/** The shared files of a volume the kubelet writes, mounted whole: the pod's, as the volume's directory under the pod's. */
export const kubeletVolumeName = (pod: KubeObject, volume: string): string => `pod/${pod.metadata.uid ?? ''}/${volume}`;

/** What volumeFiles reads: the API objects, and tokens (without them a token file is marked `keep`). */
export type VolumeFilesSource = Pick<ContainerViewSource, 'get'> & Partial<Pick<ContainerViewSource, 'serviceAccountToken'>>;

/** Whether the kubelet writes the volume's files (atomic writer) rather than mounting shared ones. */
export const isKubeletWritten = (volume: Obj): boolean => ['configMap', 'secret', 'downwardAPI', 'projected'].some((k) => isObject(volume[k]));

/** The directory of a volume the kubelet writes: a configMap's an emptyDir on disk (0777), the others' on tmpfs (Medium: Memory), whose root is 1777. */
const kubeletVolumeRootMode = (volume: Obj): number => (isObject(volume['configMap']) ? 0o777 : 0o1777);

/** keyToPath: the items chosen (in their order, with their paths and modes) or every key. */
function projectKeys(data: Map<string, Uint8Array>, items: Obj[], mode: number): MountedFile[] {
  if (!items.length) return [...data].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => ({ path: k, content: v, mode }));
  return items.flatMap((i) => {
    const v = data.get(str(i['key']));
    return v ? [{ path: str(i['path']), content: v, mode: typeof i['mode'] === 'number' ? i['mode'] : mode }] : [];
  });
}

/** The downwardAPI items: fieldRef and resourceFieldRef values as files. */
function downwardFiles(pod: KubeObject, items: Obj[], mode: number, containers: Obj[]): MountedFile[] {
  return items.map((i) => {
    const value = isObject(i['fieldRef']) ? fieldRefValue(pod, str(i['fieldRef']['fieldPath'])) : isObject(i['resourceFieldRef']) ? resourceFieldValue(containers, i['resourceFieldRef'], '') : '';
    return { path: str(i['path']), content: text(value), mode: typeof i['mode'] === 'number' ? i['mode'] : mode };
  });
}

/** The files the kubelet writes into a volume (a missing ConfigMap or Secret has none). */
export async function volumeFiles(src: VolumeFilesSource, pod: KubeObject, volume: Obj): Promise<MountedFile[]> {
  const ns = pod.metadata.namespace ?? '';
  const containers = [...objectsOf(field(pod, 'spec', 'initContainers')), ...objectsOf(field(pod, 'spec', 'containers'))];
  const modeOf = (v: Obj) => (typeof v['defaultMode'] === 'number' ? v['defaultMode'] : 0o644);
  if (isObject(volume['configMap'])) {
    const v = volume['configMap'];
    return projectKeys((await sourceData(src, ns, 'configmaps', str(v['name']))) ?? new Map(), objectsOf(v['items']), modeOf(v));
  }
  if (isObject(volume['secret'])) {
    const v = volume['secret'];
    return projectKeys((await sourceData(src, ns, 'secrets', str(v['secretName']))) ?? new Map(), objectsOf(v['items']), modeOf(v));
  }
  if (isObject(volume['downwardAPI'])) {
    const v = volume['downwardAPI'];
    return downwardFiles(pod, objectsOf(v['items']), modeOf(v), containers);
  }
  if (isObject(volume['projected'])) {
    const v = volume['projected'];
    const mode = modeOf(v);
    const out: MountedFile[] = [];
    for (const s of objectsOf(v['sources'])) {
      if (isObject(s['configMap'])) out.push(...projectKeys((await sourceData(src, ns, 'configmaps', str(s['configMap']['name']))) ?? new Map(), objectsOf(s['configMap']['items']), mode));
      else if (isObject(s['secret'])) out.push(...projectKeys((await sourceData(src, ns, 'secrets', str(s['secret']['name']))) ?? new Map(), objectsOf(s['secret']['items']), mode));
      else if (isObject(s['downwardAPI'])) out.push(...downwardFiles(pod, objectsOf(s['downwardAPI']['items']), mode, containers));
      else if (isObject(s['serviceAccountToken'])) {
        const t = s['serviceAccountToken'];
        const audience = str(t['audience']) || undefined;
        const expirationSeconds = typeof t['expirationSeconds'] === 'number' ? t['expirationSeconds'] : 3600;
        if (!src.serviceAccountToken) out.push({ path: str(t['path']), content: new Uint8Array(), mode, keep: true });
        else out.push({ path: str(t['path']), content: text(await src.serviceAccountToken(pod, audience, expirationSeconds)), mode });
      }
    }
    return out;
  }
  return [];
}

/**
 * The shared files a volume stands for, and the directory of them it is
 * (no leading slash; '' for all of them), or undefined when the kubelet
 * writes its files (read-only). A hostPath, a hostPath PersistentVolume's
 * among them, is a directory of its node's files: pods on one node share
 * them, and a node debugging pod's `/host` shows them all.
 */
async function sharedVolume(src: ContainerViewSource, pod: KubeObject, volume: Obj): Promise<{ volume: string; dir: string } | undefined> {
  const ns = pod.metadata.namespace ?? '';
  const name = str(volume['name']);
  const node = str(field(pod, 'spec', 'nodeName'));
  if (isObject(volume['emptyDir'])) return { volume: `emptyDir/${pod.metadata.uid ?? ''}/${name}`, dir: '' };
  if (isObject(volume['hostPath'])) return { volume: nodeFilesVolume(node), dir: normalizePath(str(volume['hostPath']['path'])).slice(1) };
  // A generic ephemeral volume's claim is named after the pod and the volume.
  const claim = isObject(volume['persistentVolumeClaim']) ? str(volume['persistentVolumeClaim']['claimName']) : isObject(volume['ephemeral']) ? `${pod.metadata.name ?? ''}-${name}` : undefined;
  if (claim === undefined) return undefined;
  const pvc = await src.get('persistentvolumeclaims', ns, claim);
  const pv = str(field(pvc, 'spec', 'volumeName'));
  if (!pv) return { volume: `pvc/${ns}/${claim}`, dir: '' };
  const hostPath = field(await src.get('persistentvolumes', '', pv), 'spec', 'hostPath');
  return isObject(hostPath) ? { volume: nodeFilesVolume(node), dir: normalizePath(str(hostPath['path'])).slice(1) } : { volume: `pv/${pv}`, dir: '' };
}

function normalizePath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** The top-level directories of a distribution's root beyond those every container has (Debian's and Ubuntu's merged /usr links shown as directories). */
const debianRootDirs = ['/boot', '/lib', '/lib64', '/media', '/mnt', '/opt', '/run', '/sbin', '/srv'];
const rootDirs: Record<string, readonly string[]> = { debian: debianRootDirs, ubuntu: debianRootDirs, alpine: ['/lib', '/media', '/mnt', '/opt', '/run', '/sbin', '/srv'] };

/** Adds a directory and its parents. */
function addDir(files: Map<string, FsEntry>, path: string, mode = 0o755): void {
  for (let p = normalizePath(path); ; p = p.slice(0, p.lastIndexOf('/')) || '/') {
    if (!files.has(p)) files.set(p, { type: 'dir', mode: p === '/tmp' ? 0o1777 : mode });
    if (p === '/') break;
  }
}

function addFile(files: Map<string, FsEntry>, path: string, content: Uint8Array, mode = 0o644): void {
  const p = normalizePath(path);
  addDir(files, p.slice(0, p.lastIndexOf('/')) || '/');
  files.set(p, { type: 'file', content, mode });
}

/** The kubelet-managed /etc/hosts (managedHostsFileContent). */
function hostsFile(pod: KubeObject, hostname: string): string {
  const lines = [field(pod, 'spec', 'hostNetwork') === true ? '# Kubernetes-managed hosts file (host network).' : '# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', 'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters'];
  const subdomain = str(field(pod, 'spec', 'subdomain'));
  const fqdn = subdomain ? `${hostname}.${subdomain}.${pod.metadata.namespace ?? ''}.svc.${clusterDomain}` : '';
  for (const ip of objectsOf(field(pod, 'status', 'podIPs'))) lines.push(fqdn ? `${str(ip['ip'])}\t${fqdn}\t${hostname}` : `${str(ip['ip'])}\t${hostname}`);
  const aliases = objectsOf(field(pod, 'spec', 'hostAliases'));
  if (aliases.length) {
    lines.push('', '# Entries added by HostAliases.');
    for (const a of aliases) lines.push(`${str(a['ip'])}\t${(Array.isArray(a['hostnames']) ? a['hostnames'] : []).join('\t')}`);
  }
  return lines.join('\n') + '\n';
}

/** What the kubelet forms for a pod's resolv.conf (GetPodDNS), and whether nameservers past three were left out. */
export interface PodDnsConfig {
  servers: string[];
  searches: string[];
  options: [name: string, value: string | undefined][];
  trimmed: boolean;
}

/**
 * The pod's DNS configuration: its dnsPolicy's (ClusterFirst by default)
 * with its dnsConfig appended as the kubelet does (appendDNSConfig:
 * nameservers and searches added without duplicates, options merged by
 * name, the pod's winning), three nameservers at most (MaxDNSNameservers,
 * as the resolver reads no more).
 */
export function podDnsConfig(pod: KubeObject): PodDnsConfig {
  const policy = str(field(pod, 'spec', 'dnsPolicy')) || 'ClusterFirst';
  const ns = pod.metadata.namespace ?? '';
  const cfg = field(pod, 'spec', 'dnsConfig');
  const list = (k: string) => (Array.isArray(field(cfg, k)) ? (field(cfg, k) as unknown[]).map(String) : []);
  let servers: string[];
  let searches: string[] = [];
  const options: [string, string | undefined][] = [];
  if (policy === 'ClusterFirst' || (policy === 'ClusterFirstWithHostNet' && field(pod, 'spec', 'hostNetwork') === true)) {
    servers = [clusterDnsIP];
    searches = [`${ns}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain];
    options.push(['ndots', '5']);
  } else if (policy === 'None') servers = [];
  // Default (and ClusterFirst on the host network): the node's resolv.conf.
  else servers = ['172.18.0.1'];
  servers = [...new Set([...servers, ...list('nameservers')])];
  searches = [...new Set([...searches, ...list('searches')])];
  for (const o of objectsOf(field(cfg, 'options'))) {
    const name = str(o['name']);
    const value = o['value'] === undefined ? undefined : str(o['value']);
    const at = options.findIndex(([n]) => n === name);
    if (at >= 0) options[at] = [name, value];
    else options.push([name, value]);
  }
  return { servers: servers.slice(0, 3), searches, options, trimmed: servers.length > 3 };
}

/** resolv.conf as containerd writes the pod's DNS configuration: search, nameserver, options. */
function resolvConf(pod: KubeObject): string {
  const { servers, searches, options } = podDnsConfig(pod);
  const lines = [];
  if (searches.length) lines.push(`search ${searches.join(' ')}`);
  for (const n of servers) lines.push(`nameserver ${n}`);
  if (options.length) lines.push(`options ${options.map(([n, v]) => (v === undefined ? n : `${n}:${v}`)).join(' ')}`);
  return lines.join('\n') + (lines.length ? '\n' : '');
}

/** Every container's spec, init containers first (podutil.VisitContainers). */
export function podContainers(pod: KubeObject): Obj[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) => objectsOf(field(pod, 'spec', k)));
}

/** The named container's status, whichever of the pod's lists it is in. */
export function podContainerStatus(pod: KubeObject, name: string): Obj | undefined {
  for (const k of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const s = objectsOf(field(pod, 'status', k)).find((c) => c['name'] === name);
    if (s) return s;
  }
  return undefined;
}

/** The named container's status when it is running (its state.running.startedAt), else undefined. */
export function runningContainer(pod: KubeObject, name: string): { startedAt: string } | undefined {
  const running = field(podContainerStatus(pod, name), 'state', 'running');
  return isObject(running) ? { startedAt: str(running['startedAt']) } : undefined;
}

/** The running container's view; `tty` adds the TERM the runtime sets for a terminal. */
export async function containerView(src: ContainerViewSource, pod: KubeObject, name: string, opts: { tty?: boolean; startedAt?: string } = {}): Promise<ContainerView> {
  const container = podContainers(pod).find((c) => c['name'] === name) ?? {};
  const hostname = podHostname(pod);
  const podSC = isObject(field(pod, 'spec', 'securityContext')) ? (field(pod, 'spec', 'securityContext') as Obj) : {};
  const sc = isObject(container['securityContext']) ? container['securityContext'] : {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const image = imageFor(str(container['image']));
  const uid = num(sc['runAsUser']) ?? num(podSC['runAsUser']) ?? image.user ?? 0;
  const gid = num(sc['runAsGroup']) ?? num(podSC['runAsGroup']) ?? 0;
  const supplemental = Array.isArray(podSC['supplementalGroups']) ? podSC['supplementalGroups'].filter((g): g is number => typeof g === 'number') : [];
  // The kernel keeps a process's groups sorted (groups_sort), as `id` then lists them.
  const groups = [...new Set([gid, ...(num(podSC['fsGroup']) !== undefined ? [num(podSC['fsGroup'])!] : []), ...supplemental])].sort((a, b) => a - b);

  const files = new Map<string, FsEntry>();
  for (const d of ['/bin', '/dev', '/dev/pts', '/etc', '/home', '/proc', '/root', '/sys', '/tmp', '/usr/bin', '/usr/local/bin', '/var']) addDir(files, d, d === '/root' ? 0o700 : 0o755);
  // The runtime's shared memory and message queue mounts (/proc/mounts).
  for (const d of ['/dev/shm', '/dev/mqueue']) addDir(files, d, 0o1777);
  // The rest of the distribution's root, as `ls /` shows it.
  for (const d of rootDirs[image.os?.id ?? ''] ?? []) addDir(files, d);
  for (const p of image.tools ?? imagePrograms) addFile(files, `/bin/${p}`, new Uint8Array(), 0o755);
  for (const p of image.programs.keys()) addFile(files, p, new Uint8Array(), 0o755);
  if (image.os) addFile(files, '/etc/os-release', text(osRelease(image.os)));
  // The container's cgroup (its limits) and the kernel's view of the node.
  for (const [p, content] of cgroupFiles(container)) addFile(files, p, text(content));
  addFile(files, '/proc/meminfo', text(meminfo()), 0o444);
  for (const [p, content] of image.files ?? []) addFile(files, p, text(content));
  addFile(files, '/etc/hosts', text(hostsFile(pod, hostname)));
  addFile(files, '/etc/hostname', text(hostname + '\n'));
  addFile(files, '/etc/resolv.conf', text(resolvConf(pod)));
  addFile(files, str(container['terminationMessagePath']) || '/dev/termination-log', new Uint8Array(), 0o666);

  const volumes = new Map(objectsOf(field(pod, 'spec', 'volumes')).map((v) => [str(v['name']), v]));
  const mounts: VolumeMount[] = [];
  for (const m of objectsOf(container['volumeMounts'])) {
    const mountPath = normalizePath(str(m['mountPath']));
    const volume = volumes.get(str(m['name']));
    if (!volume) continue;
    const subPath = str(m['subPath']) ? normalizePath(str(m['subPath'])).slice(1) : '';
    // A remount hides what the image had at that path.
    for (const p of [...files.keys()]) if (p === mountPath || p.startsWith(mountPath + '/')) files.delete(p);
    const shared = await sharedVolume(src, pod, volume);
    if (shared !== undefined) {
      // The mount point's parents are the layer's; its files are the volume's.
      addDir(files, mountPath.slice(0, mountPath.lastIndexOf('/')) || '/');
      mounts.push({ path: mountPath, volume: shared.volume, subPath: [shared.dir, subPath].filter(Boolean).join('/'), readOnly: m['readOnly'] === true });
      continue;
    }
    // The kubelet's atomic writer mounts these read-only, whatever the mount says.
    mounts.push({ path: mountPath, subPath, readOnly: true });
    const mounted = await volumeFiles(src, pod, volume);
    if (subPath) {
      const exact = mounted.find((f) => normalizePath(f.path).slice(1) === subPath);
      if (exact) addFile(files, mountPath, exact.content, exact.mode);
      else {
        // A directory of the volume (created empty when absent, as the kubelet does).
        addDir(files, mountPath, 0o777);
        for (const f of mounted) {
          const rel = normalizePath(f.path).slice(1);
          if (rel.startsWith(subPath + '/')) addFile(files, `${mountPath}/${rel.slice(subPath.length + 1)}`, f.content, f.mode);
        }
      }
      continue;
    }
    // Mounted whole, the volume's files are the pod's (every container mounting it shares them) and follow their sources:
    // the atomic writer's layout, first written when the container mounts it.
    const written = kubeletVolumeName(pod, str(m['name']));
    mounts[mounts.length - 1] = { path: mountPath, volume: written, subPath, readOnly: true, seeded: true };
    addDir(files, mountPath.slice(0, mountPath.lastIndexOf('/')) || '/');
    for (const [p, e] of atomicLayout(mounted, Date.parse(opts.startedAt ?? '') || 0, written, kubeletVolumeRootMode(volume))) files.set(p === '/' ? mountPath : mountPath + p, e);
  }

  // The image's Env first (its PATH replacing the default), then the runtime's, then the container's.
  const env: [string, string][] = [['PATH', image.env.find(([k]) => k === 'PATH')?.[1] ?? imagePath], ['HOSTNAME', hostname]];
  if (opts.tty) env.push(['TERM', 'xterm']);
  for (const [k, v] of image.env) if (k !== 'PATH') env.push([k, v]);
  for (const [k, v] of await containerEnv(src, pod, container, opts.startedAt ?? '')) {
    const at = env.findIndex(([n]) => n === k);
    if (at >= 0) env[at] = [k, v];
    else env.push([k, v]);
  }
  if (!env.some(([k]) => k === 'HOME')) env.push(['HOME', uid === 0 ? '/root' : '/']);
  const podIP = str(field(pod, 'status', 'podIP'));
  const network: PodNetwork | undefined = src.network && {
    cluster: src.network,
    namespace: pod.metadata.namespace ?? '',
    podName: pod.metadata.name ?? '',
    podUID: pod.metadata.uid ?? '',
    container: name,
    startedAt: opts.startedAt ?? '',
    ...(podIP ? { podIP } : {}),
    ...(field(pod, 'spec', 'hostNetwork') === true ? { hostNetwork: true } : {}),
  };
  const memoryLimitBytes = memoryLimitOf(container);
  return { container: name, env, files, hostname, uid, gid, groups, workingDir: normalizePath(str(container['workingDir']) || image.workingDir || '/'), image, ...(network ? { network } : {}), ...(mounts.length ? { mounts } : {}), ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}), mountTable: mountTable(pod, container), security: processSecurity(pod, container) };
}
