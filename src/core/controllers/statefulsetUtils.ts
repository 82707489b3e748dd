/**
 * The pure parts of the StatefulSet controller (stateful_set_utils.go): pod
 * identity from the ordinal in a pod's name, the pods and claims a set makes,
 * the revision patch of its template, and the owner references the
 * persistentVolumeClaimRetentionPolicy asks for on each claim.
 */
import { isObject, type KubeObject, type OwnerReference } from '../api/types';
import { isPodAvailable, isPodReady, newControllerRef, specOf, statusOf } from './controllerUtils';
import { goJson } from './history';

type Obj = Record<string, unknown>;

export const statefulSetPodNameLabel = 'statefulset.kubernetes.io/pod-name';
export const podIndexLabel = 'apps.kubernetes.io/pod-index';
export const statefulSetRevisionLabel = 'controller-revision-hash';

const statefulPodName = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: `<parent>-<ordinal>`, or no parent and -1. */
export function parentAndOrdinal(pod: KubeObject): { parent: string; ordinal: number } {
  const m = statefulPodName.exec(pod.metadata.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  // strconv.ParseInt(..., 10, 32): out of range is no ordinal.
  return { parent: m[1]!, ordinal: n <= 2147483647 ? n : -1 };
}

export const ordinalOf = (pod: KubeObject): number => parentAndOrdinal(pod).ordinal;
export const replicasOf = (set: KubeObject): number => Number(specOf(set)['replicas'] ?? 1);
export const startOrdinal = (set: KubeObject): number => (isObject(specOf(set)['ordinals']) ? Number((specOf(set)['ordinals'] as Obj)['start'] ?? 0) : 0);
export const endOrdinal = (set: KubeObject): number => startOrdinal(set) + replicasOf(set) - 1;
export const podName = (set: KubeObject, ordinal: number): string => `${set.metadata.name}-${ordinal}`;
export const isMemberOf = (set: KubeObject, pod: KubeObject): boolean => parentAndOrdinal(pod).parent === set.metadata.name;

export function inOrdinalRange(pod: KubeObject, set: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  return ordinal >= startOrdinal(set) && ordinal <= endOrdinal(set);
}

export const templateOf = (set: KubeObject): Obj => (isObject(specOf(set)['template']) ? (specOf(set)['template'] as Obj) : {});
export const claimTemplatesOf = (set: KubeObject): KubeObject[] =>
  (Array.isArray(specOf(set)['volumeClaimTemplates']) ? (specOf(set)['volumeClaimTemplates'] as unknown[]).filter(isObject) : []) as KubeObject[];
const podSpecOf = (pod: KubeObject): Obj => (isObject(pod['spec']) ? pod['spec'] : (pod['spec'] = {}));
const volumesOf = (pod: KubeObject): Obj[] => (Array.isArray(podSpecOf(pod)['volumes']) ? (podSpecOf(pod)['volumes'] as unknown[]).filter(isObject) : []);

/** getPersistentVolumeClaimName: `<claim>-<set>-<ordinal>`. */
export const claimName = (set: KubeObject, claim: KubeObject, ordinal: number): string => `${claim.metadata?.name ?? ''}-${set.metadata.name}-${ordinal}`;

/** identityMatches: the name, namespace and pod-name label a member with this ordinal has. */
export function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return ordinal >= 0 && parent === set.metadata.name && pod.metadata.name === podName(set, ordinal)
    && pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[statefulSetPodNameLabel] === pod.metadata.name;
}

/** storageMatches: every claim template is mounted as a volume of its name from this ordinal's claim. */
export function storageMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map(volumesOf(pod).map((v) => [v['name'], v]));
  return claimTemplatesOf(set).every((t) => {
    const pvc = volumes.get(t.metadata?.name)?.['persistentVolumeClaim'];
    return isObject(pvc) && pvc['claimName'] === claimName(set, t, ordinal);
  });
}

/** getPersistentVolumeClaims: the claims of one ordinal, by template name, labelled with the set's matchLabels. */
export function claimsFor(set: KubeObject, ordinal: number): [string, KubeObject][] {
  const matchLabels = (isObject(specOf(set)['selector']) ? (specOf(set)['selector'] as Obj)['matchLabels'] : undefined) as Record<string, string> | undefined;
  return claimTemplatesOf(set).map((t) => {
    const claim = structuredClone(t);
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = { ...claim.metadata, name: claimName(set, t, ordinal), namespace: set.metadata.namespace, labels: { ...claim.metadata?.labels, ...matchLabels } };
    if (!Object.keys(claim.metadata.labels!).length) delete claim.metadata.labels;
    delete claim['status'];
    return [t.metadata?.name ?? '', claim];
  });
}

/** updateStorage: the claims' volumes first, then the pod's other volumes. */
export function updateStorage(set: KubeObject, pod: KubeObject): void {
  const claims = claimsFor(set, ordinalOf(pod));
  const names = new Set(claims.map(([name]) => name));
  const volumes: Obj[] = claims.map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata.name } }));
  for (const v of volumesOf(pod)) if (!names.has(String(v['name']))) volumes.push(v);
  if (volumes.length) podSpecOf(pod)['volumes'] = volumes;
}

