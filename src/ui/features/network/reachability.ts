/**
 * The Network panel's reading of NetworkPolicies: a PolicyWorld built from
 * the objects the workbench lists, pods as the network judges them, the
 * reachability matrix, and each verdict in words. Every answer comes from
 * the network's own judgeConnection, so the panel says what the simulated
 * pods get; this module only gathers its inputs and words its output.
 */
import type { KubeObject as CoreObject } from '../../../core/api/types';
import { isPodReady, isPodTerminal, labelsInclude } from '../../../core/controllers/controllerUtils';
import { serviceSelector } from '../../../core/controllers/endpointAddresses';
import { labelSelectorString } from '../../../core/printers/format';
import { clusterDnsIP, clusterDnsPod } from '../../../core/simulation/clusterDns';
import { judgeConnection, policyTypes, type ConnectionVerdict, type DirectionVerdict, type PolicyPeer, type PolicyTarget, type PolicyWorld, type Protocol } from '../../../core/simulation/networkPolicy';
import type { KubeObject } from '../../api';

export type { ConnectionVerdict, PolicyWorld, Protocol } from '../../../core/simulation/networkPolicy';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const asCore = (o: KubeObject): CoreObject => ({ apiVersion: '', kind: '', ...o, metadata: o.metadata ?? {} });
/** The protocols a NetworkPolicy port names; TCP is the default both there and on a container port. */
export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];
export const protocolOf = (v: unknown): Protocol => (PROTOCOLS.find((p) => p === v) ?? 'TCP');

/** The namespaces and policies as listed, in the shape judgeConnection reads (the network's caches hold the same objects). */
export function policyWorld(policies: readonly KubeObject[], namespaces: readonly KubeObject[]): PolicyWorld {
  const byNamespace = new Map<string, CoreObject[]>();
  for (const p of policies) {
    const ns = p.metadata?.namespace ?? '';
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), asCore(p)]);
  }
  const labels = new Map(namespaces.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}]));
  return { networkPolicies: (ns) => byNamespace.get(ns) ?? [], namespaceLabels: (name) => labels.get(name) };
}

/** A container port a pod declares: what a named port in a rule resolves to. */
export interface DeclaredPort {
  name: string;
  port: number;
  protocol: Protocol;
}

/** The port a connection goes to; `custom` when typed in rather than picked from the pod's ports. */
export interface PortChoice {
  port: number;
  protocol: Protocol;
  custom?: boolean;
}

/** One end of a connection in the matrix: a pod, or the cluster DNS. */
export interface Endpoint {
  /** namespace/name, or `cluster-dns`. */
  key: string;
  label: string;
  namespace: string;
  name: string;
  /** The address and pod judgeConnection gets: a host-network pod is its node, so no pod. */
  peer: PolicyPeer;
  hostNetwork: boolean;
  ports: DeclaredPort[];
}

export function declaredPorts(pod: KubeObject): DeclaredPort[] {
  const spec = obj(pod['spec']);
  return [...objs(spec['initContainers']), ...objs(spec['containers'])].flatMap((c) =>
    objs(c['ports'])
      .filter((p) => typeof p['containerPort'] === 'number')
      .map((p) => ({ name: str(p['name']), port: p['containerPort'] as number, protocol: protocolOf(p['protocol']) })),
  );
}

/** A pod as the network sees it: its pod IP (a host-network pod's is its node's), and itself unless on the host network. */
export function podEndpoint(pod: KubeObject, label = pod.metadata?.name ?? ''): Endpoint {
  const status = obj(pod['status']);
  const hostNetwork = obj(pod['spec'])['hostNetwork'] === true;
  const ip = str(status['podIP']) || (hostNetwork ? str(status['hostIP']) : '');
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  return { key: `${namespace}/${name}`, label, namespace, name, peer: { ip, ...(hostNetwork ? {} : { pod: asCore(pod) }) }, hostNetwork, ports: declaredPorts(pod) };
}

/**
 * A pod that has finished (Succeeded or Failed): the kubelet has torn down its
 * sandbox, so it has no network to judge, though its status may still show the
 * pod IP (which another pod may get next). A pod being deleted is not finished:
 * it runs, and is reachable, until its containers have stopped.
 */
