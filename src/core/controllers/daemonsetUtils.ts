/**
 * What the DaemonSet controller decides per node and per pod
 * (pkg/controller/daemon/util and the predicates of daemon_controller.go):
 * the pod a DaemonSet would run on a node, whether that node should run it
 * (NodeShouldRunDaemonPod), which node a daemon pod is meant for, and
 * whether a pod is at the DaemonSet's current template.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { affinityFits, untoleratedTaint } from '../api/nodeAffinity';
import { templateGenerationAnnotation } from '../registry/apps/workloads';
import { scaledValue, specOf } from './controllerUtils';

type Obj = Record<string, unknown>;

/** apps.DefaultDaemonSetUniqueLabelKey: the ControllerRevision hash on a daemon pod and on its revision. */
export const controllerRevisionHashLabel = 'controller-revision-hash';
/** extensions.DaemonSetTemplateGenerationKey: the template generation a daemon pod was made from. */
export const templateGenerationLabel = 'pod-template-generation';

export const templateOf = (ds: KubeObject): Obj => (isObject(specOf(ds)['template']) ? (specOf(ds)['template'] as Obj) : {});
const templateSpecOf = (ds: KubeObject): Obj => (isObject(templateOf(ds)['spec']) ? (templateOf(ds)['spec'] as Obj) : {});

