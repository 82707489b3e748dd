/**
 * kube-scheduler's default profile for one scheduling cycle: the filters in
 * the profile's order (NodeUnschedulable, TaintToleration, NodeAffinity,
 * NodePorts, NodeResourcesFit, VolumeBinding, PodTopologySpread,
 * InterPodAffinity), the first that rejects a node giving its reasons, run
 * with the pods nominated to the node at the pod's priority or above counted
 * in (RunFilterPluginsWithNominatedPods); and the scores, each plugin's
 * normalised to 0-100 and weighted as the profile weighs them
 * (TaintToleration 3, NodeAffinity 2, PodTopologySpread 2, InterPodAffinity
 * 2, NodeResourcesFit's LeastAllocated 1, NodeResourcesBalancedAllocation 1;
 * ImageLocality gives every simulated node the same).
 */
import { objectsOf } from '../api/types';
import { specOf } from '../controllers/controllerUtils';
import { affinityFits, nodeSelectorMatches, tolerates } from '../api/nodeAffinity';
import { isObject } from '../api/types';
import { addPod, cloneNodeInfo, portsConflict, type NodeInfo, type PodInfo, type Snapshot } from './nodeInfo';
import { cloneInterPodAffinityState, interPodAffinityFilter, interPodAffinityPreFilter, interPodAffinityScores, updateWithPod, type InterPodAffinityState } from './interPodAffinity';
import { cloneTopologySpreadState, topologySpreadFilter, topologySpreadPreFilter, topologySpreadScores, updateSpreadWithPod, type SpreadSelectorSource, type TopologySpreadState } from './podTopologySpread';

/** Why a node does not fit; unresolvable reasons are ones preemption cannot help with. */
export interface Misfit {
  reasons: string[];
  unresolvable: boolean;
}

/** What PreFilter computed for the pod; AddPod / RemovePod keep it true for a node with pods put on or taken off. */
export interface FilterState {
  ipa: InterPodAffinityState;
  pts: TopologySpreadState;
}

export interface Cycle {
  pod: PodInfo;
  snapshot: Snapshot;
  state: FilterState;
  /** VolumeBinding's filter for a node, when the pod has claims. */
  volumes?: (node: NodeInfo) => Misfit | undefined;
  /** The pods nominated to a node (status.nominatedNodeName) while they wait for room there. */
  nominated: (node: string) => PodInfo[];
  spreadSelectors: SpreadSelectorSource;
  nowMs: number;
}

export function newCycle(pod: PodInfo, snapshot: Snapshot, spreadSelectors: SpreadSelectorSource, nominated: (node: string) => PodInfo[], nowMs: number, volumes?: (node: NodeInfo) => Misfit | undefined): Cycle {
  const state = { ipa: interPodAffinityPreFilter(pod, snapshot), pts: topologySpreadPreFilter(pod, snapshot, spreadSelectors) };
  return { pod, snapshot, state, nominated, spreadSelectors, nowMs, ...(volumes ? { volumes } : {}) };
}

export const cloneFilterState = (s: FilterState): FilterState => ({ ipa: cloneInterPodAffinityState(s.ipa), pts: cloneTopologySpreadState(s.pts) });

/** The PreFilter extensions' AddPod (by 1) and RemovePod (by -1). */
export function updateFilterState(cycle: Cycle, s: FilterState, other: PodInfo, node: NodeInfo, by: 1 | -1): void {
  updateWithPod(s.ipa, other, node, by, cycle.snapshot);
  updateSpreadWithPod(s.pts, other, node, by);
}

const noScheduleEffects = (t: Record<string, unknown>) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute';

