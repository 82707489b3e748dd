/**
 * Go's time.Duration text form ("1h0m0s", "1.5s", "300ms"), which is how
 * metav1.Duration appears in JSON; its protobuf form is int64 nanoseconds.
 */

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Like time.ParseDuration; throws on text Go would reject. */
export function parseGoDuration(text: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw new Error(`invalid duration "${text}"`);
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (rest) {
    const m = part.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) throw new Error(`invalid duration "${text}"`);
    const unit = UNITS[m[3]];
    if (unit === undefined) throw new Error(`unknown unit "${m[3]}" in duration "${text}"`);
    const whole = m[1] ? BigInt(m[1]) : 0n;
    const fraction = m[2] ?? '';
    total += whole * unit;
    if (fraction) total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    rest = rest.slice(m[0].length);
  }
  return negative ? -total : total;
}

/** `v` as "<v / 10^digits>.<fraction without trailing zeros>". */
function withFraction(v: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const fraction = (v % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return fraction ? `${v / scale}.${fraction}` : `${v / scale}`;
}

/** Like time.Duration.String. */
export function formatGoDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const u = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}µs`;
  if (u < 1_000_000_000n) return `${sign}${withFraction(u, 6)}ms`;
  const fraction = (u % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  let seconds = u / 1_000_000_000n;
  let out = `${seconds % 60n}${fraction ? `.${fraction}` : ''}s`;
  seconds /= 60n;
  if (seconds > 0n) {
    out = `${seconds % 60n}m${out}`;
    const hours = seconds / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return sign + out;
}