/** util.GetTemplateGeneration: the annotation apps/v1 keeps spec.templateGeneration in, if it parses. */
export function templateGenerationOf(ds: KubeObject): number | undefined {
  const v = ds.metadata.annotations?.[templateGenerationAnnotation];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * AddOrUpdateDaemonPodTolerations: daemon pods survive a not-ready or unreachable node and run
 * despite the node-condition taints (and network-unavailable when they use the host's network).
 */
export function addDaemonPodTolerations(spec: Obj): void {
  const add: Obj[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec['hostNetwork'] === true) add.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  for (const t of add) {
    // AddOrUpdateTolerationInPodSpec: one matching on key, operator, value and effect is replaced in place.
    const have = objectsOf(spec['tolerations']);
    const i = have.findIndex((h) => h['key'] === t['key'] && (h['operator'] ?? 'Equal') === t['operator'] && (h['value'] ?? '') === '' && (h['effect'] ?? '') === t['effect']);
    spec['tolerations'] = i < 0 ? [...have, t] : have.map((h, j) => (j === i ? t : h));
  }
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes `metadata.name In [node]` alone. */
export function replaceNodeNameAffinity(spec: Obj, nodeName: string): void {
  const selector = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] };
  const affinity = isObject(spec['affinity']) ? spec['affinity'] : (spec['affinity'] = {});
  const nodeAffinity = isObject(affinity['nodeAffinity']) ? affinity['nodeAffinity'] : (affinity['nodeAffinity'] = {});
  nodeAffinity['requiredDuringSchedulingIgnoredDuringExecution'] = selector;
}

/** util.CreatePodTemplate: the template with the daemon tolerations, the template generation and the revision hash. */
export function daemonPodTemplate(ds: KubeObject, hash: string): Obj {
  const template = structuredClone(templateOf(ds));
  const spec = isObject(template['spec']) ? template['spec'] : (template['spec'] = {});
  addDaemonPodTolerations(spec);
  const meta = isObject(template['metadata']) ? template['metadata'] : (template['metadata'] = {});
  const labels: Record<string, string> = isObject(meta['labels']) ? { ...(meta['labels'] as Record<string, string>) } : {};
  const generation = templateGenerationOf(ds);
  if (generation !== undefined) labels[templateGenerationLabel] = String(generation);
  if (hash) labels[controllerRevisionHashLabel] = hash;
  // A Go map: encoded with its keys sorted.
  meta['labels'] = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return template;
}

/**
 * NodeShouldRunDaemonPod: whether a new daemon pod belongs on the node (nodeName, node affinity and
 * NoSchedule/NoExecute taints all fit), and whether one already there may stay (only NoExecute counts).
 */
export function nodeShouldRunDaemonPod(node: KubeObject, ds: KubeObject): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const nodeName = node.metadata.name!;
  const templateNodeName = templateSpecOf(ds)['nodeName'];
  if (templateNodeName && templateNodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  // NewPod: the template on this node, with the daemon tolerations.
  const spec = structuredClone(templateSpecOf(ds));
  spec['nodeName'] = nodeName;
  addDaemonPodTolerations(spec);
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { ...(templateOf(ds)['metadata'] as KubeObject['metadata']) }, spec };
  if (!affinityFits(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = objectsOf(specOf(node)['taints']);
  const tolerations = objectsOf(spec['tolerations']);
  if (untoleratedTaint(taints, tolerations, (t) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute')) {
    return { shouldRun: false, shouldContinueRunning: !untoleratedTaint(taints, tolerations, (t) => t['effect'] === 'NoExecute') };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** util.GetTargetNodeName: the node a pod is bound to, or the one its `metadata.name In [node]` term names. */
export function targetNodeName(pod: KubeObject): string | undefined {
  const bound = specOf(pod)['nodeName'];
  if (typeof bound === 'string' && bound) return bound;
  const affinity = specOf(pod)['affinity'];
  const required = isObject(affinity) && isObject(affinity['nodeAffinity']) ? affinity['nodeAffinity']['requiredDuringSchedulingIgnoredDuringExecution'] : undefined;
  for (const term of objectsOf(isObject(required) ? required['nodeSelectorTerms'] : undefined)) {
    for (const req of objectsOf(term['matchFields'])) {
      if (req['key'] !== 'metadata.name' || req['operator'] !== 'In') continue;
      const values = Array.isArray(req['values']) ? req['values'] : [];
      return values.length === 1 ? String(values[0]) : undefined;
    }
  }
  return undefined;
}

/** util.IsPodUpdated: the pod carries the current revision hash, or the current template generation. */
export function isPodUpdated(pod: KubeObject, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return (generation !== undefined && labels[templateGenerationLabel] === String(generation)) || (hash !== '' && labels[controllerRevisionHashLabel] === hash);
}

/** podByCreationTimestampAndPhase: bound pods first, then the oldest, then by name. */
export function compareByCreationAndPhase(a: KubeObject, b: KubeObject): number {
  const ba = specOf(a)['nodeName'] ? 0 : 1;
  const bb = specOf(b)['nodeName'] ? 0 : 1;
  if (ba !== bb) return ba - bb;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

const rollingUpdateOf = (ds: KubeObject): Obj | undefined => {
  const strategy = specOf(ds)['updateStrategy'];
  if (!isObject(strategy) || strategy['type'] !== 'RollingUpdate') return undefined;
  return isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : undefined;
};

/** util.SurgeCount: maxSurge scaled to the nodes (rounded up); 0 unless RollingUpdate. */
export function surgeCount(ds: KubeObject, numberToSchedule: number): number {
  const ru = rollingUpdateOf(ds);
  return ru && ru['maxSurge'] !== undefined ? scaledValue(ru['maxSurge'], numberToSchedule, true) : 0;
}

/** util.UnavailableCount: maxUnavailable scaled to the nodes (rounded up); 0 unless RollingUpdate. */
export function unavailableCount(ds: KubeObject, numberToSchedule: number): number {
  const ru = rollingUpdateOf(ds);
  return ru ? scaledValue(ru['maxUnavailable'], numberToSchedule, true) : 0;
}

/** util.AllowsSurge: a RollingUpdate whose maxSurge is not zero. */
export const allowsSurge = (ds: KubeObject): boolean => surgeCount(ds, 1) !== 0;

/** getPatch: the revision data, a patch that replaces spec.template. */
export function revisionPatch(ds: KubeObject): Obj {
  return { spec: { template: { ...structuredClone(templateOf(ds)), $patch: 'replace' } } };
}

/**
 * The failed-pods backoff (flowcontrol.Backoff of 1s doubling to 15m, per DaemonSet and node): a
 * failed daemon pod is deleted at once, another failing within the backoff waits for it.
 */
export class FailedPodsBackoff {
  private readonly entries = new Map<string, { backoffMs: number; lastMs: number }>();
  constructor(private readonly initialMs = 1000, private readonly maxMs = 15 * 60 * 1000) {}

  /** IsInBackOffSinceUpdate: the delay left, or 0 when not in backoff. */
  remaining(key: string, nowMs: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    const left = e.lastMs + e.backoffMs - nowMs;
    return left > 0 ? left : 0;
  }

  /** Next: starts at the initial delay (again, after 2x max of quiet), else doubles up to max. */
  next(key: string, nowMs: number): void {
    const e = this.entries.get(key);
    const expired = !e || nowMs - e.lastMs > 2 * this.maxMs;
    this.entries.set(key, { backoffMs: expired ? this.initialMs : Math.min(e.backoffMs * 2, this.maxMs), lastMs: nowMs });
  }
}
