/**
 * The rules iptables-mode kube-proxy writes for the cluster's Services
 * (its syncProxyRules), as `iptables-save` and `iptables -S` print them in
 * the kube-proxy pod: in `nat`, each Service port's cluster IP jumps to its
 * KUBE-SVC chain, which picks an endpoint's KUBE-SEP chain at random
 * (`statistic --probability 1/n`, then 1/(n-1)...) and DNATs to it, a
 * NodePort goes through KUBE-EXT to the same chain, and traffic from
 * outside the pod range is marked for masquerade; in `filter`, a Service
 * port without endpoints is rejected. Chain names are kube-proxy's: the
 * base32 of the SHA-256 of the port's name and protocol (and endpoint), so
 * `default/kubernetes:https` is KUBE-SVC-NPX46M4PTMTKRN6Y as on any cluster.
 * The routing itself is kubeProxy.ts's; these rules describe it.
 */
import { sha256 } from '@noble/hashes/sha2';
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { base32 } from '../util/base32';
import { encodeText } from './byteText';
import { readyEndpoints } from './clusterDns';
import type { ClusterNetwork } from './clusterNetwork';
import { strftime, type Tool, type ToolContext } from './containerTools';
import { holdsCapability } from './procFs';

/** The pod range kubeadm's KubeProxyConfiguration names (clusterCIDR): traffic from outside it is masqueraded. */
const clusterCIDR = '10.244.0.0/16';
const iptablesVersion = 'v1.8.9 (nf_tables)';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), o);

const hashOf = (text: string): string => base32(sha256(encodeText(text))).slice(0, 16);
/** servicePortChainName and its kin: the port's name (`ns/name:port`) and protocol, hashed. */
const chain = (prefix: 'SVC' | 'EXT' | 'SVL', portName: string, protocol: string) => `KUBE-${prefix}-${hashOf(portName + protocol)}`;
/** servicePortEndpointChainName: with the endpoint's `ip:port`. */
const endpointChain = (portName: string, protocol: string, endpoint: string) => `KUBE-SEP-${hashOf(portName + protocol + endpoint)}`;

/** iptables' probability for the i-th of n endpoints (1/(n-i)), as kube-proxy formats it. */
const probability = (remaining: number) => (1 / remaining).toFixed(11);

interface Table {
  name: 'nat' | 'filter';
  builtins: string[];
  chains: Set<string>;
  rules: Map<string, string[]>;
}

function table(name: Table['name'], builtins: string[]): Table {
  return { name, builtins, chains: new Set(), rules: new Map() };
}

function add(t: Table, chainName: string, rule: string): void {
  if (!t.builtins.includes(chainName)) t.chains.add(chainName);
  const list = t.rules.get(chainName) ?? [];
  list.push(`-A ${chainName} ${rule}`);
  t.rules.set(chainName, list);
}

/** One Service port as kube-proxy sees it. */
interface ServicePort {
  /** `ns/name:port`, or `ns/name` for an unnamed port. */
  name: string;
  protocol: string;
  clusterIP: string;
  port: number;
  nodePort?: number;
  local: boolean;
  /** Ready endpoints' `ip:port`, with the node each is on. */
  endpoints: { address: string; ip: string; node: string }[];
}

function servicePorts(net: ClusterNetwork): ServicePort[] {
  const out: ServicePort[] = [];
  for (const svc of net.allServices()) {
    const clusterIP = str(field(svc, 'spec', 'clusterIP'));
    if (!clusterIP || clusterIP === 'None' || str(field(svc, 'spec', 'type')) === 'ExternalName') continue;
    const ready = readyEndpoints(net, svc);
    for (const p of objectsOf(field(svc, 'spec', 'ports'))) {
      const portName = str(p['name']);
      const protocol = (str(p['protocol']) || 'TCP').toLowerCase();
      const endpoints = ready.flatMap((e) => {
        const slicePort = objectsOf(e.slice['ports']).find((sp) => str(sp['name']) === portName && (str(sp['protocol']) || 'TCP').toLowerCase() === protocol);
        return typeof slicePort?.['port'] === 'number' ? [{ address: `${e.ip}:${slicePort['port']}`, ip: e.ip, node: str(e.endpoint['nodeName']) }] : [];
      });
      out.push({
        name: `${svc.metadata.namespace}/${svc.metadata.name}${portName ? `:${portName}` : ''}`,
        protocol,
        clusterIP,
        port: Number(p['port']),
        ...(typeof p['nodePort'] === 'number' ? { nodePort: p['nodePort'] } : {}),
        local: str(field(svc, 'spec', 'externalTrafficPolicy')) === 'Local',
        endpoints,
      });
    }
  }
  return out.sort((a, b) => (a.name + a.protocol).localeCompare(b.name + b.protocol));
}

