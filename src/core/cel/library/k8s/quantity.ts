// Kubernetes quantity library (resource.Quantity): exact decimal arithmetic on
// bigint mantissas, parsed with the API server's grammar and error texts.

import { CelError, CelOpaque, codePointLength, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { STRING_TRAVERSAL_FACTOR, factorR, stringTraversal } from '../costs';
import { INT64_MAX, INT64_MIN } from '../../common/values';

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** value = mantissa x 10^exp */
export class CelQuantity extends CelOpaque {
  readonly typeName = 'kubernetes.Quantity';
  constructor(
    readonly mantissa: bigint,
    readonly exp: number,
    readonly text: string,
  ) {
    super();
  }
  equal(o: CelValue): boolean {
    return o instanceof CelQuantity && cmpQ(this, o) === 0;
  }
  compare(o: CelValue): number | undefined {
    return o instanceof CelQuantity ? cmpQ(this, o) : undefined;
  }
}

function align(a: CelQuantity, b: CelQuantity): [bigint, bigint, number] {
  const e = Math.min(a.exp, b.exp);
  return [a.mantissa * 10n ** BigInt(a.exp - e), b.mantissa * 10n ** BigInt(b.exp - e), e];
}

function cmpQ(a: CelQuantity, b: CelQuantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };

export function parseQuantity(s: string): CelQuantity | CelError {
  const m = /^([+-]?)([0-9]*\.?[0-9]*)(.*)$/.exec(s);
  if (!s || !m || m[2] === '' || m[2] === '.') return new CelError(QUANTITY_FORMAT_ERROR);
  const [, sign, num, suffix] = m as unknown as [string, string, string, string];
  const [ip, fp = ''] = num.split('.') as [string, string?];
  let mant = BigInt((ip || '0') + fp);
  let exp = -fp.length;
  if (suffix in DECIMAL) exp += DECIMAL[suffix]!;
  else if (suffix in BINARY) mant *= BINARY[suffix]!;
  else if (/^[eE][+-]?\d+$/.test(suffix)) exp += Number(suffix.slice(1));
  else if (/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) return new CelError('unable to parse quantity\'s suffix');
  else return new CelError(QUANTITY_FORMAT_ERROR);
  if (sign === '-') mant = -mant;
  // the API server keeps nano precision, rounding up
  if (exp < -9) {
    const d = 10n ** BigInt(-9 - exp);
    const q = mant / d;
    mant = mant % d === 0n ? q : mant > 0n ? q + 1n : q;
    exp = -9;
  }
  return new CelQuantity(mant, exp, s);
}

function asInteger(q: CelQuantity): bigint | undefined {
  if (q.exp >= 0) {
    if (q.exp > 18) return q.mantissa === 0n ? 0n : undefined;
    const v = q.mantissa * 10n ** BigInt(q.exp);
    return v > INT64_MAX || v < INT64_MIN ? undefined : v;
  }
  const d = 10n ** BigInt(-q.exp);
  if (q.mantissa % d !== 0n) return undefined;
  const v = q.mantissa / d;
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

function fromInt(v: bigint): CelQuantity {
  return new CelQuantity(v, 0, String(v));
}

function addQ(a: CelQuantity, b: CelQuantity, sign: bigint): CelQuantity {
  const [x, y, e] = align(a, b);
  return new CelQuantity(x + sign * y, e, '');
}

export function k8sQuantityLibrary(): Library {
  const parseCost = (args: CelValue[]): number => stringTraversal(codePointLength(args[0] as string));
  const parseEst = (_t: unknown, args: { size(): { min: number; max: number } }[]) =>
    args[0] ? { cost: factorR(args[0].size(), STRING_TRAVERSAL_FACTOR) } : undefined;
  const one = { cost: () => 1 };
  const Q = (v: CelValue): CelQuantity => v as CelQuantity;
  return {
    name: 'k8s.quantity',
    types: ['kubernetes.Quantity'],
    overloads: [
      def('string_to_quantity', 'quantity(string) -> kubernetes.Quantity', (s) => parseQuantity(s as string), { cost: parseCost, estimate: parseEst }),
      def('quantity_is_quantity', 'isQuantity(string) -> bool', (s) => !(parseQuantity(s as string) instanceof CelError), { cost: parseCost, estimate: parseEst }),
      def('quantity_is_integer', 'kubernetes.Quantity.isInteger() -> bool', (q) => asInteger(Q(q)) !== undefined, one),
      def('quantity_get_integer', 'kubernetes.Quantity.asInteger() -> int', (q) => asInteger(Q(q)) ?? new CelError('cannot convert value to integer'), one),
      def('quantity_get_float', 'kubernetes.Quantity.asApproximateFloat() -> double', (q) => Number(Q(q).mantissa) * 10 ** Q(q).exp, one),
      def('quantity_get_sign', 'kubernetes.Quantity.sign() -> int', (q) => (Q(q).mantissa > 0n ? 1n : Q(q).mantissa < 0n ? -1n : 0n), one),
      def('quantity_add', 'kubernetes.Quantity.add(kubernetes.Quantity) -> kubernetes.Quantity', (a, b) => addQ(Q(a), Q(b), 1n), one),
      def('quantity_add_int', 'kubernetes.Quantity.add(int) -> kubernetes.Quantity', (a, b) => addQ(Q(a), fromInt(b as bigint), 1n), one),
      def('quantity_sub', 'kubernetes.Quantity.sub(kubernetes.Quantity) -> kubernetes.Quantity', (a, b) => addQ(Q(a), Q(b), -1n), one),
      def('quantity_sub_int', 'kubernetes.Quantity.sub(int) -> kubernetes.Quantity', (a, b) => addQ(Q(a), fromInt(b as bigint), -1n), one),
      def('quantity_less', 'kubernetes.Quantity.isLessThan(kubernetes.Quantity) -> bool', (a, b) => cmpQ(Q(a), Q(b)) < 0, one),
      def('quantity_greater', 'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity) -> bool', (a, b) => cmpQ(Q(a), Q(b)) > 0, one),
      def('quantity_compare', 'kubernetes.Quantity.compareTo(kubernetes.Quantity) -> int', (a, b) => BigInt(cmpQ(Q(a), Q(b))), one),
    ],
  };
}
