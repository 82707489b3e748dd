import { canonicalJSON, isObject, type JsonObject } from './value';

/** The annotation client-side apply keeps its last applied configuration in. */
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager name kubectl uses for server-side apply; only it migrates client-side ownership. */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

export function getLastApplied(obj: JsonObject): string | undefined {
  const meta = obj.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return undefined;
  const v = meta.annotations[LAST_APPLIED_CONFIG_ANNOTATION];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Encodes an applied object for the annotation (without the annotation itself). */
export function buildLastApplied(applied: JsonObject): string {
  const meta = applied.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return `${canonicalJSON(applied)}\n`;
  // Copies only the maps on the way to the annotation: the rest is read, not changed.
  const { [LAST_APPLIED_CONFIG_ANNOTATION]: _drop, ...annotations } = meta.annotations;
  void _drop;
  const { annotations: _all, ...rest } = meta;
  void _all;
  const metadata: JsonObject = Object.keys(annotations).length === 0 ? rest : { ...meta, annotations };
  return `${canonicalJSON({ ...applied, metadata })}\n`;
}

/** `obj` with the annotation set; only the maps on the way to it are copied. */
export function withLastApplied(obj: JsonObject, value: string): JsonObject {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  return { ...obj, metadata: { ...meta, annotations: { ...annotations, [LAST_APPLIED_CONFIG_ANNOTATION]: value } } };
}
