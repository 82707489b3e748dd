/**
 * kube-scheduler's DefaultPreemption post-filter, the part that decides: a
 * pod no node fits may preempt (unless its preemptionPolicy is Never, or
 * pods it already preempted are still terminating on its nominated node).
 * On each node where removing pods could help (its filter rejection is not
 * unresolvable), every pod of lower priority is taken off; if the pod then
 * fits, they are put back one by one, the most important first and those
 * whose eviction would break a PodDisruptionBudget before the others, each
 * staying only if the pod still fits: the rest are the node's victims. Of
 * the candidate nodes the one with the fewest PDB violations wins, then the
 * lowest highest victim priority, the smallest sum of victim priorities,
 * the fewest victims, the latest start among the highest-priority victims,
 * then the first by name. The scheduler carries the decision out.
 */
import { isObject, type KubeObject } from '../api/types';
import { specOf, statusOf } from '../controllers/controllerUtils';
import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/labelSelector';
import { SelectorError } from '../selectors/selectorError';
import { addPod, cloneNodeInfo, moreImportant, removePod, type NodeInfo, type PodInfo } from './nodeInfo';
import { cloneFilterState, runFiltersWithNominated, updateFilterState, type Cycle, type Misfit } from './profile';

export interface Candidate {
  node: string;
  /** Most important first. */
  victims: PodInfo[];
  pdbViolations: number;
}

export const noVictimsReason = 'No preemption victims found for incoming pod';
export const notHelpfulReason = 'Preemption is not helpful for scheduling';

/** podTerminatingByPreemption: going, with the DisruptionTarget condition the scheduler gives its victims. */
export function terminatingByPreemption(pod: KubeObject): boolean {
  if (!pod.metadata.deletionTimestamp) return false;
  const conditions = Array.isArray(statusOf(pod)['conditions']) ? (statusOf(pod)['conditions'] as unknown[]).filter(isObject) : [];
  return conditions.some((c) => c['type'] === 'DisruptionTarget' && c['reason'] === 'PreemptionByScheduler');
}

/** PodEligibleToPreemptOthers: undefined when the pod may preempt, else why not. */
export function ineligibleReason(cycle: Cycle, nominatedMisfit: Misfit | undefined): string | undefined {
  const pod = cycle.pod;
  if (specOf(pod.pod)['preemptionPolicy'] === 'Never') return 'not eligible due to preemptionPolicy=Never.';
  const nominatedNode = String(statusOf(pod.pod)['nominatedNodeName'] ?? '');
  if (!nominatedNode || nominatedMisfit?.unresolvable) return undefined;
  const node = cycle.snapshot.byName.get(nominatedNode);
  if (node?.pods.some((p) => p.priority < pod.priority && terminatingByPreemption(p.pod))) return 'not eligible due to a terminating pod on the nominated node.';
  return undefined;
}

