/**
 * kube-scheduler's PodTopologySpread plugin. A pod's DoNotSchedule
 * constraints filter: on the domain (the node's value of topologyKey) the
 * node is in, the pods the constraint's selector matches in the pod's
 * namespace (terminating ones left out), plus the pod itself if it
 * matches, may exceed the smallest domain's count by at most maxSkew (that
 * minimum is 0 while there are fewer domains than minDomains). Domains
 * come from the nodes that carry every constraint's key and pass its
 * nodeAffinityPolicy (Honor: the pod's nodeSelector and required node
 * affinity) and nodeTaintsPolicy (Honor: taints it tolerates); a node
 * without a key does not fit at all. ScheduleAnyway constraints score,
 * fewer matching pods in a domain scoring higher; a pod with no constraints
 * of its own gets the system defaults (hostname maxSkew 3, zone maxSkew 5,
 * ScheduleAnyway) over the selectors of its Services and controlling
 * ReplicaSet, StatefulSet or ReplicationController. matchLabelKeys adds the
 * pod's own values of those labels to the selector.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { specOf, controllerRefOf } from '../controllers/controllerUtils';
import { affinityFits, untoleratedTaint } from '../api/nodeAffinity';
import { everythingLabelSelector, labelSelectorFromObject, newRequirement, nothingLabelSelector, type LabelRequirement, type LabelSelector, type LabelSelectorObject } from '../selectors/labelSelector';
import { SelectorError } from '../selectors/selectorError';
import type { NodeInfo, PodInfo, Snapshot } from './nodeInfo';

export const errReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const errReasonNodeLabelNotMatch = `${errReasonConstraintsNotMatch} (missing required label)`;

const labelHostname = 'kubernetes.io/hostname';
const labelTopologyZone = 'topology.kubernetes.io/zone';

interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorNodeAffinity: boolean;
  honorTaints: boolean;
}

/** The objects whose selectors make a pod's default spreading selector (helper.DefaultSelector). */
export interface SpreadSelectorSource {
  services(namespace: string): KubeObject[];
  /** The ReplicaSet, StatefulSet or ReplicationController of that name. */
  controller(namespace: string, kind: 'ReplicaSet' | 'StatefulSet' | 'ReplicationController', name: string): KubeObject | undefined;
}

/** selector.Add: the requirements of both, sorted by key as labels.Selector keeps them. */
function withRequirements(base: LabelSelector, extra: LabelRequirement[]): LabelSelector {
  if (!extra.length) return base;
  const expr = [...base.requirements, ...extra].map((r) => ({ key: r.key, operator: operatorName(r.operator), values: [...r.values] }));
  const s = labelSelectorFromObject({ matchExpressions: expr });
  return s instanceof SelectorError ? nothingLabelSelector() : s;
}

function operatorName(op: LabelRequirement['operator']): string {
  switch (op) {
    case 'in':
    case '=':
    case '==':
      return 'In';
    case 'notin':
    case '!=':
      return 'NotIn';
    case 'exists':
      return 'Exists';
    default:
      return 'DoesNotExist';
  }
}

const setRequirements = (set: Record<string, string>): LabelRequirement[] =>
  Object.keys(set)
    .sort()
    .flatMap((k) => {
      const r = newRequirement(k, '=', [set[k]!]);
      return Array.isArray(r) ? [] : [r];
    });

/** filterTopologySpreadConstraints: the pod's constraints of one whenUnsatisfiable, selectors parsed, matchLabelKeys merged. */
function ownConstraints(pod: KubeObject, action: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  const labels = pod.metadata.labels ?? {};
  return objectsOf(specOf(pod)['topologySpreadConstraints'])
    .filter((c) => (c['whenUnsatisfiable'] ?? 'DoNotSchedule') === action)
    .map((c) => {
      const parsed = labelSelectorFromObject(isObject(c['labelSelector']) ? (c['labelSelector'] as LabelSelectorObject) : undefined);
      let selector = parsed instanceof SelectorError ? nothingLabelSelector() : parsed;
      const keys = Array.isArray(c['matchLabelKeys']) ? (c['matchLabelKeys'] as unknown[]).filter((k): k is string => typeof k === 'string' && k in labels) : [];
      if (keys.length) {
        // mergeLabelSetWithSelector: the pod's values of those keys, and what the selector requires besides.
        selector = withRequirements(everythingLabelSelector(), [...setRequirements(Object.fromEntries(keys.map((k) => [k, labels[k]!]))), ...selector.requirements]);
      }
      return {
        maxSkew: Number(c['maxSkew'] ?? 1),
        topologyKey: String(c['topologyKey'] ?? ''),
        selector,
        minDomains: typeof c['minDomains'] === 'number' ? c['minDomains'] : 1,
        honorNodeAffinity: (c['nodeAffinityPolicy'] ?? 'Honor') === 'Honor',
        honorTaints: c['nodeTaintsPolicy'] === 'Honor',
      };
    });
}

