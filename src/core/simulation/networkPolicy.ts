/**
 * NetworkPolicy as a policy-enforcing CNI plugin (Calico, Cilium, kindnet's
 * network policy controller) applies it to a new connection: a pod that
 * policies select for a direction is isolated in it, and a connection is let
 * through only when some rule of those policies allows its peer and port;
 * both ends must allow it (the source's egress, the destination's ingress).
 * What is not allowed is dropped, so the client waits out its timeout.
 *
 * A connection is judged after kube-proxy has picked the Service endpoint
 * (policies see pod addresses and target ports, never ClusterIPs). Traffic
 * from a pod's own node is always allowed in, and host-network pods are the
 * node: no policy selects them, and as peers only ipBlocks match them. Rules
 * with ports never match ICMP; a rule without ports allows every protocol.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/labelSelector';
import { cidrContains, parseCIDR, parseIP } from '../validation/net';
import { impliedPolicyTypes } from '../registry/networking';
import { podHostIP } from './clusterNetwork';

type Obj = Record<string, unknown>;
export type Protocol = 'TCP' | 'UDP' | 'SCTP' | 'ICMP';

/** One end of a connection: its address, and the pod holding it (none for a node, the API server or an outside address). */
export interface PolicyPeer {
  ip: string;
  pod?: KubeObject;
}

