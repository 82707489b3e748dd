/**
 * Cron schedules as CronJobs read them: robfig/cron/v3's ParseStandard
 * (five fields, names for months and weekdays, `*`, `?`, ranges, steps,
 * lists, and @descriptors), returning the parser's error text verbatim.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const fieldBounds = [minutes, hours, dom, months, dow];

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const atoiRe = /^[+-]?\d+$/;
const durationRe = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

class CronError extends Error {}

/** strconv.Atoi, with Go's error text. */
function mustParseInt(expr: string): number {
  if (!atoiRe.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

/** cron.ParseStandard's error for a schedule, or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    if (spec.length === 0) return 'empty spec string';
    let s = spec;
    if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
      const i = s.indexOf(' ');
      const eq = s.indexOf('=');
      const tz = s.slice(eq + 1, i < 0 ? undefined : i);
      if (!isKnownTimeZone(tz)) return `provided bad location ${tz}: unknown time zone ${tz}`;
      s = i < 0 ? '' : s.slice(i).trim();
    }
    if (s.startsWith('@')) {
      if (descriptors.has(s)) return undefined;
      if (s.startsWith('@every ')) {
        const d = s.slice('@every '.length);
        return durationRe.test(d) ? undefined : `failed to parse duration ${s}: time: invalid duration ${JSON.stringify(d)}`;
      }
      return `unrecognized descriptor: ${s}`;
    }
    const fields = s.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
    fields.forEach((f, i) => {
      for (const expr of f.split(',').filter((x) => x !== '')) checkRange(expr, fieldBounds[i]!);
    });
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

/** time.LoadLocation succeeding: an IANA zone name, spelled as the tz database spells it. */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === '') return true;
  if (tz === 'Local') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    // Intl matches names case-insensitively; Go reads files, whose names are case-sensitive.
    return resolved === tz || resolved.toLowerCase() !== tz.toLowerCase();
  } catch {
    return false;
  }
}
