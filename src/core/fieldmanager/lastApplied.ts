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
  const copy = structuredClone(applied);
  const meta = copy.metadata;
  if (isObject(meta) && isObject(meta.annotations)) {
    delete meta.annotations[LAST_APPLIED_CONFIG_ANNOTATION];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  return `${canonicalJSON(copy)}\n`;
}

export function setLastApplied(obj: JsonObject, value: string): void {
  const meta = isObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
  const annotations = isObject(meta.annotations) ? meta.annotations : (meta.annotations = {});
  annotations[LAST_APPLIED_CONFIG_ANNOTATION] = value;
}