/** NodeResourcesFit's filter (fitsRequest): the pod count, then every requested resource within what is left. */
function resourcesFit(pod: PodInfo, node: NodeInfo): string[] {
  const reasons: string[] = [];
  const maxPods = node.allocatable.get('pods');
  if (maxPods !== undefined && BigInt(node.pods.length + 1) * 1000n > maxPods) reasons.push('Too many pods');
  for (const [name, want] of pod.requests) {
    if (name === 'pods') continue;
    const left = (node.allocatable.get(name) ?? 0n) - (node.requested.get(name) ?? 0n);
    if (want > left) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** RunFilterPlugins: the first plugin that rejects the node, in the profile's order. */
export function runFilters(cycle: Cycle, s: FilterState, node: NodeInfo): Misfit | undefined {
  const pod = cycle.pod;
  const tolerations = objectsOf(specOf(pod.pod)['tolerations']);
  const nodeSpec = specOf(node.node);
  if (nodeSpec['unschedulable'] === true && !tolerations.some((t) => tolerates(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))) {
    return { reasons: ['node(s) were unschedulable'], unresolvable: true };
  }
  const taint = objectsOf(nodeSpec['taints']).find((t) => noScheduleEffects(t) && !tolerations.some((tol) => tolerates(tol, t)));
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint['key']}: ${taint['value'] ?? ''}}`], unresolvable: true };
  if (!affinityFits(pod.pod, node.node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
  if (pod.ports.some((p) => node.pods.some((o) => o.ports.some((q) => portsConflict(p, q))))) return { reasons: ["node(s) didn't have free ports for the requested pod ports"], unresolvable: false };
  const insufficient = resourcesFit(pod, node);
  if (insufficient.length) return { reasons: insufficient, unresolvable: false };
  const volumes = cycle.volumes?.(node);
  if (volumes) return volumes;
  const spread = topologySpreadFilter(s.pts, node);
  if (spread) return { reasons: [spread.reason], unresolvable: spread.unresolvable };
  const affinity = interPodAffinityFilter(s.ipa, node);
  if (affinity) return { reasons: [affinity.reason], unresolvable: affinity.unresolvable };
  return undefined;
}

/**
 * RunFilterPluginsWithNominatedPods: with the pods nominated to the node at the pod's priority or above put
 * on it first (so a lower pod does not take the room a preemptor waits for), then, when there were any, without.
 */
export function runFiltersWithNominated(cycle: Cycle, s: FilterState, node: NodeInfo): Misfit | undefined {
  const nominated = cycle.nominated(node.name).filter((p) => p.priority >= cycle.pod.priority && p.pod.metadata.uid !== cycle.pod.pod.metadata.uid && !node.pods.some((q) => q.key === p.key));
  if (nominated.length) {
    const withNominated = cloneNodeInfo(node);
    const state = cloneFilterState(s);
    for (const p of nominated) {
      addPod(withNominated, p);
      updateFilterState(cycle, state, p, withNominated, 1);
    }
    const misfit = runFilters(cycle, state, withNominated);
    if (misfit) return misfit;
  }
  return runFilters(cycle, s, node);
}

/** DefaultNormalizeScore. */
function normalize(raw: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? 100 : 0));
  return raw.map((r) => {
    const s = Math.trunc((100 * r) / max);
    return reverse ? 100 - s : s;
  });
}

/** LeastAllocated over cpu and memory (weights 1), counting the pod in with the non-zero defaults. */
function leastAllocated(pod: PodInfo, node: NodeInfo): number {
  let score = 0n;
  let weights = 0n;
  const one = (requested: bigint, capacity: bigint | undefined) => {
    if (!capacity) return;
    weights++;
    if (requested <= capacity) score += ((capacity - requested) * 100n) / capacity;
  };
  one(node.nonZero.cpu + pod.nonZero.cpu, node.allocatable.get('cpu'));
  const memory = node.allocatable.get('memory');
  one(node.nonZero.memory + pod.nonZero.memory, memory === undefined ? undefined : memory / 1000n);
  return weights ? Number(score / weights) : 0;
}

/** BalancedAllocation: how evenly cpu and memory would be requested, by the requests themselves (1.32 scores best-effort pods too). */
function balancedAllocation(pod: PodInfo, node: NodeInfo): number {
  const fractions: number[] = [];
  for (const name of ['cpu', 'memory']) {
    const capacity = node.allocatable.get(name);
    if (!capacity) continue;
    fractions.push(Math.min(1, Number((node.requested.get(name) ?? 0n) + (pod.requests.get(name) ?? 0n)) / Number(capacity)));
  }
  const std = fractions.length === 2 ? Math.abs((fractions[0]! - fractions[1]!) / 2) : 0;
  return Math.trunc((1 - std) * 100);
}

/** The score of every feasible node: each plugin's 0-100, weighted and summed. */
export function scoreNodes(cycle: Cycle, feasible: NodeInfo[]): Map<string, number> {
  const pod = cycle.pod;
  const total = new Map(feasible.map((n) => [n.name, 0]));
  const addAll = (weight: number, scores: number[] | Map<string, number> | undefined) => {
    if (!scores) return;
    feasible.forEach((n, i) => total.set(n.name, total.get(n.name)! + weight * ((Array.isArray(scores) ? scores[i] : scores.get(n.name)) ?? 0)));
  };
  // TaintToleration: fewer untolerated PreferNoSchedule taints score higher.
  const preferNoSchedule = objectsOf(specOf(pod.pod)['tolerations']).filter((t) => !t['effect'] || t['effect'] === 'PreferNoSchedule');
  addAll(3, normalize(feasible.map((n) => objectsOf(specOf(n.node)['taints']).filter((t) => t['effect'] === 'PreferNoSchedule' && !preferNoSchedule.some((tol) => tolerates(tol, t))).length), true));
  // NodeAffinity: the weights of the preferred terms the node matches.
  const nodeAffinity = isObject(specOf(pod.pod)['affinity']) && isObject((specOf(pod.pod)['affinity'] as Record<string, unknown>)['nodeAffinity']) ? ((specOf(pod.pod)['affinity'] as Record<string, unknown>)['nodeAffinity'] as Record<string, unknown>) : {};
  const preferred = objectsOf(nodeAffinity['preferredDuringSchedulingIgnoredDuringExecution']);
  if (preferred.length) {
    addAll(2, normalize(feasible.map((n) => preferred.reduce((sum, p) => (isObject(p['preference']) && nodeSelectorMatches([p['preference']], n.node) ? sum + Number(p['weight'] ?? 0) : sum), 0)), false));
  }
  addAll(2, topologySpreadScores(pod, cycle.snapshot, feasible, cycle.spreadSelectors));
  addAll(2, interPodAffinityScores(pod, cycle.snapshot, feasible));
  addAll(1, feasible.map((n) => leastAllocated(pod, n)));
  addAll(1, feasible.map((n) => balancedAllocation(pod, n)));
  return total;
}
