/**
 * The little of resource.Quantity validation needs (sign, comparison, the
 * canonical text errors show), over the CEL library's exact parser, until a
 * shared api/quantity lands.
 */
import { CelError } from '../../cel/common/values';
import { parseQuantity } from '../../cel/library/k8s/quantity';

export interface QuantityValue {
  /** value = mantissa x 10^exp */
  mantissa: bigint;
  exp: number;
  text: string;
}

/** The parsed quantity, or undefined when the text is not one (or not a string / number). */
export function quantityOf(v: unknown): QuantityValue | undefined {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string') return undefined;
  const q = parseQuantity(s);
  if (q instanceof CelError) return undefined;
  return { mantissa: q.mantissa, exp: q.exp, text: s };
}

export function quantitySign(q: QuantityValue): number {
  return q.mantissa > 0n ? 1 : q.mantissa < 0n ? -1 : 0;
}

export function compareQuantities(a: QuantityValue, b: QuantityValue): number {
  const e = Math.min(a.exp, b.exp);
  const x = a.mantissa * 10n ** BigInt(a.exp - e);
  const y = b.mantissa * 10n ** BigInt(b.exp - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Quantity.String() for what errors show: zero prints as "0", anything else as written. */
export function quantityString(q: QuantityValue): string {
  return q.mantissa === 0n ? '0' : q.text;
}

/** Whether the quantity is a whole number (integer resources reject fractions). */
export function isWholeQuantity(q: QuantityValue): boolean {
  if (q.exp >= 0) return true;
  return q.mantissa % 10n ** BigInt(-q.exp) === 0n;
}