export const isFinished = (pod: KubeObject): boolean => isPodTerminal(pod);

/**
 * The matrix's pods: those of `namespace` (every namespace's when null) that
 * have not finished, by label; across namespaces a label is namespace/name,
 * since names repeat from one namespace to the next.
 */
export function podEndpoints(pods: readonly KubeObject[], namespace: string | null): Endpoint[] {
  return pods
    .filter((p) => (namespace === null || p.metadata?.namespace === namespace) && !isFinished(p))
    .map((p) => podEndpoint(p, namespace === null ? `${p.metadata?.namespace}/${p.metadata?.name}` : p.metadata?.name))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** CoreDNS behind the kube-dns Service, as the network judges a pod's DNS queries. */
export const clusterDns: Endpoint = {
  key: 'cluster-dns',
  label: 'cluster DNS (kube-dns)',
  namespace: clusterDnsPod.metadata.namespace ?? '',
  name: 'kube-dns',
  peer: { ip: clusterDnsIP, pod: clusterDnsPod },
  hostNetwork: false,
  ports: declaredPorts(clusterDnsPod),
};
export const dnsPort: PortChoice = { port: 53, protocol: 'UDP' };

/** Who answers the cluster DNS: the Service holding its address and its pods, those ready by name. */
export interface ClusterDnsStatus {
  service: string;
  /** The Service's selector's pods that have not finished. */
  pods: number;
  ready: string[];
}

/**
 * The Service holding the cluster DNS address (kubeadm's kube-dns) and the
 * pods its selector picks, ready ones by name: with none ready a lookup
 * times out, whatever the policies allow. Undefined where no Service holds
 * the address (kubesim's own server answers there).
 */
export function clusterDnsStatus(services: readonly KubeObject[], pods: readonly KubeObject[]): ClusterDnsStatus | undefined {
  const svc = services.find((s) => str(obj(s['spec'])['clusterIP']) === clusterDnsIP);
  if (!svc) return undefined;
  const selector = serviceSelector(asCore(svc));
  const picked = selector ? pods.filter((p) => p.metadata?.namespace === svc.metadata?.namespace && !isFinished(p) && labelsInclude(p.metadata?.labels, selector)) : [];
  const ready = picked.filter((p) => isPodReady(asCore(p)));
  return { service: `${svc.metadata?.namespace}/${svc.metadata?.name}`, pods: picked.length, ready: ready.map((p) => p.metadata?.name ?? '').sort() };
}

/**
 * The cluster DNS as a pod's queries meet it: behind kube-dns (kube-proxy
 * rewrites the address before policies look), one of the ready coredns pods
 * kubeadm's add-on runs in kube-system, with its own address and labels, the
 * first by name; the stand-in clusterDns when none is listed.
 */
export function clusterDnsEndpoint(pods: readonly KubeObject[]): Endpoint {
  const ready = pods
    .filter((p) => p.metadata?.namespace === 'kube-system' && p.metadata?.labels?.['k8s-app'] === 'kube-dns' && !isFinished(p))
    .filter((p) => str(obj(p['status'])['podIP']) && isPodReady(asCore(p)))
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const pod = ready[0];
  if (!pod) return clusterDns;
  const served = podEndpoint(pod);
  return { ...clusterDns, peer: served.peer, ports: served.ports };
}

/** The port a column starts on: the pod's first declared TCP port, else 80 (the DNS: UDP 53). */
export function defaultPort(target: Endpoint): PortChoice {
  if (target.key === clusterDns.key) return dnsPort;
  const tcp = target.ports.find((p) => p.protocol === 'TCP');
  return { port: tcp?.port ?? 80, protocol: 'TCP' };
}

export function judge(world: PolicyWorld, source: Endpoint, target: Endpoint, port: PortChoice): ConnectionVerdict {
  const to: PolicyTarget = { ...target.peer, port: port.port, protocol: port.protocol };
  return judgeConnection(world, source.peer, to);
}

/** A column of the matrix: where to, on which port. */
export interface Column {
  target: Endpoint;
  port: PortChoice;
}

/** verdicts[row][column]: each source pod's new connection to each column's target. */
export function reachabilityMatrix(world: PolicyWorld, sources: readonly Endpoint[], columns: readonly Column[]): ConnectionVerdict[][] {
  return sources.map((source) => columns.map((c) => judge(world, source, c.target, c.port)));
}

export const portText = (port: PortChoice): string => `${port.port}/${port.protocol}`;

/** `http 8080/TCP`: a declared port as the port control lists it. */
export const declaredPortText = (p: DeclaredPort): string => (p.name ? `${p.name} ${p.port}/${p.protocol}` : `${p.port}/${p.protocol}`);

/** `a`, `a and b`, `a, b and c`. */
function words(list: readonly string[]): string {
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

const selectorText = (selector: unknown): string => {
  const text = labelSelectorString(obj(selector));
  return text === undefined ? '(invalid)' : text || '{}';
};

/** A from/to peer of a policy in `namespace`: `podSelector role=frontend`, `namespaceSelector team=prod and podSelector app=db`, `ipBlock 10.0.0.0/8 except 10.1.0.0/16`. */
export function describePeer(peer: Obj, namespace: string): string {
  if ('ipBlock' in peer) {
    const block = obj(peer['ipBlock']);
    const except = (Array.isArray(block['except']) ? block['except'] : []).map(String);
    return `ipBlock ${str(block['cidr'])}${except.length ? ` except ${except.join(', ')}` : ''}`;
  }
  const parts: string[] = [];
  if ('namespaceSelector' in peer) parts.push(`namespaceSelector ${selectorText(peer['namespaceSelector'])}`);
  if ('podSelector' in peer) parts.push(`podSelector ${selectorText(peer['podSelector'])}`);
  // Without a namespaceSelector a peer names pods of the policy's own namespace only.
  return `${parts.join(' and ')}${'namespaceSelector' in peer ? '' : ` in ${namespace}`}`;
}

/** `http/TCP`, `8000-8999/TCP`, `every UDP port`. */
export function describePort(port: Obj): string {
  const protocol = str(port['protocol']) || 'TCP';
  const p = port['port'];
  if (p === undefined || p === null) return `every ${protocol} port`;
  const end = typeof port['endPort'] === 'number' ? `-${port['endPort']}` : '';
  return `${String(p)}${end}/${protocol}`;
}

/** A policy's rules for one direction (`ingress` or `egress`). */
const rulesOf = (policy: KubeObject | undefined, direction: 'Ingress' | 'Egress'): Obj[] => objs(obj(policy?.['spec'])[direction === 'Ingress' ? 'ingress' : 'egress']);

/** One rule of an isolating policy against the connection. */
export interface RuleLine {
  policy: string;
  /** 1-based, as a learner counts; undefined for a policy with no rules in that direction. */
  rule?: number;
  allows: boolean;
  text: string;
}

/** One end's say in words: the source's egress or the destination's ingress. */
export interface EndExplanation {
  direction: 'Egress' | 'Ingress';
  allowed: boolean;
  sentence: string;
  rules: RuleLine[];
  /** The policies isolating that pod in this direction. */
  policies: { namespace: string; name: string }[];
}

export interface Explanation {
  allowed: boolean;
  summary: string;
  egress: EndExplanation;
  ingress: EndExplanation;
}

function explainEnd(world: PolicyWorld, end: DirectionVerdict, source: Endpoint, target: Endpoint, port: PortChoice): EndExplanation {
  const ingress = end.direction === 'Ingress';
  const who = ingress ? target : source;
  const other = ingress ? source : target;
  const dir = end.direction.toLowerCase();
  const names = end.policies.map((p) => p.name);
  const allowing = end.policies.flatMap((p) => p.rules.filter((r) => r.peerMatches && r.portMatches).map((r) => `${p.name} rule ${r.index + 1}`));
  const sentence = {
    'no-pod': `${who.label} is on its node's network (hostNetwork): no policy selects it for ${dir}.`,
    'same-pod': `a pod reaching itself never leaves its network namespace: no policy applies.`,
    'own-node': `${source.label} is on ${target.label}'s own node (${source.peer.ip}), which is always let in.`,
    'not-isolated': `${who.label} is not isolated for ${dir}: no policy selects it with policyType ${end.direction}, so nothing is held back.`,
    rule: `${who.label} is isolated for ${dir} by ${words(names)}; ${words(allowing)} ${allowing.length > 1 ? 'allow' : 'allows'} it.`,
    'no-rule': `${who.label} is isolated for ${dir} by ${words(names)}; no rule allows it.`,
  }[end.reason];
  const peersWord = ingress ? 'from' : 'to';
  const yesNo = (b: boolean) => (b ? 'yes' : 'no');
  const rules = end.policies.flatMap((p): RuleLine[] => {
    const policy = world.networkPolicies(p.namespace).find((o) => o.metadata.name === p.name);
    const specs = rulesOf(policy, end.direction);
    if (!p.rules.length) return [{ policy: p.name, allows: false, text: `${p.name}: no ${dir} rules, so it only isolates ${who.label}` }];
    return p.rules.map((r) => {
      const spec = specs[r.index] ?? {};
      const peers = objs(spec[peersWord]);
      const ports = objs(spec['ports']);
      const peerText = peers.length ? peers.map((x) => describePeer(x, p.namespace)).join(' or ') : `no ${peersWord} list: every peer`;
      const portsText = ports.length ? ports.map(describePort).join(', ') : 'none listed (every port)';
      return {
        policy: p.name,
        rule: r.index + 1,
        allows: r.peerMatches && r.portMatches,
        text: `${p.name} rule ${r.index + 1}: ${peersWord} matches ${other.label}? ${yesNo(r.peerMatches)} (${peerText}); ports: ${portsText} matches ${portText(port)}? ${yesNo(r.portMatches)}`,
      };
    });
  });
  return { direction: end.direction, allowed: end.allowed, sentence, rules, policies: end.policies.map(({ namespace, name }) => ({ namespace, name })) };
}

/** A verdict in words: the deciding ends' sentences, and each isolating policy's rules checked against the connection. */
export function explain(world: PolicyWorld, verdict: ConnectionVerdict, source: Endpoint, target: Endpoint, port: PortChoice): Explanation {
  const egress = explainEnd(world, verdict.egress, source, target, port);
  const ingress = explainEnd(world, verdict.ingress, source, target, port);
  // Dropped: the ends that drop it say why; allowed: both ends' reasons (once when they are the same).
  const deciding = verdict.allowed ? [egress, ingress] : [egress, ingress].filter((e) => !e.allowed);
  const sentences = [...new Set(deciding.map((e) => e.sentence))];
  return { allowed: verdict.allowed, summary: `${verdict.allowed ? 'Allowed' : 'Dropped'}: ${sentences.join(' ')}`, egress, ingress };
}

/** A policy as a learner reads it: selector, types and rules, YAML-ish. */
export function policySummary(policy: KubeObject): string {
  const core = asCore(policy);
  const namespace = core.metadata.namespace ?? '';
  const spec = obj(core['spec']);
  const selector = selectorText(spec['podSelector']);
  const lines = [`name: ${core.metadata.name ?? ''}`, `podSelector: ${selector}${selector === '{}' ? ` (every pod in ${namespace})` : ''}`, `policyTypes: [${policyTypes(core).join(', ')}]`];
  for (const direction of ['Ingress', 'Egress'] as const) {
    const rules = rulesOf(policy, direction);
    const key = direction === 'Ingress' ? 'ingress' : 'egress';
    const peersWord = direction === 'Ingress' ? 'from' : 'to';
    if (!rules.length) {
      if (Array.isArray(spec[key])) lines.push(`${key}: []`);
      continue;
    }
    lines.push(`${key}:`);
    for (const rule of rules) {
      const peers = objs(rule[peersWord]);
      const ports = objs(rule['ports']);
      lines.push(`- ${peersWord}: ${peers.length ? peers.map((p) => describePeer(p, namespace)).join(' or ') : 'every peer'}`);
      lines.push(`  ports: ${ports.length ? ports.map(describePort).join(', ') : 'every port'}`);
    }
  }
  return lines.join('\n');
}