/** updateIdentity: name, namespace, the pod-name and pod-index labels. */
export function updateIdentity(set: KubeObject, pod: KubeObject): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = { ...pod.metadata.labels, [statefulSetPodNameLabel]: pod.metadata.name, [podIndexLabel]: String(ordinal) };
}

/** newStatefulSetPod: the template's pod with the set's identity (hostname, subdomain) and storage. */
export function newStatefulSetPod(set: KubeObject, ordinal: number): KubeObject {
  const template = templateOf(set);
  const tmeta = (isObject(template['metadata']) ? template['metadata'] : {}) as KubeObject['metadata'];
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(set, ordinal),
      // GetPodFromTemplate names the pod from the set's prefix; the ordinal name then takes precedence.
      generateName: `${set.metadata.name}-`,
      labels: { ...tmeta.labels },
      ...(tmeta.annotations ? { annotations: { ...tmeta.annotations } } : {}),
      ...(tmeta.finalizers ? { finalizers: [...tmeta.finalizers] } : {}),
      ownerReferences: [newControllerRef(set)],
    },
    spec: structuredClone(template['spec'] ?? {}),
  };
  updateIdentity(set, pod);
  podSpecOf(pod)['hostname'] = pod.metadata.name;
  const serviceName = specOf(set)['serviceName'];
  if (typeof serviceName === 'string' && serviceName) podSpecOf(pod)['subdomain'] = serviceName;
  updateStorage(set, pod);
  return pod;
}

const updateStrategyOf = (set: KubeObject): Obj => (isObject(specOf(set)['updateStrategy']) ? (specOf(set)['updateStrategy'] as Obj) : {});
export const isOnDelete = (set: KubeObject): boolean => updateStrategyOf(set)['type'] === 'OnDelete';
export const isRollingUpdate = (set: KubeObject): boolean => updateStrategyOf(set)['type'] === 'RollingUpdate';
const rollingUpdateOf = (set: KubeObject): Obj | undefined => (isObject(updateStrategyOf(set)['rollingUpdate']) ? (updateStrategyOf(set)['rollingUpdate'] as Obj) : undefined);
export const partitionOf = (set: KubeObject): number => Number(rollingUpdateOf(set)?.['partition'] ?? 0);

/**
 * newVersionedStatefulSetPod: ordinals below the partition (or, without rollingUpdate, below the current
 * replicas) are made at the current revision, the others at the update revision.
 */
export function newVersionedStatefulSetPod(currentSet: KubeObject, updateSet: KubeObject, currentRevision: string, updateRevision: string, ordinal: number): KubeObject {
  const ru = rollingUpdateOf(currentSet);
  const start = startOrdinal(currentSet);
  const atCurrent = (isRollingUpdate(currentSet) && !ru && ordinal < start + Number(statusOf(currentSet)['currentReplicas'] ?? 0))
    || (ru !== undefined && ordinal < start + partitionOf(currentSet));
  const pod = newStatefulSetPod(atCurrent ? currentSet : updateSet, ordinal);
  pod.metadata.labels![statefulSetRevisionLabel] = atCurrent ? currentRevision : updateRevision;
  return pod;
}

export const podRevision = (pod: KubeObject): string => pod.metadata.labels?.[statefulSetRevisionLabel] ?? '';

/**
 * getPatch: the strategic merge patch that restores the template, `$patch: replace` on it; the
 * template as the apps/v1 codec writes it (a zero creationTimestamp encodes as null).
 */
export function revisionPatch(set: KubeObject): Obj {
  const template = structuredClone(templateOf(set));
  template['metadata'] = { creationTimestamp: null, ...(isObject(template['metadata']) ? template['metadata'] : {}) };
  // Stored as json.Marshal writes the map: keys sorted at every level.
  return JSON.parse(goJson({ spec: { template: { ...template, $patch: 'replace' } } })) as Obj;
}

/** ApplyRevision: the set with the revision's template in place of its own. */
export function applyRevision(set: KubeObject, revision: KubeObject): KubeObject {
  const clone = structuredClone(set);
  const data = isObject(revision['data']) ? revision['data'] : {};
  const patched = isObject(data['spec']) && isObject(data['spec']['template']) ? structuredClone(data['spec']['template']) : undefined;
  if (patched) {
    delete patched['$patch'];
    clone['spec'] = { ...specOf(clone), template: patched };
  }
  return clone;
}

// Pod states (stateful_set_utils.go).
export const isCreated = (pod: KubeObject): boolean => Boolean(statusOf(pod)['phase']);
export const isPending = (pod: KubeObject): boolean => statusOf(pod)['phase'] === 'Pending';
export const isFailed = (pod: KubeObject): boolean => statusOf(pod)['phase'] === 'Failed';
export const isSucceeded = (pod: KubeObject): boolean => statusOf(pod)['phase'] === 'Succeeded';
export const isTerminating = (pod: KubeObject): boolean => Boolean(pod.metadata.deletionTimestamp);
export const isRunningAndReady = (pod: KubeObject): boolean => statusOf(pod)['phase'] === 'Running' && isPodReady(pod);
export const isRunningAndAvailable = (pod: KubeObject, minReadySeconds: number, now: Date): boolean => isPodAvailable(pod, minReadySeconds, now);
export const isHealthy = (pod: KubeObject): boolean => isRunningAndReady(pod) && !isTerminating(pod);

