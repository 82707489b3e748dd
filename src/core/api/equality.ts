/** Semantic equality of JSON values (key order ignored), as apiequality.Semantic.DeepEqual compares decoded objects. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bo).length) return false;
  const ao = a as Record<string, unknown>;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** ObjectMeta fields in the order Go encodes them, so responses read like kube-apiserver's. */
const metaOrder = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
];

export function canonicalMetadata<T extends Record<string, unknown>>(meta: T): T {
  const out: Record<string, unknown> = {};
  for (const k of metaOrder) if (meta[k] !== undefined) out[k] = meta[k];
  for (const [k, v] of Object.entries(meta)) if (!(k in out) && v !== undefined) out[k] = v;
  return out as T;
}
