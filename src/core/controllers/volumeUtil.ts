/**
 * What the PV controller, the scheduler's VolumeBinding and provisioners
 * share about claims and volumes (component-helpers storage/volume and the
 * PV controller's util): the binding annotations, a claim's and a volume's
 * class, and the matching of an unbound claim to the smallest volume that
 * satisfies it.
 */
import { compareQuantities, parseQuantity, type Quantity } from '../api/quantity';
import { isObject, type KubeObject } from '../api/types';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import { specOf, statusOf } from './controllerUtils';

/** On a claim whose binding the controller finished, and on either side it bound itself. */
export const annBindCompleted = 'pv.kubernetes.io/bind-completed';
export const annBoundByController = 'pv.kubernetes.io/bound-by-controller';
/** The node the scheduler chose for a WaitForFirstConsumer claim: its provisioner creates the volume there. */
export const annSelectedNode = 'volume.kubernetes.io/selected-node';
/** The provisioner the PV controller hands a claim to (and the beta spelling it writes too). */
export const annStorageProvisioner = 'volume.kubernetes.io/storage-provisioner';
export const annBetaStorageProvisioner = 'volume.beta.kubernetes.io/storage-provisioner';
/** The provisioner that created a volume. */
export const annDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by';
const annBetaStorageClass = 'volume.beta.kubernetes.io/storage-class';

/** GetPersistentVolumeClaimClass: the beta annotation wins, then spec.storageClassName; "" for none. */
export function claimClass(claim: KubeObject): string {
  const beta = claim.metadata.annotations?.[annBetaStorageClass];
  if (beta !== undefined) return beta;
  const name = specOf(claim)['storageClassName'];
  return typeof name === 'string' ? name : '';
}

/** GetPersistentVolumeClass. */
export function volumeClass(volume: KubeObject): string {
  const beta = volume.metadata.annotations?.[annBetaStorageClass];
  if (beta !== undefined) return beta;
  const name = specOf(volume)['storageClassName'];
  return typeof name === 'string' ? name : '';
}

export const accessModesOf = (obj: KubeObject): string[] => (Array.isArray(specOf(obj)['accessModes']) ? (specOf(obj)['accessModes'] as unknown[]).map(String) : []);
const volumeModeOf = (obj: KubeObject): string => String(specOf(obj)['volumeMode'] ?? 'Filesystem');

export const claimRequest = (claim: KubeObject): Quantity | undefined => {
  const resources = specOf(claim)['resources'];
  return isObject(resources) && isObject(resources['requests']) ? parseQuantity(resources['requests']['storage']) : undefined;
};
export const volumeCapacity = (volume: KubeObject): Quantity | undefined => {
  const capacity = specOf(volume)['capacity'];
  return isObject(capacity) ? parseQuantity(capacity['storage']) : undefined;
};

export type ObjectRef = { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string };
export const claimRefOf = (volume: KubeObject): ObjectRef | undefined => {
  const ref = specOf(volume)['claimRef'];
  return isObject(ref) ? (ref as ObjectRef) : undefined;
};

/** IsVolumeBoundToClaim: the volume points at the claim by name and namespace, and by uid once it has one. */
export function isVolumeBoundToClaim(volume: KubeObject, claim: KubeObject): boolean {
  const ref = claimRefOf(volume);
  if (!ref || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** A claim the PV controller finished binding: kube-scheduler counts only these as bound. */
export const isClaimBound = (claim: KubeObject): boolean => !!specOf(claim)['volumeName'] && claim.metadata.annotations?.[annBindCompleted] !== undefined;

export const volumePhase = (volume: KubeObject): string => String(statusOf(volume)['phase'] ?? '');

/** The claim's access modes are all among the volume's. */
const accessModesContained = (volume: KubeObject, claim: KubeObject): boolean => {
  const have = accessModesOf(volume);
  return accessModesOf(claim).every((m) => have.includes(m));
};

/**
 * checkVolumeSatisfyClaim: why a volume the claim names cannot be its own, or
 * undefined when it can.
 */
export function volumeSatisfiesClaim(volume: KubeObject, claim: KubeObject): string | undefined {
  const want = claimRequest(claim);
  const have = volumeCapacity(volume);
  if (want && (!have || compareQuantities(have, want) < 0)) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeOf(volume) !== volumeModeOf(claim)) return 'incompatible volumeMode';
  if (!accessModesContained(volume, claim)) return 'incompatible accessMode';
  return undefined;
}

/**
 * findByClaim with FindMatchingVolume: a volume already pointing at the claim
 * is its own; otherwise the smallest Available, unclaimed volume of the
 * claim's class, mode and selector that is big enough, among those with the
 * fewest access modes covering the claim's. With delayBinding (a
 * WaitForFirstConsumer class) only a pre-bound volume is taken: the
 * scheduler picks the rest.
 */
export function findMatchingVolume(claim: KubeObject, volumes: KubeObject[], delayBinding: boolean): KubeObject | undefined {
  const want = claimRequest(claim);
  const selectorObject = specOf(claim)['selector'];
  const selector = isObject(selectorObject) ? labelSelectorFromObject(selectorObject as LabelSelectorObject) : undefined;
  if (selector && isSelectorError(selector)) return undefined;
  let best: { volume: KubeObject; modes: number; size: Quantity } | undefined;
  for (const volume of volumes) {
    const size = volumeCapacity(volume);
    if (!size || (want && compareQuantities(size, want) < 0)) continue;
    if (volumeModeOf(volume) !== volumeModeOf(claim)) continue;
    if (volume.metadata.deletionTimestamp) continue;
    if (isVolumeBoundToClaim(volume, claim)) return volume;
    if (delayBinding) continue;
    if (volumePhase(volume) !== 'Available' || claimRefOf(volume)) continue;
    if (selector && !selector.matches(volume.metadata.labels ?? {})) continue;
    if (volumeClass(volume) !== claimClass(claim) || !accessModesContained(volume, claim)) continue;
    const modes = accessModesOf(volume).length;
    if (!best || modes < best.modes || (modes === best.modes && compareQuantities(size, best.size) < 0)) best = { volume, modes, size };
  }
  return best?.volume;
}

/** The claimRef a binding writes (GetReference of the claim). */
export const claimReference = (claim: KubeObject): ObjectRef => ({
  kind: 'PersistentVolumeClaim',
  namespace: claim.metadata.namespace,
  name: claim.metadata.name,
  uid: claim.metadata.uid,
  apiVersion: 'v1',
  resourceVersion: claim.metadata.resourceVersion,
});
