/**
 * resource.Quantity (k8s.io/apimachinery/pkg/api/resource): a fixed-point
 * number with a suffix (`100m`, `1.5Gi`, `2e3`). Parsed exactly (BigInt
 * mantissa and a power-of-ten scale), rounded up to nano precision as
 * ParseQuantity does, compared exactly, and printed in canonical form the
 * way Quantity.String() prints it (`1.5Gi` -> `1536Mi`, `0.5` -> `500m`).
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** value = unscaled * 10^scale */
  unscaled: bigint;
  scale: number;
  format: QuantityFormat;
}

const quantityRe = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;
const exponentRe = /^[eE]([+-]?\d+)$/;
const decimalSuffix: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffix: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixByExp = new Map(Object.entries(decimalSuffix).map(([s, e]) => [e, s]));
const binarySuffixByExp = new Map(Object.entries(binarySuffix).map(([s, e]) => [e, s]));

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Parsed quantities by text: objects repeat the same few (`100m`, `128Mi`), and BigInt parsing is not free. */
const cache = new Map<string, Quantity>();
const cacheLimit = 4096;

/** ParseQuantity; undefined when the text is not a quantity. JSON numbers are read as their text. The result is shared: never mutate it. */
export function parseQuantity(input: unknown): Quantity | undefined {
  const text = typeof input === 'number' ? String(input) : input;
  if (typeof text !== 'string' || text === '') return undefined;
  const hit = cache.get(text);
  if (hit) return hit;
  const q = parse(text);
  if (q) {
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(text, Object.freeze(q));
  }
  return q;
}

function parse(text: string): Quantity | undefined {
  const m = quantityRe.exec(text);
  if (!m) return undefined;
  const [, sign, whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') return undefined;
  let unscaled = BigInt(whole + frac || '0');
  let scale = -frac.length;
  let format: QuantityFormat;
  if (suffix in decimalSuffix) {
    format = 'DecimalSI';
    scale += decimalSuffix[suffix]!;
  } else if (suffix in binarySuffix) {
    format = 'BinarySI';
    unscaled <<= BigInt(binarySuffix[suffix]!);
  } else {
    const e = exponentRe.exec(suffix);
    if (!e) return undefined;
    format = 'DecimalExponent';
    scale += Number(e[1]);
  }
  // Values finer than a nano round up, away from zero (a request for "some" gets some).
  if (scale < -9) {
    const div = pow10(-9 - scale);
    const q = unscaled / div;
    unscaled = unscaled % div === 0n ? q : q + 1n;
    scale = -9;
  }
  if (sign === '-') unscaled = -unscaled;
  return { unscaled, scale, format };
}

/** Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  if (a.scale === b.scale) return a.unscaled < b.unscaled ? -1 : a.unscaled > b.unscaled ? 1 : 0;
  const s = Math.min(a.scale, b.scale);
  const x = a.unscaled * pow10(a.scale - s);
  const y = b.unscaled * pow10(b.scale - s);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isZeroQuantity = (q: Quantity): boolean => q.unscaled === 0n;

/** MilliValue, as a bigint (rounded up as Go does for sub-milli values). */
export function quantityMilliValue(q: Quantity): bigint {
  const e = q.scale + 3;
  if (e >= 0) return q.unscaled * pow10(e);
  const div = pow10(-e);
  const r = q.unscaled / div;
  return q.unscaled % div === 0n ? r : q.unscaled > 0n ? r + 1n : r;
}

/** Quantity.RoundUp(scale): the value rounded away from zero to a whole number of 10^scale; a quantity no finer than that is itself. */
export function roundUpQuantity(q: Quantity, scale: number): Quantity {
  if (q.scale >= scale) return q;
  const div = pow10(scale - q.scale);
  const r = q.unscaled / div;
  return { unscaled: q.unscaled % div === 0n ? r : q.unscaled > 0n ? r + 1n : r - 1n, scale, format: q.format };
}

/** Quantity.String(): the canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.unscaled === 0n) return '0';
  const neg = q.unscaled < 0n;
  const abs = neg ? -q.unscaled : q.unscaled;
  let format = q.format;
  let integer: bigint | undefined;
  if (format === 'BinarySI') {
    // Small or fractional binary values print as decimal rather than lose precision.
    const value = q.scale >= 0 ? abs * pow10(q.scale) : abs % pow10(-q.scale) === 0n ? abs / pow10(-q.scale) : undefined;
    if (value === undefined || value < 1024n) format = 'DecimalSI';
    else integer = value;
  }
  let body: string;
  if (format === 'BinarySI') {
    let v = integer!;
    let exp = 0;
    while (exp < 60 && v % 1024n === 0n) {
      v /= 1024n;
      exp += 10;
    }
    body = `${v}${binarySuffixByExp.get(exp) ?? ''}`;
  } else {
    let v = abs;
    let exp = q.scale;
    while (v % 10n === 0n) {
      v /= 10n;
      exp++;
    }
    const rem = ((exp % 3) + 3) % 3;
    if (rem !== 0) {
      v *= pow10(rem);
      exp -= rem;
    }
    const suffix = format === 'DecimalSI' ? decimalSuffixByExp.get(exp) : exp === 0 ? '' : undefined;
    body = `${v}${suffix ?? `e${exp}`}`;
  }
  return neg ? `-${body}` : body;
}

/** The canonical text of a quantity given as JSON after `round`, memoized by its text; the input text when it does not parse. */
function memoizedFormat(cache: Map<string, string>, value: unknown, round: (q: Quantity) => Quantity): string {
  const text = String(value);
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const q = parseQuantity(value);
  const out = q ? formatQuantity(round(q)) : text;
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(text, out);
  return out;
}

const canonical = new Map<string, string>();
const milliCanonical = new Map<string, string>();

/**
 * The canonical text of a quantity given as JSON (what a decode and encode
 * round trip through resource.Quantity stores), or the input text when it does not parse.
 */
export function canonicalQuantity(value: unknown): string {
  return memoizedFormat(canonical, value, (q) => q);
}

/**
 * What SetDefaults_ResourceList stores for a quantity given as JSON: rounded
 * up to milli scale (`1500u` is `2m`, `0.0001` is `1m`), in canonical form;
 * the input text when it does not parse.
 */
export function canonicalMilliQuantity(value: unknown): string {
  return memoizedFormat(milliCanonical, value, (q) => roundUpQuantity(q, -3));
}

/** Whether a JSON value may hold a Quantity (a string or a number): what canonicalQuantity rewrites. */
export const isQuantityText = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';