/** Where a connection goes: a peer, and the port on it (ignored for ICMP). */
export interface PolicyTarget extends PolicyPeer {
  port: number;
  protocol: Protocol;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isHostNetwork = (pod: KubeObject | undefined): boolean => isObject(pod?.['spec']) && pod['spec']['hostNetwork'] === true;
/** A pod policies can select or name as a peer: one on the pod network. */
const podOf = (peer: PolicyPeer): KubeObject | undefined => (peer.pod && !isHostNetwork(peer.pod) ? peer.pod : undefined);

function selects(selector: unknown, labels: Record<string, string> | undefined): boolean {
  // A missing selector field is the empty one (every pod); a selector that does not parse selects none.
  const s = labelSelectorFromObject(isObject(selector) ? (selector as LabelSelectorObject) : {});
  return 'matches' in s && s.matches(labels ?? {});
}

/** spec.policyTypes, or what it defaults to for a policy stored without it. */
export function policyTypes(policy: KubeObject): string[] {
  const spec = isObject(policy['spec']) ? policy['spec'] : {};
  return Array.isArray(spec['policyTypes']) && spec['policyTypes'].length ? spec['policyTypes'].map(String) : impliedPolicyTypes(spec);
}

/** The policies of the pod's namespace that select it for a direction. */
export function isolating(net: PolicyWorld, pod: KubeObject, direction: 'Ingress' | 'Egress'): KubeObject[] {
  const namespace = pod.metadata.namespace ?? '';
  return net.networkPolicies(namespace).filter((p) => policyTypes(p).includes(direction) && selects(isObject(p['spec']) ? p['spec']['podSelector'] : undefined, pod.metadata.labels));
}

function inIPBlock(block: Obj, ip: string): boolean {
  const cidr = parseCIDR(str(block['cidr']));
  const addr = parseIP(ip);
  if (!cidr || !addr) return false;
  const host = { ...addr, bits: addr.v4 ? 32 : 128 };
  if (!cidrContains(cidr, host)) return false;
  return !(Array.isArray(block['except']) ? block['except'] : []).some((e) => {
    const x = parseCIDR(str(e));
    return x !== undefined && cidrContains(x, host);
  });
}

/** Whether a NetworkPolicyPeer of a policy in `namespace` names this peer. */
function peerMatches(net: PolicyWorld, namespace: string, peer: Obj, who: PolicyPeer): boolean {
  if (isObject(peer['ipBlock'])) return inIPBlock(peer['ipBlock'], who.ip);
  const pod = podOf(who);
  if (!pod) return false;
  const podNamespace = pod.metadata.namespace ?? '';
  const inNamespace = isObject(peer['namespaceSelector']) ? selects(peer['namespaceSelector'], net.namespaceLabels(podNamespace)) : podNamespace === namespace;
  return inNamespace && (!isObject(peer['podSelector']) || selects(peer['podSelector'], pod.metadata.labels));
}

/** The container ports of a pod with a name and protocol (a named port in a rule resolves on the destination pod). */
function namedPort(pod: KubeObject | undefined, name: string, protocol: string): number | undefined {
  const spec = isObject(pod?.['spec']) ? pod['spec'] : {};
  for (const c of [...objectsOf(spec['initContainers']), ...objectsOf(spec['containers'])]) {
    for (const p of objectsOf(c['ports'])) if (p['name'] === name && (str(p['protocol']) || 'TCP') === protocol) return Number(p['containerPort']);
  }
  return undefined;
}

function portMatches(rulePort: Obj, target: PolicyTarget): boolean {
  if (target.protocol === 'ICMP') return false;
  if ((str(rulePort['protocol']) || 'TCP') !== target.protocol) return false;
  const port = rulePort['port'];
  if (port === undefined || port === null) return true;
  if (typeof port === 'string') return namedPort(podOf(target), port, target.protocol) === target.port;
  const end = typeof rulePort['endPort'] === 'number' ? rulePort['endPort'] : port;
  return typeof port === 'number' && target.port >= port && target.port <= (end as number);
}

/** How one rule of an isolating policy fares against the connection: it allows it when both its peers and its ports match. */
export interface RuleVerdict {
  /** The rule's index in the policy's ingress or egress list. */
  index: number;
  /** Its from/to peers name the other end (no peers: every peer). */
  peerMatches: boolean;
  /** Its ports hold the connection's port and protocol (no ports: every port of every protocol). */
  portMatches: boolean;
}

/** A policy isolating the judged pod in one direction, with each of its rules in that direction. */
export interface PolicyVerdict {
  namespace: string;
  name: string;
  rules: RuleVerdict[];
}

/** One end's say on the connection: the source's egress, or the destination's ingress. */
export interface DirectionVerdict {
  direction: 'Egress' | 'Ingress';
  allowed: boolean;
  /**
   * Why: `no-pod` (that end is a node or an address outside the pod network: no policy selects it),
   * `same-pod`, `own-node` (the destination's node, always let in), `not-isolated` (no policy selects the
   * pod for this direction), `rule` (a rule of an isolating policy allows it), `no-rule` (none does: dropped).
   */
  reason: 'no-pod' | 'same-pod' | 'own-node' | 'not-isolated' | 'rule' | 'no-rule';
  /** The policies isolating the pod in this direction, each with its rules' verdicts. */
  policies: PolicyVerdict[];
}

/** What NetworkPolicies make of a new connection: it passes when both ends allow it. */
export interface ConnectionVerdict {
  allowed: boolean;
  egress: DirectionVerdict;
  ingress: DirectionVerdict;
}

/** The namespaces and policies a verdict reads (the cluster network's caches, or objects a client listed). */
export interface PolicyWorld {
  networkPolicies(namespace: string): KubeObject[];
  namespaceLabels(name: string): Record<string, string> | undefined;
}

function judgeRule(net: PolicyWorld, namespace: string, rule: Obj, index: number, peers: 'from' | 'to', other: PolicyPeer, target: PolicyTarget): RuleVerdict {
  const listed = objectsOf(rule[peers]);
  const ports = objectsOf(rule['ports']);
  return { index, peerMatches: listed.length === 0 || listed.some((p) => peerMatches(net, namespace, p, other)), portMatches: ports.length === 0 || ports.some((p) => portMatches(p, target)) };
}

/** One direction's verdict on the pod at that end (undefined: no pod there). */
function judgeDirection(net: PolicyWorld, pod: KubeObject | undefined, direction: 'Ingress' | 'Egress', other: PolicyPeer, target: PolicyTarget): DirectionVerdict {
  if (!pod) return { direction, allowed: true, reason: 'no-pod', policies: [] };
  const key = direction === 'Ingress' ? 'ingress' : 'egress';
  const peers = direction === 'Ingress' ? 'from' : 'to';
  const policies = isolating(net, pod, direction).map((p) => ({
    namespace: p.metadata.namespace ?? '',
    name: p.metadata.name ?? '',
    rules: objectsOf(isObject(p['spec']) ? p['spec'][key] : undefined).map((rule, i) => judgeRule(net, p.metadata.namespace ?? '', rule, i, peers, other, target)),
  }));
  if (!policies.length) return { direction, allowed: true, reason: 'not-isolated', policies };
  const allowed = policies.some((p) => p.rules.some((r) => r.peerMatches && r.portMatches));
  return { direction, allowed, reason: allowed ? 'rule' : 'no-rule', policies };
}

/** What NetworkPolicies make of a new connection from `source` to `target`: the source's egress and the target's ingress, each explained. */
export function judgeConnection(net: PolicyWorld, source: PolicyPeer, target: PolicyTarget): ConnectionVerdict {
  const from = podOf(source);
  const to = podOf(target);
  // A pod reaching itself never leaves its network namespace.
  if (from && to && from.metadata.uid === to.metadata.uid) {
    return { allowed: true, egress: { direction: 'Egress', allowed: true, reason: 'same-pod', policies: [] }, ingress: { direction: 'Ingress', allowed: true, reason: 'same-pod', policies: [] } };
  }
  const egress = judgeDirection(net, from, 'Egress', target, target);
  // The pod's own node (its kubelet, a host-network pod there) is always let in.
  const ingress = to !== undefined && source.ip === podHostIP(to) ? { direction: 'Ingress' as const, allowed: true, reason: 'own-node' as const, policies: [] } : judgeDirection(net, to, 'Ingress', source, target);
  return { allowed: egress.allowed && ingress.allowed, egress, ingress };
}

/** Whether NetworkPolicies let a new connection from `source` reach `target`. */
export function policyAllows(net: PolicyWorld, source: PolicyPeer, target: PolicyTarget): boolean {
  return judgeConnection(net, source, target).allowed;
}
