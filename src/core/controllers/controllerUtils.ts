/**
 * Helpers the workload controllers share (pkg/controller/controller_utils.go
 * and the pod readiness helpers of pkg/api/v1/pod).
 */
import { isObject, type KubeObject, type OwnerReference } from '../api/types';
import type { KeyValue } from '../storage/interface';
import { StatusError } from '../errors';

type Obj = Record<string, unknown>;

/** The 404 an update function throws when the object it was to change is gone or replaced: the write is dropped, the next event brings the work back. */
export const objectGone = (message = 'gone'): StatusError =>
  new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message });

export const specOf = (obj: KubeObject): Obj => (isObject(obj['spec']) ? obj['spec'] : {});
export const statusOf = (obj: KubeObject): Obj => (isObject(obj['status']) ? obj['status'] : {});

/** podutil.IsPodTerminal: the pod has Succeeded or Failed, and none of its containers will run again. */
export function isPodTerminal(pod: object): boolean {
  const status = (pod as { status?: unknown }).status;
  const phase = isObject(status) ? status['phase'] : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** The owner reference with controller: true (metav1.GetControllerOf). */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The reference a controller puts on what it creates (metav1.NewControllerRef). */
export function newControllerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

/** namespace/name of the controller of a stored object of the given kind, read from its watch event. */
export function controllerKeyOf(kv: KeyValue | undefined, kind: string): string | undefined {
  if (!kv || !kv.value.includes('"ownerReferences"')) return undefined;
  try {
    const obj = JSON.parse(kv.value) as KubeObject;
    const ref = controllerRefOf(obj);
    return ref && ref.kind === kind ? `${obj.metadata.namespace ?? ''}/${ref.name}` : undefined;
  } catch {
    return undefined;
  }
}

function readyCondition(pod: KubeObject): Obj | undefined {
  const conditions = statusOf(pod)['conditions'];
  return Array.isArray(conditions) ? (conditions as unknown[]).find((c): c is Obj => isObject(c) && c['type'] === 'Ready') : undefined;
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return readyCondition(pod)?.['status'] === 'True';
}

/** podutil.IsPodAvailable: ready for at least minReadySeconds. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: Date): boolean {
  const ready = readyCondition(pod);
  if (ready?.['status'] !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(String(ready['lastTransitionTime'] ?? ''));
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now.getTime();
}

/** controller.IsPodActive: not terminating and not finished. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = statusOf(pod)['phase'];
  return !pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

/** controller.ActivePods order, first to delete first: unbound, pending, not ready, then the newest. */
export function compareActivePods(a: KubeObject, b: KubeObject): number {
  const rank = (pod: KubeObject): number[] => {
    const phase = statusOf(pod)['phase'];
    return [specOf(pod)['nodeName'] ? 1 : 0, phase === 'Pending' ? 0 : phase === 'Unknown' ? 1 : 2, isPodReady(pod) ? 1 : 0, -Date.parse(pod.metadata.creationTimestamp ?? '') || 0];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return 0;
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.endsWith('%')) {
    const scaled = (Number(value.slice(0, -1)) * total) / 100;
    return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
  }
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/** Every key of want is in have with the same value (labels.SelectorFromSet(want).Matches(have)). */
export function labelsInclude(have: Record<string, string> | undefined, want: Record<string, string> | undefined): boolean {
  return Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
}

/** controller.GetPodFromTemplate: the template's labels, annotations, finalizers and spec, generateName `<owner>-`, a controller reference. */
export function podFromTemplate(template: Obj, owner: KubeObject): KubeObject {
  const tmeta = isObject(template['metadata']) ? (template['metadata'] as KubeObject['metadata']) : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.metadata.name}-`,
      ...(tmeta.labels ? { labels: { ...tmeta.labels } } : {}),
      ...(tmeta.annotations ? { annotations: { ...tmeta.annotations } } : {}),
      ...(tmeta.finalizers ? { finalizers: [...tmeta.finalizers] } : {}),
      ownerReferences: [newControllerRef(owner)],
    },
    spec: structuredClone(template['spec'] ?? {}),
  };
}