/** The endpoint jumps of a KUBE-SVC or KUBE-SVL chain, then each endpoint's KUBE-SEP chain. */
function endpointRules(nat: Table, from: string, sp: ServicePort, endpoints: ServicePort['endpoints']): void {
  endpoints.forEach((e, i) => {
    const sep = endpointChain(sp.name, sp.protocol, e.address);
    const pick = i < endpoints.length - 1 ? ` -m statistic --mode random --probability ${probability(endpoints.length - i)}` : '';
    add(nat, from, `-m comment --comment "${sp.name} -> ${e.address}"${pick} -j ${sep}`);
    if (!nat.rules.has(sep)) {
      add(nat, sep, `-s ${e.ip}/32 -m comment --comment "${sp.name}" -j KUBE-MARK-MASQ`);
      add(nat, sep, `-p ${sp.protocol} -m comment --comment "${sp.name}" -m ${sp.protocol} -j DNAT --to-destination ${e.address}`);
    }
  });
}

/** kube-proxy's nat and filter tables on a node. */
export function kubeProxyRules(net: ClusterNetwork, node: string): { nat: Table; filter: Table } {
  const nat = table('nat', ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING']);
  const filter = table('filter', ['INPUT', 'FORWARD', 'OUTPUT']);
  for (const c of ['KUBE-KUBELET-CANARY', 'KUBE-MARK-MASQ', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-PROXY-CANARY', 'KUBE-SERVICES']) nat.chains.add(c);
  add(nat, 'PREROUTING', '-m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  add(nat, 'OUTPUT', '-m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  add(nat, 'POSTROUTING', '-m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING');
  add(nat, 'KUBE-MARK-MASQ', '-j MARK --set-xmark 0x4000/0x4000');
  add(nat, 'KUBE-POSTROUTING', '-m mark ! --mark 0x4000/0x4000 -j RETURN');
  add(nat, 'KUBE-POSTROUTING', '-j MARK --set-xmark 0x4000/0x0');
  add(nat, 'KUBE-POSTROUTING', '-m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully');

  for (const c of ['KUBE-EXTERNAL-SERVICES', 'KUBE-FIREWALL', 'KUBE-FORWARD', 'KUBE-KUBELET-CANARY', 'KUBE-NODEPORTS', 'KUBE-PROXY-CANARY', 'KUBE-PROXY-FIREWALL', 'KUBE-SERVICES']) filter.chains.add(c);
  add(filter, 'INPUT', '-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL');
  add(filter, 'INPUT', '-m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS');
  add(filter, 'INPUT', '-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES');
  add(filter, 'INPUT', '-j KUBE-FIREWALL');
  add(filter, 'FORWARD', '-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL');
  add(filter, 'FORWARD', '-m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD');
  add(filter, 'FORWARD', '-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  add(filter, 'FORWARD', '-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES');
  add(filter, 'OUTPUT', '-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL');
  add(filter, 'OUTPUT', '-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES');
  add(filter, 'OUTPUT', '-j KUBE-FIREWALL');
  add(filter, 'KUBE-FIREWALL', '! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP');
  add(filter, 'KUBE-FORWARD', '-m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP');
  add(filter, 'KUBE-FORWARD', '-m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT');
  add(filter, 'KUBE-FORWARD', '-m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT');

  for (const sp of servicePorts(net)) {
    const svcChain = chain('SVC', sp.name, sp.protocol);
    const dport = `-m ${sp.protocol} --dport`;
    if (!sp.endpoints.length) {
      // No endpoint: the filter table rejects, so a client is refused at once.
      add(filter, 'KUBE-SERVICES', `-d ${sp.clusterIP}/32 -p ${sp.protocol} -m comment --comment "${sp.name} has no endpoints" ${dport} ${sp.port} -j REJECT --reject-with icmp-port-unreachable`);
      if (sp.nodePort !== undefined) add(filter, 'KUBE-EXTERNAL-SERVICES', `-p ${sp.protocol} -m comment --comment "${sp.name} has no endpoints" -m addrtype --dst-type LOCAL ${dport} ${sp.nodePort} -j REJECT --reject-with icmp-port-unreachable`);
      continue;
    }
    add(nat, 'KUBE-SERVICES', `-d ${sp.clusterIP}/32 -p ${sp.protocol} -m comment --comment "${sp.name} cluster IP" ${dport} ${sp.port} -j ${svcChain}`);
    add(nat, svcChain, `! -s ${clusterCIDR} -d ${sp.clusterIP}/32 -p ${sp.protocol} -m comment --comment "${sp.name} cluster IP" ${dport} ${sp.port} -j KUBE-MARK-MASQ`);
    endpointRules(nat, svcChain, sp, sp.endpoints);
    if (sp.nodePort === undefined) continue;
    const ext = chain('EXT', sp.name, sp.protocol);
    add(nat, 'KUBE-NODEPORTS', `-p ${sp.protocol} -m comment --comment "${sp.name}" ${dport} ${sp.nodePort} -j ${ext}`);
    if (!sp.local) {
      add(nat, ext, `-m comment --comment "masquerade traffic for ${sp.name} external destinations" -j KUBE-MARK-MASQ`);
      add(nat, ext, `-j ${svcChain}`);
      continue;
    }
    // externalTrafficPolicy Local: pods and the node itself may use any endpoint; the rest only this node's.
    const svl = chain('SVL', sp.name, sp.protocol);
    add(nat, ext, `-s ${clusterCIDR} -m comment --comment "pod traffic for ${sp.name} external destinations" -j ${svcChain}`);
    add(nat, ext, `-m comment --comment "masquerade LOCAL traffic for ${sp.name} external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`);
    add(nat, ext, `-m comment --comment "route LOCAL traffic for ${sp.name} external destinations" -m addrtype --src-type LOCAL -j ${svcChain}`);
    add(nat, ext, `-j ${svl}`);
    const local = sp.endpoints.filter((e) => e.node === node);
    if (local.length) endpointRules(nat, svl, sp, local);
    else add(nat, svl, `-m comment --comment "${sp.name} has no local endpoints" -j KUBE-MARK-DROP`);
  }
  add(nat, 'KUBE-SERVICES', '-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS');
  return { nat, filter };
}

/** The built-in chains first, then kube-proxy's in name order, as iptables-save lists them. */
const chainOrder = (t: Table): string[] => [...t.builtins, ...[...t.chains].sort()];

/** A table in iptables-save's format. */
function saved(t: Table): string {
  const lines = [`*${t.name}`];
  for (const c of t.builtins) lines.push(`:${c} ACCEPT [0:0]`);
  for (const c of [...t.chains].sort()) lines.push(`:${c} - [0:0]`);
  for (const c of chainOrder(t)) lines.push(...(t.rules.get(c) ?? []));
  lines.push('COMMIT');
  return lines.join('\n') + '\n';
}

/**
 * The tables the process sees: kube-proxy's on the node for a host-network pod (its Local NodePorts
 * those of the node it runs on), none in a pod's own network namespace; 'denied' without CAP_NET_ADMIN.
 */
function tablesFor(ctx: ToolContext): { nat: Table; filter: Table } | 'denied' {
  if (!holdsCapability(ctx.view, 'NET_ADMIN')) return 'denied';
  const net = ctx.network;
  if (!net?.hostNetwork) return { nat: table('nat', ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING']), filter: table('filter', ['INPUT', 'FORWARD', 'OUTPUT']) };
  const pod = net.cluster.podByUID(net.podUID);
  return kubeProxyRules(net.cluster, str(field(pod as KubeObject | undefined, 'spec', 'nodeName')));
}

/** iptables-save [-t TABLE]: the nat and filter tables, or the one asked for. */
export const iptablesSave: Tool = (args, ctx) => {
  let only: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-t' || a === '--table') only = args[++i];
    else if (a.startsWith('--table=')) only = a.slice('--table='.length);
    else if (a === '-c' || a === '--counters') continue;
    else {
      ctx.err(`iptables-save: unrecognized option '${a}'\n`);
      return 1;
    }
  }
  const tables = tablesFor(ctx);
  if (tables === 'denied') {
    ctx.err(`iptables-save ${iptablesVersion}: Could not fetch rule set generation id: Permission denied (you must be root)\n`);
    return 1;
  }
  if (only !== undefined && only !== 'nat' && only !== 'filter') {
    ctx.err(`iptables-save: Table '${only}' does not exist\n`);
    return 1;
  }
  // A network namespace nothing has written rules into has no tables to save.
  const picked = [tables.nat, tables.filter].filter((t) => (only === undefined || t.name === only) && t.rules.size > 0);
  const at = strftime('%a %b %e %H:%M:%S %Y', ctx.now());
  for (const t of picked) ctx.out(`# Generated by iptables-save ${iptablesVersion} on ${at}\n${saved(t)}# Completed on ${at}\n`);
  return 0;
};

/** iptables [-t TABLE] -S [CHAIN]: the rules as commands (`-P`, `-N`, `-A`); listing with -L is left to -S. */
export const iptables: Tool = (args, ctx) => {
  let name = 'filter';
  let list = false;
  let chainName: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-t' || a === '--table') name = args[++i] ?? '';
    else if (a === '-S' || a === '--list-rules') {
      list = true;
      if (args[i + 1] && !args[i + 1]!.startsWith('-')) chainName = args[++i];
    } else if (a === '-n' || a === '-v' || a === '--numeric' || a === '-w' || a === '--wait') continue;
    else if (a === '-L' || a === '--list') {
      ctx.err('iptables: kubesim prints the rules with -S (as commands) and iptables-save; -L is not simulated\n');
      return 2;
    } else {
      ctx.err(`iptables v1.8.9 (nf_tables): unknown option "${a}"\nTry \`iptables -h' or 'iptables --help' for more information.\n`);
      return 2;
    }
  }
  if (!list) {
    ctx.err("iptables v1.8.9 (nf_tables): no command specified\nTry `iptables -h' or 'iptables --help' for more information.\n");
    return 2;
  }
  const tables = tablesFor(ctx);
  if (tables === 'denied') {
    ctx.err(`iptables ${iptablesVersion}: Could not fetch rule set generation id: Permission denied (you must be root)\n\n`);
    return 4;
  }
  const t = name === 'nat' ? tables.nat : name === 'filter' ? tables.filter : undefined;
  if (!t) {
    ctx.err(`iptables v1.8.9 (nf_tables): table '${name}' does not exist\nPerhaps iptables or your kernel needs to be upgraded.\n`);
    return 3;
  }
  const chains = chainName === undefined ? chainOrder(t) : [chainName];
  if (chainName !== undefined && !chainOrder(t).includes(chainName)) {
    ctx.err('iptables: No chain/target/match by that name.\n');
    return 1;
  }
  const lines: string[] = [];
  for (const c of chains) lines.push(t.builtins.includes(c) ? `-P ${c} ACCEPT` : `-N ${c}`);
  for (const c of chains) lines.push(...(t.rules.get(c) ?? []));
  ctx.out(lines.join('\n') + '\n');
  return 0;
};