/** filterPodsWithPDBViolation: victims whose eviction a budget (with no disruptions left for it) does not allow, and the others. */
function splitByBudgets(pods: PodInfo[], budgets: (namespace: string) => KubeObject[]): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const pdbs = [...new Set(pods.map((p) => p.namespace))].flatMap(budgets);
  const allowed = pdbs.map((pdb) => Number(statusOf(pdb)['disruptionsAllowed'] ?? 0));
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const p of pods) {
    let violated = false;
    if (Object.keys(p.labels).length) {
      pdbs.forEach((pdb, i) => {
        if (pdb.metadata.namespace !== p.namespace) return;
        const selector = labelSelectorFromObject(isObject(specOf(pdb)['selector']) ? (specOf(pdb)['selector'] as LabelSelectorObject) : undefined);
        // A PDB with a nil or empty selector matches nothing.
        if (selector instanceof SelectorError || selector.empty() || !selector.matches(p.labels)) return;
        const disrupted = statusOf(pdb)['disruptedPods'];
        if (isObject(disrupted) && p.pod.metadata.name! in disrupted) return;
        allowed[i]!--;
        if (allowed[i]! < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(p);
  }
  return { violating, nonViolating };
}

/** SelectVictimsOnNode: the fewest, least important pods whose removal lets the pod fit, or why none can. */
export function selectVictimsOnNode(cycle: Cycle, original: NodeInfo, budgets: (namespace: string) => KubeObject[]): Candidate | Misfit {
  const node = cloneNodeInfo(original);
  const state = cloneFilterState(cycle.state);
  const potential: PodInfo[] = [];
  for (const p of [...node.pods]) {
    if (p.priority >= cycle.pod.priority) continue;
    potential.push(p);
    removePod(node, p.key);
    updateFilterState(cycle, state, p, node, -1);
  }
  if (!potential.length) return { reasons: [noVictimsReason], unresolvable: true };
  const misfit = runFiltersWithNominated(cycle, state, node);
  if (misfit) return misfit;
  potential.sort((a, b) => (moreImportant(a, b, cycle.nowMs) ? -1 : moreImportant(b, a, cycle.nowMs) ? 1 : 0));
  const { violating, nonViolating } = splitByBudgets(potential, budgets);
  const victims: PodInfo[] = [];
  let pdbViolations = 0;
  const reprieve = (p: PodInfo): boolean => {
    addPod(node, p);
    updateFilterState(cycle, state, p, node, 1);
    if (!runFiltersWithNominated(cycle, state, node)) return true;
    removePod(node, p.key);
    updateFilterState(cycle, state, p, node, -1);
    victims.push(p);
    return false;
  };
  for (const p of violating) if (!reprieve(p)) pdbViolations++;
  for (const p of nonViolating) reprieve(p);
  if (violating.length && nonViolating.length) victims.sort((a, b) => (moreImportant(a, b, cycle.nowMs) ? -1 : moreImportant(b, a, cycle.nowMs) ? 1 : 0));
  return { node: original.name, victims, pdbViolations };
}

/** The dry run over the nodes preemption might help: candidates, and each other node's reason. */
export function findCandidates(cycle: Cycle, misfits: Map<string, Misfit>, budgets: (namespace: string) => KubeObject[]): { candidates: Candidate[]; statuses: Map<string, Misfit> } {
  const candidates: Candidate[] = [];
  const statuses = new Map<string, Misfit>();
  for (const node of cycle.snapshot.nodes) {
    const misfit = misfits.get(node.name);
    if (!misfit || misfit.unresolvable) continue;
    const result = selectVictimsOnNode(cycle, node, budgets);
    if (!('victims' in result)) statuses.set(node.name, result);
    else if (result.victims.length) candidates.push(result);
    else statuses.set(node.name, { reasons: [`expected at least one victim pod on node "${node.name}"`], unresolvable: true });
  }
  // Candidates that break no budget come first.
  return { candidates: [...candidates.filter((c) => !c.pdbViolations), ...candidates.filter((c) => c.pdbViolations)], statuses };
}

/** pickOneNodeForPreemption: each rule in turn keeps the best-scoring candidates. */
export function pickOneNode(candidates: Candidate[], nowMs: number): Candidate | undefined {
  const start = (p: PodInfo) => p.startTime ?? nowMs;
  const rules: ((c: Candidate) => number)[] = [
    (c) => -c.pdbViolations,
    (c) => -c.victims[0]!.priority,
    (c) => -c.victims.reduce((sum, p) => sum + p.priority + 2 ** 31, 0),
    (c) => -c.victims.length,
    // The latest start time among the highest-priority victims' earliest.
    (c) => Math.min(...c.victims.filter((p) => p.priority === c.victims[0]!.priority).map(start)),
  ];
  let left = candidates;
  for (const rule of rules) {
    if (left.length <= 1) break;
    const scores = left.map(rule);
    const best = Math.max(...scores);
    left = left.filter((_, i) => scores[i] === best);
  }
  return left[0];
}
