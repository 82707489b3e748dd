/**
 * A Job's pods as the Job controller sees them (pkg/controller/job's pod
 * helpers): the tracking finalizer, when a pod counts as failed, the pod
 * created from the template (Indexed: its index and failure counts), which
 * active pods go first, and the OnFailure restarts past backoffLimit.
 */
import { isObject, type KubeObject } from '../api/types';
import { compareActivePods, newControllerRef, specOf, statusOf } from './controllerUtils';
import { completionIndexAnnotation, completionIndexOf, generateNameWithIndex, unknownIndex } from './jobIndexes';
import { matchPodFailurePolicy } from './jobPodFailurePolicy';

type Obj = Record<string, unknown>;

export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
export const jobIndexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';
export const jobIndexIgnoredFailureCountAnnotation = 'batch.kubernetes.io/job-index-ignored-failure-count';

export const hasFinalizer = (pod: KubeObject): boolean => pod.metadata.finalizers?.includes(jobTrackingFinalizer) ?? false;
export const phaseOf = (pod: KubeObject): unknown => statusOf(pod)['phase'];
/** controller.IsPodTerminating: being deleted and not finished. */
export const isPodTerminating = (pod: KubeObject): boolean => !!pod.metadata.deletionTimestamp && phaseOf(pod) !== 'Succeeded' && phaseOf(pod) !== 'Failed';

/** isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded. */
export function isPodFailed(pod: KubeObject, job: KubeObject): boolean {
  if (phaseOf(pod) === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata.deletionTimestamp && phaseOf(pod) !== 'Succeeded';
}

export function onlyReplaceFailedPods(job: KubeObject): boolean {
  return specOf(job)['podReplacementPolicy'] === 'Failed' || isObject(specOf(job)['podFailurePolicy']);
}

export const hasBackoffLimitPerIndex = (job: KubeObject): boolean => typeof specOf(job)['backoffLimitPerIndex'] === 'number';

export const indexFailureCount = (pod: KubeObject, annotation: string): number => {
  const v = Number(pod.metadata.annotations?.[annotation] ?? 0);
  return Number.isInteger(v) && v >= 0 && v <= 2147483647 ? v : 0;
};

/** isIndexFailed: a FailIndex rule matched, or a counted failure with the index's failures at backoffLimitPerIndex. */
export function isIndexFailed(job: KubeObject, pod: KubeObject): boolean {
  let counted = false;
  if (isPodFailed(pod, job)) {
    const m = matchPodFailurePolicy(job, pod);
    if (m.action === 'FailIndex') return true;
    counted = m.countFailed;
  }
  return counted && indexFailureCount(pod, jobIndexFailureCountAnnotation) >= Number(specOf(job)['backoffLimitPerIndex']);
}

/** The pod manageJob creates: the template with the finalizer, Indexed pods with their index. */
export function podFromTemplate(job: KubeObject, index: number, replacing: KubeObject | undefined): KubeObject {
  const template = isObject(specOf(job)['template']) ? (specOf(job)['template'] as Obj) : {};
  const tmeta = (isObject(template['metadata']) ? template['metadata'] : {}) as KubeObject['metadata'];
  const podSpec = structuredClone(isObject(template['spec']) ? template['spec'] : {}) as Obj;
  const labels = { ...(tmeta.labels ?? {}) };
  const annotations = { ...(tmeta.annotations ?? {}) };
  const finalizers = [...(tmeta.finalizers ?? [])];
  if (!finalizers.includes(jobTrackingFinalizer)) finalizers.push(jobTrackingFinalizer);
  let generateName = `${job.metadata.name}-`;
  if (index !== unknownIndex) {
    // addCompletionIndexEnvVariables reads the label (PodIndexLabel, GA in 1.32).
    for (const key of ['initContainers', 'containers']) {
      for (const c of Array.isArray(podSpec[key]) ? (podSpec[key] as unknown[]).filter(isObject) : []) {
        const env = Array.isArray(c['env']) ? (c['env'] as unknown[]).filter(isObject) : [];
        if (env.some((v) => v['name'] === 'JOB_COMPLETION_INDEX')) continue;
        c['env'] = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${completionIndexAnnotation}']` } } }];
      }
    }
    annotations[completionIndexAnnotation] = String(index);
    labels[completionIndexAnnotation] = String(index);
    podSpec['hostname'] = `${job.metadata.name}-${index}`;
    generateName = generateNameWithIndex(job.metadata.name!, index);
    if (hasBackoffLimitPerIndex(job)) {
      // addIndexFailureCountAnnotation: the replaced pod's counts, plus its own failure.
      let failures = 0;
      let ignored = 0;
      if (replacing) {
        failures = indexFailureCount(replacing, jobIndexFailureCountAnnotation);
        ignored = indexFailureCount(replacing, jobIndexIgnoredFailureCountAnnotation);
        if (matchPodFailurePolicy(job, replacing).countFailed) failures++;
        else ignored++;
      }
      annotations[jobIndexFailureCountAnnotation] = String(failures);
      if (ignored > 0) annotations[jobIndexIgnoredFailureCountAnnotation] = String(ignored);
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName,
      ...(Object.keys(labels).length ? { labels } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      finalizers,
      ownerReferences: [newControllerRef(job)],
    },
    spec: podSpec,
  };
}

/** activePodsForRemoval: for Indexed Jobs first the pods without a valid index and repeats of one, then by controller.ActivePods. */
export function activePodsForRemoval(activePods: KubeObject[], indexed: boolean, completions: number | undefined, rmAtLeast: number): KubeObject[] {
  const rm: KubeObject[] = [];
  let left = activePods;
  if (indexed) {
    left = [];
    const byIndex = new Map<number, KubeObject[]>();
    for (const p of activePods) {
      const ix = completionIndexOf(p);
      if (ix === unknownIndex || ix >= (completions ?? 0)) rm.push(p);
      else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
    }
    for (const [, same] of [...byIndex].sort((a, b) => a[0] - b[0])) {
      const sorted = [...same].sort(compareActivePods);
      rm.push(...sorted.slice(0, -1));
      left.push(sorted[sorted.length - 1]!);
    }
  }
  if (rm.length < rmAtLeast) rm.push(...[...left].sort(compareActivePods).slice(0, rmAtLeast - rm.length));
  return rm;
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, the container restarts of running pods reach backoffLimit. */
export function pastBackoffLimitOnFailure(job: KubeObject, all: KubeObject[]): boolean {
  const template = specOf(job)['template'];
  if (!isObject(template) || !isObject(template['spec']) || template['spec']['restartPolicy'] !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of all) {
    if (phaseOf(pod) !== 'Running' && phaseOf(pod) !== 'Pending') continue;
    for (const k of ['initContainerStatuses', 'containerStatuses']) {
      const list = statusOf(pod)[k];
      for (const cs of Array.isArray(list) ? list.filter(isObject) : []) restarts += Number(cs['restartCount'] ?? 0);
    }
  }
  const limit = Number(specOf(job)['backoffLimit'] ?? 6);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}
