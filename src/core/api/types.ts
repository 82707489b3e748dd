/** The JSON shapes every Kubernetes object and list shares (ObjectMeta, ListMeta). */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The objects of a JSON list (a spec's containers, a status's conditions); [] for anything but a list. */
export const objectsOf = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function formatTime(d: Date): string {
  // Writes come many to the second: format each second once.
  const second = Math.floor(d.getTime() / 1000);
  if (second !== formattedSecond || formatted === undefined) {
    formatted = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    formattedSecond = second;
  }
  return formatted;
}
let formattedSecond = NaN;
let formatted: string | undefined;