// The claims' owner references under persistentVolumeClaimRetentionPolicy (StatefulSetAutoDeletePVC, on in 1.32).

export interface RetentionPolicy {
  whenDeleted: string;
  whenScaled: string;
}

export function retentionPolicyOf(set: KubeObject): RetentionPolicy {
  const p = isObject(specOf(set)['persistentVolumeClaimRetentionPolicy']) ? (specOf(set)['persistentVolumeClaimRetentionPolicy'] as Obj) : {};
  return { whenDeleted: String(p['whenDeleted'] ?? 'Retain'), whenScaled: String(p['whenScaled'] ?? 'Retain') };
}

const setGroupVersion = 'apps/v1';
/** matchesRef: the reference names this object by group-version, kind and name (any uid). */
const matchesRef = (ref: OwnerReference, obj: KubeObject, apiVersion: string, kind: string): boolean => ref.apiVersion === apiVersion && ref.kind === kind && ref.name === obj.metadata.name;
const matchesSet = (ref: OwnerReference, set: KubeObject) => matchesRef(ref, set, setGroupVersion, 'StatefulSet');
const matchesPod = (ref: OwnerReference, pod: KubeObject) => matchesRef(ref, pod, 'v1', 'Pod');
const refsOf = (claim: KubeObject): OwnerReference[] => claim.metadata.ownerReferences ?? [];
const hasOwnerRef = (claim: KubeObject, owner: KubeObject): boolean => refsOf(claim).some((r) => r.uid === owner.metadata.uid);
const isRetainRetain = (p: RetentionPolicy) => p.whenScaled !== 'Delete' && p.whenDeleted !== 'Delete';

/** hasStaleOwnerRef: a reference to an earlier object of the same name. */
function hasStaleOwnerRef(claim: KubeObject, obj: KubeObject, matches: (r: OwnerReference, o: KubeObject) => boolean): boolean {
  const ref = refsOf(claim).find((r) => matches(r, obj));
  return ref !== undefined && ref.uid !== obj.metadata.uid;
}

/** hasUnexpectedController: under a Delete policy, a controller of the claim other than this set or pod. */
export function hasUnexpectedController(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  if (isRetainRetain(retentionPolicyOf(set))) return false;
  for (const ref of refsOf(claim)) {
    if (matchesSet(ref, set)) {
      if (ref.uid !== set.metadata.uid) return true;
      continue;
    }
    if (matchesPod(ref, pod)) {
      if (ref.uid !== pod.metadata.uid) return true;
      continue;
    }
    if (ref.controller) return true;
  }
  return false;
}

const hasNonControllerOwner = (claim: KubeObject, set: KubeObject, pod: KubeObject): boolean =>
  refsOf(claim).some((r) => (r.uid === set.metadata.uid || r.uid === pod.metadata.uid) && !r.controller);

/**
 * isClaimOwnerUpToDate: no reference (Retain, Retain); the set's (Retain on scale, Delete on deletion);
 * the pod's once it is scaled down (Delete on scale, Retain on deletion); the set's, then the pod's once
 * scaled down (Delete, Delete). Stale references and other controllers leave the claim alone.
 */
export function isClaimOwnerUpToDate(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  if (hasStaleOwnerRef(claim, set, matchesSet) || hasStaleOwnerRef(claim, pod, matchesPod)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const { setRef, podRef } = wantedRefs(set, pod);
  return hasOwnerRef(claim, set) === setRef && hasOwnerRef(claim, pod) === podRef;
}

function wantedRefs(set: KubeObject, pod: KubeObject): { setRef: boolean; podRef: boolean } {
  const policy = retentionPolicyOf(set);
  const scaledDown = !inOrdinalRange(pod, set);
  const scaleDelete = policy.whenScaled === 'Delete';
  const deleteDelete = policy.whenDeleted === 'Delete';
  // An unknown policy is treated as Retain.
  if (scaleDelete && deleteDelete) return { setRef: !scaledDown, podRef: scaledDown };
  if (scaleDelete) return { setRef: false, podRef: scaledDown };
  if (deleteDelete) return { setRef: true, podRef: false };
  return { setRef: false, podRef: false };
}

/** updateClaimOwnerRefForSetAndPod: the set's and pod's references scrubbed, then the wanted controller references added. */
export function updateClaimOwnerRefs(claim: KubeObject, set: KubeObject, pod: KubeObject): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let refs = refsOf(claim).filter((r) => !matchesSet(r, set) && !matchesPod(r, pod));
  if (!unexpected) {
    const { setRef, podRef } = wantedRefs(set, pod);
    if (podRef) refs = [...refs, newControllerRef(pod)];
    if (setRef) refs = [...refs, newControllerRef(set)];
  }
  if (refs.length) claim.metadata.ownerReferences = refs;
  else delete claim.metadata.ownerReferences;
}
