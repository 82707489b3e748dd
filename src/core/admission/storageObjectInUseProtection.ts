/**
 * The StorageObjectInUseProtection admission plugin (plugin/pkg/admission/storage/storageobjectinuseprotection):
 * a new PersistentVolumeClaim gets the kubernetes.io/pvc-protection
 * finalizer, a new PersistentVolume kubernetes.io/pv-protection, so neither
 * goes while in use (the protection controllers remove them).
 */
import type { PluginAttributes } from './attributes';

const finalizers: Record<string, string> = {
  persistentvolumeclaims: 'kubernetes.io/pvc-protection',
  persistentvolumes: 'kubernetes.io/pv-protection',
};

export function admitStorageObjectInUseProtection(attrs: PluginAttributes): void {
  if (attrs.operation !== 'CREATE' || attrs.subresource || attrs.resource.group !== '') return;
  const finalizer = finalizers[attrs.resource.resource];
  const meta = attrs.object?.metadata;
  if (!finalizer || !meta) return;
  if (!meta.finalizers?.includes(finalizer)) meta.finalizers = [...(meta.finalizers ?? []), finalizer];
}
