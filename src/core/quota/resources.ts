/**
 * Resource lists as quota does arithmetic on them
 * (k8s.io/apiserver/pkg/quota/v1/resources.go): named quantities added,
 * subtracted, masked and compared exactly, printed in canonical form.
 */
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from '../api/quantity';
import { isObject } from '../api/types';

/** corev1.ResourceList: resource name -> quantity. */
export type ResourceList = Map<string, Quantity>;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** resource.Quantity{Format: DecimalSI}: the zero every tracked resource starts from. */
export const zeroQuantity: Quantity = Object.freeze({ unscaled: 0n, scale: 0, format: 'DecimalSI' });

/** resource.NewQuantity(n, DecimalSI). */
export const countQuantity = (n: number): Quantity => ({ unscaled: BigInt(n), scale: 0, format: 'DecimalSI' });

/** Quantity.Add: exact; a zero receiver takes the other's format. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const unscaled = a.unscaled * pow10(a.scale - scale) + b.unscaled * pow10(b.scale - scale);
  return { unscaled, scale, format: a.unscaled === 0n ? b.format : a.format };
}

/** Quantity.Sub. */
export function subtractQuantity(a: Quantity, b: Quantity): Quantity {
  return addQuantity(a, { ...b, unscaled: -b.unscaled });
}

/** Quantity.Value(): the integer value, rounded up. */
export function quantityValue(q: Quantity): bigint {
  if (q.scale >= 0) return q.unscaled * pow10(q.scale);
  const div = pow10(-q.scale);
  const r = q.unscaled / div;
  return q.unscaled % div !== 0n && q.unscaled > 0n ? r + 1n : r;
}

/** Quantity.RoundUp(0): whole units (PVC storage is counted in whole bytes). */
export function roundUpQuantity(q: Quantity): Quantity {
  return q.scale >= 0 ? q : { unscaled: quantityValue(q), scale: 0, format: q.format };
}

/** A JSON ResourceList (`{"cpu": "500m"}`); entries that are not quantities are left out. */
export function parseResourceList(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObject(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    const q = parseQuantity(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** The JSON form, keys sorted as Go encodes a map. */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

/** quota.Add: the union, summing shared keys. */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const have = out.get(k);
    out.set(k, have ? addQuantity(have, v) : v);
  }
  return out;
}

/** quota.SubtractWithNonNegativeResult: a - b, floored at zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const diff = other ? subtractQuantity(v, other) : v;
    out.set(k, diff.unscaled < 0n ? { ...zeroQuantity } : diff);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, { ...zeroQuantity });
  return out;
}

/** quota.Mask: only the named resources. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v) out.set(n, v);
  }
  return out;
}

/** quota.Equals: the same keys with equal values. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || compareQuantities(v, w) !== 0) return false;
  }
  return true;
}

/** quota.LessThanOrEqual: whether a <= b for every key of a that b has, and the keys that exceed. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, v] of a) {
    const limit = b.get(k);
    if (limit && compareQuantities(v, limit) > 0) exceeded.push(k);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => v.unscaled !== 0n));
}

/** quota.IsNegative: the keys whose value is below zero. */
export function negativeResources(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.unscaled < 0n).map(([k]) => k);
}

/** The controller's prettyPrint: `name=value` sorted by name, comma-joined. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(',');
}
