// Timestamps and durations with nanosecond precision (bigint nanoseconds),
// in CEL's range: years 0001..9999 and durations up to about 10000 years.

import { CelDuration, CelError, CelTimestamp } from './values';

export const NANOS = 1_000_000_000n;
const MIN_TS_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
const MAX_TS_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z
// Go's time.Duration (int64 nanoseconds) bounds cel-go's durations
const MAX_DURATION_NANOS = (1n << 63n) - 1n;

export function checkTimestamp(nanos: bigint): CelTimestamp | CelError {
  const s = floorDiv(nanos, NANOS);
  if (s < MIN_TS_SECONDS || s > MAX_TS_SECONDS) return new CelError('timestamp overflow');
  return new CelTimestamp(nanos);
}

export function checkDuration(nanos: bigint): CelDuration | CelError {
  if (nanos > MAX_DURATION_NANOS || nanos < -MAX_DURATION_NANOS - 1n) return new CelError('duration overflow');
  return new CelDuration(nanos);
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function parseTimestamp(s: string): CelTimestamp | CelError {
  const m = RFC3339.exec(s);
  if (!m) return new CelError(`timestamp: cannot parse "${s}"`);
  const [, y, mo, d, h, mi, sec, frac, , sign, oh, om] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(Number(y), month) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) {
    return new CelError(`timestamp: cannot parse "${s}": value out of range`);
  }
  let seconds = BigInt(daysFromCivil(Number(y), month, day)) * 86400n + BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(sec));
  if (sign) {
    const off = BigInt(Number(oh) * 3600 + Number(om) * 60);
    seconds += sign === '+' ? -off : off;
  }
  const nanos = frac ? BigInt(frac.padEnd(9, '0')) : 0n;
  return checkTimestamp(seconds * NANOS + nanos);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
function daysIn(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/** Days since 1970-01-01 of a proleptic Gregorian date. */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): { y: number; m: number; d: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: y + (m <= 2 ? 1 : 0), m, d };
}

const p2 = (n: number): string => String(n).padStart(2, '0');

export function formatTimestamp(t: CelTimestamp): string {
  const secs = floorDiv(t.nanos, NANOS);
  const nanos = Number(t.nanos - secs * NANOS);
  const days = Number(floorDiv(secs, 86400n));
  const rem = Number(secs - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  let out = `${String(y).padStart(4, '0')}-${p2(m)}-${p2(d)}T${p2(Math.floor(rem / 3600))}:${p2(Math.floor(rem / 60) % 60)}:${p2(rem % 60)}`;
  if (nanos) out += '.' + String(nanos).padStart(9, '0').replace(/0+$/, '');
  return out + 'Z';
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: NANOS, m: 60n * NANOS, h: 3600n * NANOS };

/** Go's time.ParseDuration grammar: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+ */
export function parseDuration(s: string): CelDuration | CelError {
  const bad = (): CelError => new CelError(`invalid duration format: ${s}`);
  let i = 0;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    i++;
  }
  if (s.slice(i) === '0') return new CelDuration(0n);
  if (i >= s.length) return bad();
  let total = 0n;
  while (i < s.length) {
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/.exec(s.slice(i));
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) return bad();
    const unit = UNITS[m[3]!]!;
    const whole = BigInt(m[1] || '0');
    let frac = 0n;
    if (m[2]) {
      const digits = m[2].slice(0, 18);
      frac = (BigInt(digits) * unit) / 10n ** BigInt(digits.length);
    }
    total += whole * unit + frac;
    i += m[0].length;
  }
  return checkDuration(neg ? -total : total);
}

export function formatDuration(d: CelDuration): string {
  const neg = d.nanos < 0n;
  const abs = neg ? -d.nanos : d.nanos;
  const s = abs / NANOS;
  const n = abs % NANOS;
  let out = String(s);
  if (n) out += '.' + String(n).padStart(9, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + out + 's';
}

// ---- time zones ----

/** Offset in seconds east of UTC for the zone at the instant, or an error. */
export function zoneOffset(tz: string, epochSeconds: bigint): number | CelError {
  if (tz === '' || tz === 'UTC' || tz === 'Z') return 0;
  const fixed = /^([+-]?)(\d{1,2}):(\d{2})$/.exec(tz);
  if (fixed) {
    const off = Number(fixed[2]) * 3600 + Number(fixed[3]) * 60;
    return fixed[1] === '-' ? -off : off;
  }
  try {
    const dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    const ms = Number(epochSeconds) * 1000;
    const parts = Object.fromEntries(dtf.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
    let year = Number(parts.year);
    if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
    const local = daysFromCivil(year, Number(parts.month), Number(parts.day)) * 86400 + Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second);
    return local - Number(epochSeconds);
  } catch {
    return new CelError(`unknown time zone ${tz}`);
  }
}

export interface TimeParts {
  year: number;
  month: number; // 1-12
  day: number;
  dayOfWeek: number; // 0 = Sunday
  dayOfYear: number; // 0-based
  hours: number;
  minutes: number;
  seconds: number;
  millis: number;
}

export function timeParts(t: CelTimestamp, tz: string): TimeParts | CelError {
  const secs = floorDiv(t.nanos, NANOS);
  const off = zoneOffset(tz, secs);
  if (off instanceof CelError) return off;
  const local = secs + BigInt(off);
  const days = Number(floorDiv(local, 86400n));
  const rem = Number(local - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  return {
    year: y,
    month: m,
    day: d,
    dayOfWeek: (((days + 4) % 7) + 7) % 7,
    dayOfYear: days - daysFromCivil(y, 1, 1),
    hours: Math.floor(rem / 3600),
    minutes: Math.floor(rem / 60) % 60,
    seconds: rem % 60,
    millis: Number((t.nanos - secs * NANOS) / 1_000_000n),
  };
}
