/**
 * Cron schedules as CronJobs read them: robfig/cron/v3's ParseStandard
 * (five fields, names for months and weekdays, `*`, `?`, ranges, steps,
 * lists, @descriptors, `@every`, a `TZ=`/`CRON_TZ=` prefix) with the
 * parser's error text verbatim, and SpecSchedule.Next walking the fields in
 * the schedule's zone the way the library does, daylight saving quirks
 * included (a skipped wall time never fires; a repeated one fires twice).
 */
import { parseGoDuration } from '../http/serializers/protobuf/goDuration';
import { loadLocation, utcMs, utcZone, wallClock, zonedDate, type WallClock, type Zone } from './zonedTime';

/** Go's zero time.Time (January 1, year 1, UTC): what Next answers when nothing matches within five years. */
export const zeroTime = utcMs(1, 1, 1);

export interface CronSchedule {
  /** The first activation strictly after the instant, or zeroTime. */
  next(afterMs: number): number;
}

export class CronParseError extends Error {}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

/** A field's allowed values, and robfig's starBit (a bare `*` or `?`, which changes how days match). */
interface Field {
  has: boolean[];
  star: boolean;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const atoiRe = /^[+-]?\d+$/;

/** strconv.Atoi, with Go's error text. */
function mustParseInt(expr: string): number {
  if (!atoiRe.test(expr)) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n)) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0) throw new CronParseError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

/** getRange: one `a`, `a-b`, `*`, with an optional `/step`, added to the field. */
function addRange(expr: string, r: Bounds, into: Field): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronParseError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // `N/step` means `N-max/step`.
    if (lowAndHigh.length === 1) end = r.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new CronParseError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new CronParseError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronParseError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronParseError(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) into.has[i] = true;
  if (star) into.star = true;
}

/** getField: a comma-separated list of ranges. */
function parseField(text: string, r: Bounds): Field {
  const field: Field = { has: [], star: false };
  for (const expr of text.split(',').filter((x) => x !== '')) addRange(expr, r, field);
  return field;
}

const all = (r: Bounds): Field => parseField('*', r);
const only = (n: number): Field => ({ has: Object.assign([], { [n]: true }), star: false });

interface Spec {
  minute: Field;
  hour: Field;
  dom: Field;
  month: Field;
  dow: Field;
}

const descriptors: Record<string, () => Spec> = {
  '@yearly': () => ({ minute: only(0), hour: only(0), dom: only(1), month: only(1), dow: all(dow) }),
  '@monthly': () => ({ minute: only(0), hour: only(0), dom: only(1), month: all(months), dow: all(dow) }),
  '@weekly': () => ({ minute: only(0), hour: only(0), dom: all(dom), month: all(months), dow: only(0) }),
  '@daily': () => ({ minute: only(0), hour: only(0), dom: all(dom), month: all(months), dow: all(dow) }),
  '@hourly': () => ({ minute: only(0), hour: all(hours), dom: all(dom), month: all(months), dow: all(dow) }),
};
descriptors['@annually'] = descriptors['@yearly']!;
descriptors['@midnight'] = descriptors['@daily']!;

/** dayMatches: with a `*` in either day field both must match, otherwise either may. */
function dayMatches(s: Spec, w: WallClock): boolean {
  const domMatch = s.dom.has[w.day] === true;
  const dowMatch = s.dow.has[w.weekday] === true;
  return s.dom.star || s.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
}

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** SpecSchedule.Next (seconds fixed at 0): month, day, hour, minute, then second, wrapping back to the month. */
function specNext(s: Spec, zone: Zone, afterMs: number): number {
  const fields = (ms: number) => wallClock(ms, zone);
  const addDate = (ms: number, days: number, monthsToAdd: number) => {
    const w = fields(ms);
    return zonedDate(zone, w.year, w.month + monthsToAdd, w.day + days, w.hour, w.minute, w.second);
  };
  // The upcoming whole second.
  let t = Math.floor(afterMs / second) * second + second;
  let added = false;
  const yearLimit = fields(t).year + 5;
  wrap: for (;;) {
    let w = fields(t);
    if (w.year > yearLimit) return zeroTime;
    while (!s.month.has[w.month]) {
      if (!added) {
        added = true;
        t = zonedDate(zone, w.year, w.month, 1);
      }
      t = addDate(t, 0, 1);
      w = fields(t);
      if (w.month === 1) continue wrap;
    }
    while (!dayMatches(s, w)) {
      if (!added) {
        added = true;
        t = zonedDate(zone, w.year, w.month, w.day);
      }
      t = addDate(t, 1, 0);
      w = fields(t);
      // A midnight that daylight saving skips lands at 1am (or 11pm the day before): back to the day's start.
      if (w.hour !== 0) {
        t += w.hour > 12 ? (24 - w.hour) * hour : -w.hour * hour;
        w = fields(t);
      }
      if (w.day === 1) continue wrap;
    }
    while (!s.hour.has[w.hour]) {
      if (!added) {
        added = true;
        t = zonedDate(zone, w.year, w.month, w.day, w.hour);
      }
      t += hour;
      w = fields(t);
      if (w.hour === 0) continue wrap;
    }
    while (!s.minute.has[w.minute]) {
      if (!added) {
        added = true;
        t = Math.floor(t / minute) * minute;
      }
      t += minute;
      w = fields(t);
      if (w.minute === 0) continue wrap;
    }
    while (w.second !== 0) {
      if (!added) {
        added = true;
        t = Math.floor(t / second) * second;
      }
      t += second;
      w = fields(t);
      if (w.second === 0) continue wrap;
    }
    return t;
  }
}

/** cron.Every: a constant delay, rounded down to whole seconds and at least one. */
function every(spec: string, text: string): CronSchedule {
  let ns: bigint;
  try {
    ns = parseGoDuration(text);
  } catch (e) {
    throw new CronParseError(`failed to parse duration ${spec}: time: ${(e as Error).message}`);
  }
  const delay = ns < 1_000_000_000n ? second : Number(ns / 1_000_000_000n) * second;
  return { next: (afterMs) => Math.floor(afterMs / second) * second + delay };
}

/** cron.ParseStandard; throws CronParseError with the library's message. */
export function parseStandard(spec: string): CronSchedule {
  if (spec.length === 0) throw new CronParseError('empty spec string');
  let zone: Zone = utcZone;
  let s = spec;
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    const eq = s.indexOf('=');
    const name = s.slice(eq + 1, i < 0 ? undefined : i);
    const loaded = loadLocation(name);
    if (!loaded) throw new CronParseError(`provided bad location ${name}: unknown time zone ${name}`);
    zone = loaded;
    s = i < 0 ? '' : s.slice(i).trim();
  }
  let parsed: Spec;
  if (s.startsWith('@')) {
    if (s.startsWith('@every ')) return every(s, s.slice('@every '.length));
    const descriptor = descriptors[s];
    if (!descriptor) throw new CronParseError(`unrecognized descriptor: ${s}`);
    parsed = descriptor();
  } else {
    const f = s.split(/\s+/).filter((x) => x !== '');
    if (f.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${f.length}: [${f.join(' ')}]`);
    parsed = { minute: parseField(f[0]!, minutes), hour: parseField(f[1]!, hours), dom: parseField(f[2]!, dom), month: parseField(f[3]!, months), dow: parseField(f[4]!, dow) };
  }
  return { next: (afterMs) => specNext(parsed, zone, afterMs) };
}

/** The parser's error for a schedule, or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (e) {
    if (e instanceof CronParseError) return e.message;
    throw e;
  }
}
