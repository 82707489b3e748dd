/**
 * The cluster's DNS (CoreDNS's kubernetes plugin for `cluster.local`, with
 * kubeadm's `pods insecure`) and the resolver a container's libc runs over
 * it: /etc/hosts first, then the name through /etc/resolv.conf's search list
 * (tried first when the name has fewer dots than ndots, after it otherwise).
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import type { ClusterNetwork } from './clusterNetwork';
import type { FsEntry } from './containerView';
import { stringHash } from '../util/stringHash';

type Obj = Record<string, unknown>;

export const clusterDomain = 'cluster.local';
/** The kube-dns Service's ClusterIP, the nameserver the kubelets write into resolv.conf (kind's --cluster-dns). */
export const clusterDnsIP = '10.96.0.10';

/**
 * kubesim's own DNS server as NetworkPolicy sees it where no Service holds
 * clusterDnsIP (a cluster without kubeadm's CoreDNS add-on): a coredns pod
 * of kube-system as kubeadm labels them, k8s-app=kube-dns, with their named
 * ports (an egress rule allowing DNS names these, or port 53).
 */
export const clusterDnsPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'coredns', namespace: 'kube-system', uid: 'coredns', labels: { 'k8s-app': 'kube-dns' } },
  spec: { containers: [{ name: 'coredns', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' }, { name: 'metrics', containerPort: 9153, protocol: 'TCP' }] }] },
};

/**
 * The DNS servers a query to clusterDnsIP reaches through kube-proxy: the ready endpoints of the Service
 * holding that address (kubeadm's kube-dns, its coredns pods), none while it has none (CoreDNS scaled to
 * zero, or not ready yet); with no Service there, none while coredns pods run (kube-dns deleted: nothing
 * routes the address), else kubesim's own server (a cluster without the add-on), seen as clusterDnsPod.
 */
export function clusterDnsServers(net: ClusterNetwork): { ip: string; pod: KubeObject }[] {
  const svc = net.serviceByClusterIP(clusterDnsIP);
  if (!svc) return net.podsIn('kube-system').some((p) => p.metadata.labels?.['k8s-app'] === 'kube-dns') ? [] : [{ ip: clusterDnsIP, pod: clusterDnsPod }];
  return readyEndpoints(net, svc).flatMap(({ ip }) => {
    const pod = net.podByIP(ip);
    return pod ? [{ ip, pod }] : [];
  });
}

/** A name's length on the wire: each label with its length byte, then the root. */
export const wireLength = (name: string): number => name.split('.').filter(Boolean).reduce((n, l) => n + l.length + 1, 1);

/** A DNS question type the tools ask. */
export type DnsQuestionType = 'A' | 'AAAA' | 'PTR' | 'SRV';

/**
 * One question a pod asked the cluster DNS with its answer, as the CoreDNS pod that took it
 * sees the exchange (what its log plugin writes down).
 */
export interface DnsExchange {
  /** The asking pod's address. */
  from: string;
  qtype: DnsQuestionType;
  /** Without the root's dot. */
  qname: string;
  rcode: 'NOERROR' | 'NXDOMAIN';
  /** The answer section's size on the wire (CoreDNS writes each owner name out in full). */
  answerBytes: number;
  /** dig's EDNS0 (an OPT record with a cookie, a 1232-byte buffer); a libc or busybox resolver sends none. */
  edns: boolean;
}

/** A stable number for a question at its time (kube-proxy's pick of a server, the client's port and query id): the same question then gets the same. */
export const exchangeHash = (e: Pick<DnsExchange, 'from' | 'qtype' | 'qname'>, at: number): number => stringHash(`${e.from} ${e.qtype} ${e.qname}`, at);

/** The size of an answer's records on the wire: A 4 bytes of data, a name-valued record its target's. */
export function answerBytes(qname: string, qtype: DnsQuestionType, answer: DnsAnswer): number {
  if (answer.rcode === 'NXDOMAIN') return 0;
  const rr = (data: number) => wireLength(qname) + 10 + data;
  let n = answer.ptr ? rr(wireLength(answer.ptr)) : 0;
  if (answer.cname) n += rr(wireLength(answer.cname));
  if (qtype === 'A') n += answer.addresses.length * rr(4);
  return n;
}

/** Whether a lookup of the name leaves the pod (it is no address literal and not in /etc/hosts). */
export function asksDns(files: ReadonlyMap<string, FsEntry>, name: string): boolean {
  return !isIPv4(name) && !hostsLookup(files, name);
}

/** A DNS answer: NXDOMAIN, or NOERROR with addresses (none: NODATA) or a CNAME. */
export type DnsAnswer = { rcode: 'NXDOMAIN' } | { rcode: 'NOERROR'; addresses: string[]; cname?: string; ptr?: string };

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const nx: DnsAnswer = { rcode: 'NXDOMAIN' };
const found = (addresses: string[]): DnsAnswer => ({ rcode: 'NOERROR', addresses });

export const isIPv4 = (s: string): boolean => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((p) => Number(p) <= 255);

/** The ready endpoints of a Service (conditions.ready unset counts as ready), with their hostnames. */
export function readyEndpoints(net: ClusterNetwork, svc: KubeObject): { ip: string; hostname: string; slice: KubeObject; endpoint: Obj }[] {
  const out: { ip: string; hostname: string; slice: KubeObject; endpoint: Obj }[] = [];
  for (const slice of net.endpointSlices(svc.metadata.namespace ?? '', svc.metadata.name ?? '')) {
    if (str(slice['addressType']) !== 'IPv4') continue;
    for (const ep of objectsOf(slice['endpoints'])) {
      if (field(ep, 'conditions', 'ready') === false) continue;
      const ip = Array.isArray(ep['addresses']) ? String(ep['addresses'][0]) : '';
      if (ip) out.push({ ip, hostname: str(ep['hostname']), slice, endpoint: ep });
    }
  }
  return out;
}

const isHeadless = (svc: KubeObject) => field(svc, 'spec', 'clusterIP') === 'None';
const clusterIPv4s = (svc: KubeObject): string[] => {
  const ips = Array.isArray(field(svc, 'spec', 'clusterIPs')) ? (field(svc, 'spec', 'clusterIPs') as unknown[]).map(String) : [str(field(svc, 'spec', 'clusterIP'))];
  return ips.filter(isIPv4);
};

/** CoreDNS's answer to an A (or AAAA: every cluster address is IPv4 here) question. */
export function dnsQuery(net: ClusterNetwork, qname: string, type: 'A' | 'AAAA'): DnsAnswer {
  const name = qname.toLowerCase().replace(/\.$/, '');
  const zone = `.${clusterDomain}`;
  if (!name.endsWith(zone)) return nx;
  const labels = name.slice(0, -zone.length).split('.');
  const answer = (ips: string[]): DnsAnswer => found(type === 'A' ? ips : []);
  // <a-b-c-d>.<namespace>.pod: the address in the name, unchecked (pods insecure).
  if (labels.length === 3 && labels[2] === 'pod') {
    const ip = labels[0]!.replace(/-/g, '.');
    return isIPv4(ip) ? answer([ip]) : nx;
  }
  if (labels[labels.length - 1] !== 'svc') return nx;
  if (labels.length === 3) {
    const svc = net.service(labels[1]!, labels[0]!);
    if (!svc) return nx;
    if (field(svc, 'spec', 'type') === 'ExternalName') return { rcode: 'NOERROR', addresses: [], cname: str(field(svc, 'spec', 'externalName')).replace(/\.$/, '') };
    if (isHeadless(svc)) {
      const ips = readyEndpoints(net, svc).map((e) => e.ip);
      return ips.length ? answer(ips) : nx;
    }
    return answer(clusterIPv4s(svc));
  }
  if (labels.length === 4) {
    // <hostname>.<service>.<namespace>.svc: an endpoint named by its pod's hostname, or its address with dashes.
    const svc = net.service(labels[2]!, labels[1]!);
    if (!svc) return nx;
    const ips = readyEndpoints(net, svc).filter((e) => e.hostname === labels[0] || e.ip.replace(/\./g, '-') === labels[0]).map((e) => e.ip);
    return ips.length ? answer(ips) : nx;
  }
  return nx;
}

/** An SRV record: priority, weight, port and target (a name without its final dot). */
export interface SrvRecord {
  priority: number;
  weight: number;
  port: number;
  target: string;
}

/**
 * CoreDNS's answer to an SRV question, as the kubernetes plugin gives it:
 * `_<port>._<proto>.<service>.<namespace>.svc` for a named port (all ports
 * when the name is the Service's alone), the Service's name as the target,
 * or, for a headless Service, each ready endpoint's (its hostname or dashed
 * address under the Service) at the endpoint's port; the weight shares 100
 * between the records.
 */
export function dnsSrv(net: ClusterNetwork, qname: string): { rcode: 'NXDOMAIN' } | { rcode: 'NOERROR'; records: SrvRecord[] } {
  const name = qname.toLowerCase().replace(/\.$/, '');
  const zone = `.svc.${clusterDomain}`;
  if (!name.endsWith(zone)) return { rcode: 'NXDOMAIN' };
  const labels = name.slice(0, -zone.length).split('.');
  const [portLabel, protoLabel] = labels.length === 4 ? [labels[0]!, labels[1]!] : [undefined, undefined];
  if (labels.length !== 2 && !(labels.length === 4 && portLabel!.startsWith('_') && protoLabel!.startsWith('_'))) return { rcode: 'NXDOMAIN' };
  const [svcName, ns] = labels.slice(-2) as [string, string];
  const svc = net.service(ns, svcName);
  if (!svc || field(svc, 'spec', 'type') === 'ExternalName') return { rcode: 'NXDOMAIN' };
  const wanted = (p: Obj) => portLabel === undefined || (str(p['name']) === portLabel.slice(1) && (str(p['protocol']) || 'TCP').toLowerCase() === protoLabel!.slice(1));
  const host = `${svcName}.${ns}.svc.${clusterDomain}`;
  const records: Omit<SrvRecord, 'weight'>[] = [];
  if (isHeadless(svc)) {
    for (const e of readyEndpoints(net, svc)) {
      for (const p of objectsOf(e.slice['ports']).filter(wanted)) {
        if (typeof p['port'] === 'number') records.push({ priority: 0, port: p['port'], target: `${e.hostname || e.ip.replace(/\./g, '-')}.${host}` });
      }
    }
  } else {
    for (const p of objectsOf(field(svc, 'spec', 'ports')).filter(wanted)) if (typeof p['port'] === 'number') records.push({ priority: 0, port: p['port'], target: host });
  }
  if (!records.length) return portLabel === undefined ? { rcode: 'NOERROR', records: [] } : { rcode: 'NXDOMAIN' };
  const weight = Math.floor(100 / records.length);
  return { rcode: 'NOERROR', records: records.map((r) => ({ ...r, weight })) };
}

/** The name a PTR question asks for an IPv4 address (`10.96.0.1` -> `1.0.96.10.in-addr.arpa`). */
export const reverseName = (ip: string): string => `${ip.split('.').reverse().join('.')}.in-addr.arpa`;

/** A PTR question for an address: a Service's ClusterIP or an endpoint's address. */
export function dnsReverse(net: ClusterNetwork, ip: string): DnsAnswer {
  const svc = net.serviceByClusterIP(ip);
  if (svc) return { rcode: 'NOERROR', addresses: [], ptr: `${svc.metadata.name}.${svc.metadata.namespace}.svc.${clusterDomain}` };
  const pod = net.podByIP(ip);
  if (pod) {
    const ns = pod.metadata.namespace ?? '';
    const subdomain = str(field(pod, 'spec', 'subdomain'));
    const hostname = str(field(pod, 'spec', 'hostname'));
    if (subdomain && hostname && net.service(ns, subdomain)) return { rcode: 'NOERROR', addresses: [], ptr: `${hostname}.${subdomain}.${ns}.svc.${clusterDomain}` };
  }
  return nx;
}

/** What /etc/resolv.conf says: its nameservers, search list and ndots (the resolver's default 1). */
export interface ResolvConf {
  nameservers: string[];
  search: string[];
  ndots: number;
}

export function parseResolvConf(text: string): ResolvConf {
  const conf: ResolvConf = { nameservers: [], search: [], ndots: 1 };
  for (const line of text.split('\n')) {
    const [key, ...rest] = line.trim().split(/\s+/);
    if (key === 'nameserver' && rest[0]) conf.nameservers.push(rest[0]);
    else if (key === 'search' || key === 'domain') conf.search = rest;
    else if (key === 'options') for (const o of rest) if (o.startsWith('ndots:')) conf.ndots = Math.min(15, Number(o.slice(6)) || 0);
  }
  return conf;
}

const decoder = new TextDecoder();
const fileText = (files: ReadonlyMap<string, FsEntry>, path: string): string => {
  const e = files.get(path);
  return e?.type === 'file' ? decoder.decode(e.content) : '';
};

export function resolvConfOf(files: ReadonlyMap<string, FsEntry>): ResolvConf {
  return parseResolvConf(fileText(files, '/etc/resolv.conf'));
}

/** The names a libc resolver asks the server, in order, for a name (res_search). */
export function searchNames(name: string, conf: ResolvConf): string[] {
  if (name.endsWith('.')) return [name.slice(0, -1)];
  const dots = name.split('.').length - 1;
  const searched = conf.search.map((d) => `${name}.${d}`);
  return dots >= conf.ndots ? [name, ...searched] : [...searched, name];
}

/** The address of a host in /etc/hosts. */
function hostsLookup(files: ReadonlyMap<string, FsEntry>, name: string): string | undefined {
  for (const line of fileText(files, '/etc/hosts').split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (ip && isIPv4(ip) && names.some((n) => n.toLowerCase() === name.toLowerCase())) return ip;
  }
  return undefined;
}

/**
 * getaddrinfo for IPv4 addresses: a literal, /etc/hosts, then the cluster
 * DNS through the search list (a CNAME followed); none when nothing
 * answers, or when the pod's queries cannot reach the DNS (`dnsReachable`
 * false: a NetworkPolicy drops them).
 */
export function resolveAddresses(net: ClusterNetwork, files: ReadonlyMap<string, FsEntry>, name: string, dnsReachable = true, asked?: (qname: string, answer: DnsAnswer) => void): string[] {
  if (isIPv4(name)) return [name];
  const local = hostsLookup(files, name);
  if (local) return [local];
  const conf = resolvConfOf(files);
  // Only the cluster's DNS answers here: a node's resolver (dnsPolicy Default) reaches no cluster names.
  if (!conf.nameservers.includes(clusterDnsIP) || !dnsReachable) return [];
  for (const candidate of searchNames(name, conf)) {
    let answer = dnsQuery(net, candidate, 'A');
    asked?.(candidate, answer);
    for (let hops = 0; answer.rcode === 'NOERROR' && answer.cname && hops < 8; hops++) answer = dnsQuery(net, answer.cname, 'A');
    if (answer.rcode === 'NOERROR' && answer.addresses.length) return answer.addresses;
  }
  return [];
}

/** resolveAddresses' first address: what a client connects to. */
export const resolveHost = (net: ClusterNetwork, files: ReadonlyMap<string, FsEntry>, name: string, dnsReachable = true, asked?: (qname: string, answer: DnsAnswer) => void): string | undefined =>
  resolveAddresses(net, files, name, dnsReachable, asked)[0];
