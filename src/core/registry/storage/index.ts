/** storage.k8s.io (pkg/apis/storage/v1/defaults.go): the scheme's defaults for StorageClasses, CSIDrivers and VolumeAttachments. */
import { canonicalQuantity, isQuantityText } from '../../api/quantity';
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultPersistentVolumeSource } from '../core/volumeSources';

/** SetDefaults_StorageClass: provisioned volumes are deleted with their claim, and bound as soon as the claim is made. */
function defaultStorageClass(obj: KubeObject): void {
  obj['reclaimPolicy'] ??= 'Delete';
  obj['volumeBindingMode'] ??= 'Immediate';
}

/**
 * SetDefaults_CSIDriver: the driver attaches volumes, wants no pod info on
 * mount, publishes no capacity, needs no republish, changes fsGroup ownership
 * only for ReadWriteOnce volumes with an fsType, serves persistent volumes only,
 * and does not mount with an SELinux context (SELinuxMountReadWriteOncePod).
 */
function defaultCSIDriver(obj: KubeObject): void {
  const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  spec['attachRequired'] ??= true;
  spec['podInfoOnMount'] ??= false;
  spec['storageCapacity'] ??= false;
  spec['fsGroupPolicy'] ??= 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec['volumeLifecycleModes']) || spec['volumeLifecycleModes'].length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
  spec['requiresRepublish'] ??= false;
  spec['seLinuxMount'] ??= false;
}

/** SetObjectDefaults_VolumeAttachment: an inline (migrated) volume spec gets its capacity's and source's defaults. */
function defaultVolumeAttachment(obj: KubeObject): void {
  const source = isObject(obj['spec']) ? obj['spec']['source'] : undefined;
  const inline = isObject(source) ? source['inlineVolumeSpec'] : undefined;
  if (isObject(inline)) defaultPersistentVolumeSource(inline);
}

/** A CSIStorageCapacity's capacity and maximumVolumeSize are Quantities: stored as they encode. */
function defaultCSIStorageCapacity(obj: KubeObject): void {
  for (const field of ['capacity', 'maximumVolumeSize']) if (isQuantityText(obj[field])) obj[field] = canonicalQuantity(obj[field]);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  storageclasses: { defaulter: defaultStorageClass },
  csistoragecapacities: { defaulter: defaultCSIStorageCapacity },
  csidrivers: { defaulter: defaultCSIDriver },
  volumeattachments: { defaulter: defaultVolumeAttachment },
};