/** helper.DefaultSelector: the selectors of the pod's Services, then of its controller. */
function defaultSelector(pod: KubeObject, source: SpreadSelectorSource): LabelSelector {
  const namespace = pod.metadata.namespace ?? '';
  const labels = pod.metadata.labels ?? {};
  let set: Record<string, string> = {};
  for (const svc of source.services(namespace)) {
    const sel = isObject(specOf(svc)['selector']) ? (specOf(svc)['selector'] as Record<string, string>) : {};
    if (Object.entries(sel).every(([k, v]) => labels[k] === v)) set = { ...set, ...sel };
  }
  let selector = withRequirements(everythingLabelSelector(), setRequirements(set));
  const owner = controllerRefOf(pod);
  if (!owner) return selector;
  if (owner.kind === 'ReplicationController' && owner.apiVersion === 'v1') {
    const rc = source.controller(namespace, 'ReplicationController', owner.name);
    const sel = rc && isObject(specOf(rc)['selector']) ? (specOf(rc)['selector'] as Record<string, string>) : undefined;
    if (sel) selector = withRequirements(everythingLabelSelector(), setRequirements({ ...set, ...sel }));
  } else if ((owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet') && owner.apiVersion === 'apps/v1') {
    const obj = source.controller(namespace, owner.kind, owner.name);
    const parsed = obj ? labelSelectorFromObject(isObject(specOf(obj)['selector']) ? (specOf(obj)['selector'] as LabelSelectorObject) : undefined) : undefined;
    if (parsed && !(parsed instanceof SelectorError)) selector = withRequirements(selector, [...parsed.requirements]);
  }
  return selector;
}

function constraintsFor(pod: KubeObject, action: 'DoNotSchedule' | 'ScheduleAnyway', source: SpreadSelectorSource): { constraints: SpreadConstraint[]; systemDefaulted: boolean } {
  if (objectsOf(specOf(pod)['topologySpreadConstraints']).length) return { constraints: ownConstraints(pod, action), systemDefaulted: false };
  // The system defaults are ScheduleAnyway: they never filter.
  if (action === 'DoNotSchedule') return { constraints: [], systemDefaulted: true };
  const selector = defaultSelector(pod, source);
  if (selector.empty()) return { constraints: [], systemDefaulted: true };
  const base = { selector, minDomains: 1, honorNodeAffinity: true, honorTaints: false };
  return { constraints: [{ ...base, topologyKey: labelHostname, maxSkew: 3 }, { ...base, topologyKey: labelTopologyZone, maxSkew: 5 }], systemDefaulted: true };
}

const hasAllKeys = (labels: Record<string, string>, constraints: SpreadConstraint[]) => constraints.every((c) => c.topologyKey in labels);

/** matchNodeInclusionPolicies. */
function includesNode(c: SpreadConstraint, pod: KubeObject, node: NodeInfo): boolean {
  if (c.honorNodeAffinity && !affinityFits(pod, node.node)) return false;
  if (c.honorTaints) {
    const taints = objectsOf(specOf(node.node)['taints']);
    if (untoleratedTaint(taints, objectsOf(specOf(pod)['tolerations']), (t) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute')) return false;
  }
  return true;
}

/** countPodsMatchSelector: the pods of the namespace the selector matches, terminating ones left out. */
const countMatching = (pods: PodInfo[], selector: LabelSelector, namespace: string) =>
  pods.reduce((n, p) => (p.namespace === namespace && !p.pod.metadata.deletionTimestamp && selector.matches(p.labels) ? n + 1 : n), 0);

const pairKey = (key: string, value: string) => `${key}\u0000${value}`;

export interface TopologySpreadState {
  pod: PodInfo;
  constraints: SpreadConstraint[];
  /** Matching pods per topology pair. */
  matchNum: Map<string, number>;
  /** Domains per topology key, as PreFilter counted them. */
  domains: Map<string, number>;
}

export function topologySpreadPreFilter(pod: PodInfo, snapshot: Snapshot, source: SpreadSelectorSource): TopologySpreadState {
  const { constraints } = constraintsFor(pod.pod, 'DoNotSchedule', source);
  const state: TopologySpreadState = { pod, constraints, matchNum: new Map(), domains: new Map() };
  if (!constraints.length) return state;
  for (const node of snapshot.nodes) {
    if (!hasAllKeys(node.labels, constraints)) continue;
    for (const c of constraints) {
      if (!includesNode(c, pod.pod, node)) continue;
      const k = pairKey(c.topologyKey, node.labels[c.topologyKey]!);
      const had = state.matchNum.get(k);
      if (had === undefined) state.domains.set(c.topologyKey, (state.domains.get(c.topologyKey) ?? 0) + 1);
      state.matchNum.set(k, (had ?? 0) + countMatching(node.pods, c.selector, pod.namespace));
    }
  }
  return state;
}

export function cloneTopologySpreadState(s: TopologySpreadState): TopologySpreadState {
  return { ...s, matchNum: new Map(s.matchNum) };
}

/** AddPod / RemovePod: a pod of the incoming pod's namespace put on or taken off a node. */
export function updateSpreadWithPod(s: TopologySpreadState, other: PodInfo, node: NodeInfo, by: 1 | -1): void {
  if (!s.constraints.length || other.namespace !== s.pod.namespace || !hasAllKeys(node.labels, s.constraints)) return;
  for (const c of s.constraints) {
    if (!c.selector.matches(other.labels) || !includesNode(c, s.pod.pod, node)) continue;
    const k = pairKey(c.topologyKey, node.labels[c.topologyKey]!);
    s.matchNum.set(k, (s.matchNum.get(k) ?? 0) + by);
  }
}

function minMatchNum(s: TopologySpreadState, c: SpreadConstraint): number {
  if ((s.domains.get(c.topologyKey) ?? 0) < c.minDomains) return 0;
  const prefix = `${c.topologyKey}\u0000`;
  let min = Infinity;
  for (const [k, n] of s.matchNum) if (k.startsWith(prefix) && n < min) min = n;
  return min === Infinity ? 0 : min;
}

/** Filter: the reason the node breaks a DoNotSchedule constraint, and whether preemption could help. */
export function topologySpreadFilter(s: TopologySpreadState, node: NodeInfo): { reason: string; unresolvable: boolean } | undefined {
  for (const c of s.constraints) {
    const value = node.labels[c.topologyKey];
    if (value === undefined) return { reason: errReasonNodeLabelNotMatch, unresolvable: true };
    const self = c.selector.matches(s.pod.labels) ? 1 : 0;
    const skew = (s.matchNum.get(pairKey(c.topologyKey, value)) ?? 0) + self - minMatchNum(s, c);
    if (skew > c.maxSkew) return { reason: errReasonConstraintsNotMatch, unresolvable: false };
  }
  return undefined;
}

/** PreScore, Score and NormalizeScore over the feasible nodes: 0-100 each, or undefined when the plugin skips. */
export function topologySpreadScores(pod: PodInfo, snapshot: Snapshot, feasible: NodeInfo[], source: SpreadSelectorSource): Map<string, number> | undefined {
  const { constraints, systemDefaulted } = constraintsFor(pod.pod, 'ScheduleAnyway', source);
  if (!constraints.length || !feasible.length) return undefined;
  // Only the pod's own constraints need every key: a node without a zone still spreads by hostname.
  const requireAll = !systemDefaulted;
  const ignored = new Set<string>();
  const counts = new Map<string, number>();
  const sizes = constraints.map(() => 0);
  for (const node of feasible) {
    if (requireAll && !hasAllKeys(node.labels, constraints)) {
      ignored.add(node.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === labelHostname) return;
      const k = pairKey(c.topologyKey, node.labels[c.topologyKey] ?? '');
      if (!counts.has(k)) {
        counts.set(k, 0);
        sizes[i]!++;
      }
    });
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === labelHostname ? feasible.length - ignored.size : sizes[i]!) + 2));
  for (const node of snapshot.nodes) {
    if (requireAll && !hasAllKeys(node.labels, constraints)) continue;
    for (const c of constraints) {
      if (!includesNode(c, pod.pod, node)) continue;
      const k = pairKey(c.topologyKey, node.labels[c.topologyKey] ?? '');
      const have = counts.get(k);
      if (have === undefined) continue;
      counts.set(k, have + countMatching(node.pods, c.selector, pod.namespace));
    }
  }
  const raw = feasible.map((node) => {
    if (ignored.has(node.name)) return 0;
    let score = 0;
    constraints.forEach((c, i) => {
      const value = node.labels[c.topologyKey];
      if (value === undefined) return;
      const cnt = c.topologyKey === labelHostname ? countMatching(node.pods, c.selector, pod.namespace) : counts.get(pairKey(c.topologyKey, value)) ?? 0;
      score += cnt * weights[i]! + (c.maxSkew - 1);
    });
    return Math.round(score);
  });
  let min = Infinity;
  let max = 0;
  feasible.forEach((n, i) => {
    if (ignored.has(n.name)) return;
    min = Math.min(min, raw[i]!);
    max = Math.max(max, raw[i]!);
  });
  return new Map(
    feasible.map((n, i) => {
      if (ignored.has(n.name)) return [n.name, 0];
      if (max === 0) return [n.name, 100];
      return [n.name, Math.trunc((100 * (max + min - raw[i]!)) / max)];
    }),
  );
}
