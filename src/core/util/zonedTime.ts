/**
 * Wall-clock time in an IANA time zone, as Go's time package computes it
 * (time.LoadLocation, Time.In, time.Date and Time.Format(time.RFC3339)),
 * with the zone rules read from the platform through Intl. Instants are
 * milliseconds since the epoch.
 */

/** The wall-clock fields of an instant in a zone (month 1-12, weekday 0 = Sunday). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

export interface Zone {
  readonly name: string;
  /** The zone's offset from UTC at the instant, in milliseconds. */
  offsetAt(ms: number): number;
}

/** Milliseconds of a UTC wall clock, normalising overflowing fields as time.Date does (years below 100 included). */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

export const utcZone: Zone = { name: 'UTC', offsetAt: () => 0 };

const zones = new Map<string, Zone>();

/** An IANA zone read through Intl: the offset is the zone's wall clock minus UTC's, to the second. */
function intlZone(name: string): Zone {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const read = (ms: number): number => {
    const at = Math.floor(ms / 1000) * 1000;
    const parts: Record<string, string> = {};
    for (const p of format.formatToParts(new Date(at))) parts[p.type] = p.value;
    const year = parts['era'] === 'BC' || parts['era'] === 'B' ? 1 - Number(parts['year']) : Number(parts['year']);
    return utcMs(year, Number(parts['month']), Number(parts['day']), Number(parts['hour']), Number(parts['minute']), Number(parts['second'])) - at;
  };
  // Intl is slow, and a schedule walks seconds, hours and days: a UTC day (or
  // failing that an hour) whose first and last second share an offset holds
  // no transition, and is read once.
  const days = new Map<number, number | null>();
  const hours = new Map<number, number | null>();
  const uniform = (spans: Map<number, number | null>, length: number, key: number): number | null => {
    let offset = spans.get(key);
    if (offset === undefined) {
      const first = read(key * length);
      offset = first === read((key + 1) * length - 1000) ? first : null;
      if (spans.size >= 4096) spans.clear();
      spans.set(key, offset);
    }
    return offset;
  };
  return {
    name,
    offsetAt(ms) {
      return uniform(days, 86_400_000, Math.floor(ms / 86_400_000)) ?? uniform(hours, 3_600_000, Math.floor(ms / 3_600_000)) ?? read(ms);
    },
  };
}

/** time.LoadLocation succeeding: an IANA zone name, spelled as the tz database spells it. */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === '' || tz === 'Local') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    // Intl matches names case-insensitively; Go reads files, whose names are case-sensitive.
    return resolved === tz || resolved.toLowerCase() !== tz.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * time.LoadLocation: "" and "UTC" are UTC, and so is "Local" (the
 * controller manager's own zone, UTC in its container); undefined for a
 * name the tz database lacks.
 */
export function loadLocation(name: string): Zone | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return utcZone;
  if (!isKnownTimeZone(name)) return undefined;
  let zone = zones.get(name);
  if (!zone) zones.set(name, (zone = intlZone(name)));
  return zone;
}

/** Time.In(zone) followed by Year(), Month(), Day(), Clock() and Weekday(). */
export function wallClock(ms: number, zone: Zone): WallClock {
  const d = new Date(Math.floor(ms / 1000) * 1000 + zone.offsetAt(ms));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * time.Date in a zone: the fields normalised, then the offset in force at
 * the wall time read as UTC, or, when the instant that gives falls outside
 * that offset's period, the offset in force at that instant (Go's choice for
 * a wall time a transition skips or repeats).
 */
export function zonedDate(zone: Zone, year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const unix = utcMs(year, month, day, hour, minute, second);
  const first = zone.offsetAt(unix);
  if (first === 0) return unix;
  return unix - zone.offsetAt(unix - first);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** Time.In(zone).Format(time.RFC3339): whole seconds, `Z` for a zero offset, else ±hh:mm. */
export function formatRFC3339In(ms: number, zone: Zone): string {
  const w = wallClock(ms, zone);
  const offsetMin = Math.round(zone.offsetAt(ms) / 60_000);
  const zoneText = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${zoneText}`;
}
