/** SetDefaults_ResourceList, which every ResourceList a kind's defaulters walk goes through. */
import { canonicalMilliQuantity, canonicalQuantity, isQuantityText } from '../../api/quantity';
import { isObject } from '../../api/types';

/** Each quantity of a map stored as resource.Quantity encodes it (`0.5` is `500m`, `1024Mi` is `1Gi`); what does not parse is left for validation. */
export function canonicalQuantities(list: unknown): void {
  if (!isObject(list)) return;
  for (const [k, v] of Object.entries(list)) if (isQuantityText(v)) list[k] = canonicalQuantity(v);
}

/**
 * SetDefaults_ResourceList: each quantity rounded up to milli scale (`1500u`
 * is `2m`: kube keeps API compatibility by rounding rather than refusing
 * finer values) and in its canonical form.
 */
export function defaultResourceList(list: unknown): void {
  if (!isObject(list)) return;
  for (const [k, v] of Object.entries(list)) if (isQuantityText(v)) list[k] = canonicalMilliQuantity(v);
}

/** The requests and limits of a ResourceRequirements. */
export function defaultResourceRequirements(resources: unknown): void {
  if (!isObject(resources)) return;
  defaultResourceList(resources['limits']);
  defaultResourceList(resources['requests']);
}
