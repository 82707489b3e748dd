/**
 * Canonical rendering of resource quantities (resource.Quantity.String()),
 * for capacity, quota and metric cells. A quantity keeps the family of the
 * suffix it was written with: binary (Ki, Mi, ...), decimal SI (m, k, M, ...)
 * or decimal exponent (e3). The canonical form strips trailing zeros into the
 * largest suffix of that family that keeps the number an integer, so `1024Mi`
 * prints `1Gi` and `1000` prints `1k`.
 */

type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

interface ParsedQuantity {
  /** value = mantissa * 10^exponent10 */
  mantissa: bigint;
  exponent10: number;
  format: QuantityFormat;
}

const BINARY_SUFFIX_POWER: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIX_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const QUANTITY_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

function parseQuantity(text: string): ParsedQuantity | undefined {
  const match = QUANTITY_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  let mantissa = BigInt((whole || '0') + fraction);
  let exponent10 = -fraction.length;
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in BINARY_SUFFIX_POWER) {
    format = 'BinarySI';
    mantissa *= 1024n ** BigInt(BINARY_SUFFIX_POWER[suffix]);
  } else if (/^[eE]/.test(suffix)) {
    format = 'DecimalExponent';
    exponent10 += Number(suffix.slice(1));
  } else {
    exponent10 += DECIMAL_SUFFIX_EXPONENT[suffix];
  }
  // Quantities hold at most nano precision; finer values round up (away from zero).
  if (exponent10 < -9) {
    const divisor = 10n ** BigInt(-9 - exponent10);
    const rounded = mantissa / divisor;
    mantissa = mantissa % divisor === 0n ? rounded : rounded + 1n;
    exponent10 = -9;
  }
  if (sign === '-') mantissa = -mantissa;
  return { mantissa, exponent10, format };
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** The canonical string of a quantity given as string or number; unparsable input is returned as is. */
export function formatQuantity(value: unknown): string {
  if (value === undefined || value === null) return '0';
  const text = typeof value === 'number' ? String(value) : String(value);
  const q = parseQuantity(text);
  if (!q) return text;
  if (q.mantissa === 0n) return '0';

  let format = q.format;
  let integer: bigint | undefined;
  if (format === 'BinarySI') {
    const isInteger = q.exponent10 >= 0 || q.mantissa % 10n ** BigInt(-q.exponent10) === 0n;
    integer = isInteger
      ? q.exponent10 >= 0
        ? q.mantissa * 10n ** BigInt(q.exponent10)
        : q.mantissa / 10n ** BigInt(-q.exponent10)
      : undefined;
    // Small or fractional binary quantities print in decimal, to avoid rounding.
    if (integer === undefined || abs(integer) < 1024n) format = 'DecimalSI';
  }

  if (format === 'BinarySI' && integer !== undefined) {
    let amount = integer;
    let power = 0;
    while (power < BINARY_SUFFIXES.length - 1 && amount % 1024n === 0n) {
      amount /= 1024n;
      power++;
    }
    return `${amount}${BINARY_SUFFIXES[power]}`;
  }

  let mantissa = q.mantissa;
  let exponent = q.exponent10;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  // Bring the exponent down to a multiple of three, the SI suffix steps.
  const excess = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(excess);
  exponent -= excess;

  if (format === 'DecimalSI') {
    const suffix = Object.entries(DECIMAL_SUFFIX_EXPONENT).find(([, e]) => e === exponent)?.[0];
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}
