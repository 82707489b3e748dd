/**
 * The questions validation asks of a resource.Quantity (sign, order,
 * wholeness, the canonical text errors show), over api/quantity.
 */
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from '../../api/quantity';

export type QuantityValue = Quantity;
export { compareQuantities };

/** The parsed quantity, or undefined when the value is not one. */
export const quantityOf = (v: unknown): QuantityValue | undefined => parseQuantity(v);

export const quantitySign = (q: QuantityValue): number => (q.unscaled > 0n ? 1 : q.unscaled < 0n ? -1 : 0);

/** Quantity.String(), as kube's error messages print it. */
export const quantityString = (q: QuantityValue): string => formatQuantity(q);

/** Whether the quantity is a whole number (integer resources reject fractions). */
export function isWholeQuantity(q: QuantityValue): boolean {
  if (q.scale >= 0) return true;
  return q.unscaled % 10n ** BigInt(-q.scale) === 0n;
}
