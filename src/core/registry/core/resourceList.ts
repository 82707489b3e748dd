/** SetDefaults_ResourceList, which every ResourceList a kind's defaulters walk goes through. */
import { canonicalQuantity } from '../../api/quantity';
import { isObject } from '../../api/types';

/**
 * SetDefaults_ResourceList: each quantity rounded up to milli scale and
 * stored as resource.Quantity encodes it (`0.5` is `500m`, `1024Mi` is `1Gi`);
 * what does not parse is left for validation.
 */
export function defaultResourceList(list: unknown): void {
  if (!isObject(list)) return;
  for (const [k, v] of Object.entries(list)) if (typeof v === 'string' || typeof v === 'number') list[k] = canonicalQuantity(v);
}

/** The requests and limits of a ResourceRequirements. */
export function defaultResourceRequirements(resources: unknown): void {
  if (!isObject(resources)) return;
  defaultResourceList(resources['limits']);
  defaultResourceList(resources['requests']);
}
