/** Shapes of an object for display and editing. */
import type { KubeObject } from '../../api';

/** The object without metadata.managedFields, as `kubectl get -o yaml` prints it. */
export function withoutManagedFields(object: KubeObject): KubeObject {
  if (!object.metadata?.managedFields) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** Fields the server sets, which an apply manifest leaves out. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const;

/** The object as a manifest to apply: no status, no server-set metadata. */
export function applyManifestOf(object: KubeObject): KubeObject {
  const { status: _, ...rest } = object as KubeObject & { status?: unknown };
  const metadata: Record<string, unknown> = { ...rest.metadata };
  for (const field of SERVER_METADATA) delete metadata[field];
  return { ...rest, metadata } as KubeObject;
}
