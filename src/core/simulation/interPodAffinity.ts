/**
 * kube-scheduler's InterPodAffinity plugin. Filter: the incoming pod's
 * required podAffinity needs, in the node's topology domain of each term, a
 * pod matching all its terms (unless no pod anywhere matches and the pod
 * matches its own terms: the first pod of a group with affinity to itself);
 * its required podAntiAffinity refuses a domain holding a pod a term
 * matches; and an existing pod's required anti-affinity refuses the
 * incoming pod in that pod's domain. Score: the preferred terms of both
 * sides (and existing pods' required affinity, at hardPodAffinityWeight 1)
 * add or take their weight per domain, normalised to 0-100 between the
 * lowest and highest node. A term's namespaces default to its pod's own,
 * namespaceSelector adds the namespaces it selects ({} every one). A
 * term's matchLabelKeys / mismatchLabelKeys are already in its selector: the
 * pod strategy merged them when the pod was created, as kube-apiserver does.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { specOf } from '../controllers/controllerUtils';
import { labelSelectorFromObject, nothingLabelSelector, type LabelSelector, type LabelSelectorObject } from '../selectors/labelSelector';
import { SelectorError } from '../selectors/selectorError';
import type { NodeInfo, PodInfo, Snapshot } from './nodeInfo';

export const errReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const errReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";
export const errReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";

/** framework.AffinityTerm: a PodAffinityTerm with its selectors parsed. */
export interface AffinityTerm {
  namespaces: ReadonlySet<string>;
  /** undefined: no namespaceSelector (it selects nothing). */
  namespaceSelector: LabelSelector | undefined;
  selector: LabelSelector;
  topologyKey: string;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

export interface PodAffinityTerms {
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: WeightedAffinityTerm[];
  preferredAntiAffinity: WeightedAffinityTerm[];
}

const asSelector = (s: LabelSelector | SelectorError): LabelSelector => (s instanceof SelectorError ? nothingLabelSelector() : s);

function newAffinityTerm(pod: KubeObject, term: Record<string, unknown>): AffinityTerm {
  const namespaces = Array.isArray(term['namespaces']) ? (term['namespaces'] as unknown[]).filter((n): n is string => typeof n === 'string') : [];
  const nsSelector = isObject(term['namespaceSelector']) ? asSelector(labelSelectorFromObject(term['namespaceSelector'] as LabelSelectorObject)) : undefined;
  // GetNamespacesFromPodAffinityTerm: no namespaces and no namespaceSelector means the pod's own namespace.
  if (!namespaces.length && !nsSelector) namespaces.push(pod.metadata.namespace ?? '');
  return { namespaces: new Set(namespaces), namespaceSelector: nsSelector, selector: asSelector(labelSelectorFromObject(isObject(term['labelSelector']) ? (term['labelSelector'] as LabelSelectorObject) : undefined)), topologyKey: String(term['topologyKey'] ?? '') };
}

/** The pod's affinity terms, parsed once per version of the pod. */
export function podAffinityTermsOf(pod: KubeObject): PodAffinityTerms {
  const affinity = isObject(specOf(pod)['affinity']) ? (specOf(pod)['affinity'] as Record<string, unknown>) : {};
  const side = (name: string) => (isObject(affinity[name]) ? (affinity[name] as Record<string, unknown>) : {});
  const required = (s: Record<string, unknown>) => objectsOf(s['requiredDuringSchedulingIgnoredDuringExecution']).map((t) => newAffinityTerm(pod, t));
  const preferred = (s: Record<string, unknown>) =>
    objectsOf(s['preferredDuringSchedulingIgnoredDuringExecution']).map((w) => ({ ...newAffinityTerm(pod, isObject(w['podAffinityTerm']) ? w['podAffinityTerm'] : {}), weight: Number(w['weight'] ?? 0) }));
  const podAffinity = side('podAffinity');
  const podAntiAffinity = side('podAntiAffinity');
  return { requiredAffinity: required(podAffinity), requiredAntiAffinity: required(podAntiAffinity), preferredAffinity: preferred(podAffinity), preferredAntiAffinity: preferred(podAntiAffinity) };
}

export const hasAffinityTerms = (t: PodAffinityTerms): boolean => t.requiredAffinity.length + t.requiredAntiAffinity.length + t.preferredAffinity.length + t.preferredAntiAffinity.length > 0;

/** AffinityTerm.Matches: the pod is in one of the term's namespaces and its labels match. */
export function termMatches(term: AffinityTerm, pod: PodInfo, namespaceLabels: Record<string, string> | undefined): boolean {
  const inNamespace = term.namespaces.has(pod.namespace) || (term.namespaceSelector !== undefined && namespaceLabels !== undefined && term.namespaceSelector.matches(namespaceLabels));
  return inNamespace && term.selector.matches(pod.labels);
}

const matchesAll = (terms: AffinityTerm[], pod: PodInfo, nsLabels: Record<string, string> | undefined) => terms.length > 0 && terms.every((t) => termMatches(t, pod, nsLabels));

const pairKey = (key: string, value: string) => `${key}\u0000${value}`;

/** topologyToMatchedTermCount: counts per topology pair; a pair counted down to zero is gone. */
type Counts = Map<string, number>;

function bump(counts: Counts, key: string, value: string, by: number): void {
  const k = pairKey(key, value);
  const n = (counts.get(k) ?? 0) + by;
  if (n === 0) counts.delete(k);
  else counts.set(k, n);
}

/** The PreFilter state: the incoming pod and the counts its filter reads; AddPod / RemovePod keep them current. */
export interface InterPodAffinityState {
  pod: PodInfo;
  namespaceLabels: Record<string, string> | undefined;
  existingAntiAffinity: Counts;
  affinity: Counts;
  antiAffinity: Counts;
}

/** The counts one existing pod on its node contributes (updateWithPod, by a multiplier). */
export function updateWithPod(state: InterPodAffinityState, existing: PodInfo, node: NodeInfo, by: 1 | -1, snapshot: Snapshot): void {
  const labels = node.labels;
  for (const t of existing.affinity.requiredAntiAffinity) {
    if (t.topologyKey in labels && termMatches(t, state.pod, state.namespaceLabels)) bump(state.existingAntiAffinity, t.topologyKey, labels[t.topologyKey]!, by);
  }
  const nsLabels = snapshot.namespaceLabels(existing.namespace);
  if (matchesAll(state.pod.affinity.requiredAffinity, existing, nsLabels)) {
    for (const t of state.pod.affinity.requiredAffinity) if (t.topologyKey in labels) bump(state.affinity, t.topologyKey, labels[t.topologyKey]!, by);
  }
  for (const t of state.pod.affinity.requiredAntiAffinity) {
    if (t.topologyKey in labels && termMatches(t, existing, nsLabels)) bump(state.antiAffinity, t.topologyKey, labels[t.topologyKey]!, by);
  }
}

export function interPodAffinityPreFilter(pod: PodInfo, snapshot: Snapshot): InterPodAffinityState {
  const state: InterPodAffinityState = { pod, namespaceLabels: snapshot.namespaceLabels(pod.namespace), existingAntiAffinity: new Map(), affinity: new Map(), antiAffinity: new Map() };
  const own = pod.affinity.requiredAffinity.length + pod.affinity.requiredAntiAffinity.length > 0;
  for (const node of snapshot.nodes) {
    for (const existing of node.pods) if (own || existing.affinity.requiredAntiAffinity.length) updateWithPod(state, existing, node, 1, snapshot);
  }
  return state;
}

export function cloneInterPodAffinityState(s: InterPodAffinityState): InterPodAffinityState {
  return { ...s, existingAntiAffinity: new Map(s.existingAntiAffinity), affinity: new Map(s.affinity), antiAffinity: new Map(s.antiAffinity) };
}

function satisfiesAffinity(s: InterPodAffinityState, node: NodeInfo): boolean {
  let podsExist = true;
  for (const t of s.pod.affinity.requiredAffinity) {
    // All topology labels must exist on the node.
    if (!(t.topologyKey in node.labels)) return false;
    if (!((s.affinity.get(pairKey(t.topologyKey, node.labels[t.topologyKey]!)) ?? 0) > 0)) podsExist = false;
  }
  // The first pod of a group with affinity to itself: nothing matches anywhere, but it matches its own terms.
  return podsExist || (s.affinity.size === 0 && matchesAll(s.pod.affinity.requiredAffinity, s.pod, s.namespaceLabels));
}

function satisfiesAntiAffinity(s: InterPodAffinityState, node: NodeInfo): boolean {
  if (!s.antiAffinity.size) return true;
  return !s.pod.affinity.requiredAntiAffinity.some((t) => t.topologyKey in node.labels && (s.antiAffinity.get(pairKey(t.topologyKey, node.labels[t.topologyKey]!)) ?? 0) > 0);
}

function satisfiesExistingAntiAffinity(s: InterPodAffinityState, node: NodeInfo): boolean {
  if (!s.existingAntiAffinity.size) return true;
  return !Object.entries(node.labels).some(([k, v]) => (s.existingAntiAffinity.get(pairKey(k, v)) ?? 0) > 0);
}

/** Filter: the reason and whether preemption could help (anti-affinity: removing pods may; affinity: it cannot). */
export function interPodAffinityFilter(s: InterPodAffinityState, node: NodeInfo): { reason: string; unresolvable: boolean } | undefined {
  if (!satisfiesAffinity(s, node)) return { reason: errReasonAffinityRulesNotMatch, unresolvable: true };
  if (!satisfiesAntiAffinity(s, node)) return { reason: errReasonAntiAffinityRulesNotMatch, unresolvable: false };
  if (!satisfiesExistingAntiAffinity(s, node)) return { reason: errReasonExistingAntiAffinityRulesNotMatch, unresolvable: false };
  return undefined;
}

/** PreScore, Score and NormalizeScore for the feasible nodes: 0-100 each, or undefined when the plugin skips. */
export function interPodAffinityScores(pod: PodInfo, snapshot: Snapshot, feasible: NodeInfo[]): Map<string, number> | undefined {
  const hasConstraints = pod.affinity.preferredAffinity.length + pod.affinity.preferredAntiAffinity.length > 0;
  const nsLabels = snapshot.namespaceLabels(pod.namespace);
  const topologyScore = new Map<string, Map<string, number>>();
  const add = (key: string, value: string, by: number) => {
    let m = topologyScore.get(key);
    if (!m) topologyScore.set(key, (m = new Map()));
    m.set(value, (m.get(value) ?? 0) + by);
  };
  const process = (terms: (AffinityTerm & { weight?: number })[], target: PodInfo, targetNs: Record<string, string> | undefined, node: NodeInfo, sign: number, weight?: number) => {
    for (const t of terms) {
      if (t.topologyKey in node.labels && termMatches(t, target, targetNs)) add(t.topologyKey, node.labels[t.topologyKey]!, (weight ?? t.weight ?? 0) * sign);
    }
  };
  for (const node of snapshot.nodes) {
    if (!Object.keys(node.labels).length) continue;
    for (const existing of node.pods) {
      if (!hasConstraints && !hasAffinityTerms(existing.affinity)) continue;
      const existingNs = snapshot.namespaceLabels(existing.namespace);
      process(pod.affinity.preferredAffinity, existing, existingNs, node, 1);
      process(pod.affinity.preferredAntiAffinity, existing, existingNs, node, -1);
      // HardPodAffinityWeight (1): an existing pod's required affinity the incoming pod matches.
      process(existing.affinity.requiredAffinity, pod, nsLabels, node, 1, 1);
      process(existing.affinity.preferredAffinity, pod, nsLabels, node, 1);
      process(existing.affinity.preferredAntiAffinity, pod, nsLabels, node, -1);
    }
  }
  if (!topologyScore.size) return undefined;
  const raw = feasible.map((n) => {
    let score = 0;
    for (const [key, values] of topologyScore) if (key in n.labels) score += values.get(n.labels[key]!) ?? 0;
    return score;
  });
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return new Map(feasible.map((n, i) => [n.name, diff > 0 ? Math.trunc(100 * ((raw[i]! - min) / diff)) : 0]));
}
