/** robfig/cron/v3's ParseStandard and SpecSchedule.Next against next times worked out by hand, in UTC and in zones with daylight saving. */
import { describe, expect, it } from 'vitest';
import { cronScheduleError, parseStandard, zeroTime } from './cronSchedule';
import { formatRFC3339In, loadLocation, zonedDate } from './zonedTime';

const iso = (ms: number) => (ms === zeroTime ? 'zero' : new Date(ms).toISOString().replace('.000Z', 'Z'));
const next = (spec: string, after: string) => iso(parseStandard(spec).next(Date.parse(after)));

describe('SpecSchedule.Next', () => {
  const cases: [string, string, string][] = [
    ['*/15 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:15:00Z'],
    ['*/15 * * * *', '2026-01-01T00:14:59.900Z', '2026-01-01T00:15:00Z'],
    ['* * * * *', '2026-01-01T00:00:30Z', '2026-01-01T00:01:00Z'],
    ['0 */6 * * *', '2026-01-01T07:00:00Z', '2026-01-01T12:00:00Z'],
    ['5-10/5 3 * * *', '2026-01-01T03:06:00Z', '2026-01-01T03:10:00Z'],
    ['0,30 9 * * *', '2026-01-01T09:30:00Z', '2026-01-02T09:00:00Z'],
    // Day of month and day of week, neither `*`: either matches (the 1st, or a weekday).
    ['0 0 1 jan-mar mon-fri', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'],
    ['0 0 1 jan-mar mon-fri', '2026-01-02T00:00:00Z', '2026-01-05T00:00:00Z'],
    ['0 0 1 jan-mar mon-fri', '2026-03-31T00:00:00Z', '2027-01-01T00:00:00Z'],
    // `*/1` keeps the star (both must match); `*/2` does not (either).
    ['0 0 */1 * MON', '2026-01-01T00:00:00Z', '2026-01-05T00:00:00Z'],
    ['0 0 */2 * MON', '2026-01-01T00:00:00Z', '2026-01-03T00:00:00Z'],
    ['0 0 ? * sun', '2026-01-01T00:00:00Z', '2026-01-04T00:00:00Z'],
    ['0 12 * Feb *', '2026-01-01T00:00:00Z', '2026-02-01T12:00:00Z'],
    ['0 0 29 2 *', '2026-01-01T00:00:00Z', '2028-02-29T00:00:00Z'],
    // Valid to the parser, never due: the zero time after five years of looking.
    ['59 23 31 2 *', '2026-01-01T00:00:00Z', 'zero'],
    ['@yearly', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['@annually', '2026-06-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['@monthly', '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'],
    ['@weekly', '2026-01-01T00:00:00Z', '2026-01-04T00:00:00Z'],
    ['@daily', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'],
    ['@midnight', '2026-01-01T23:59:59Z', '2026-01-02T00:00:00Z'],
    ['@hourly', '2026-01-01T00:59:00Z', '2026-01-01T01:00:00Z'],
    ['@every 90s', '2026-01-01T00:00:00.500Z', '2026-01-01T00:01:30Z'],
    ['@every 10ms', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z'],
    // In a zone: 09:00 in Paris is 08:00Z in winter, 07:00Z in summer.
    ['TZ=Europe/Paris 0 9 * * mon', '2026-01-01T00:00:00Z', '2026-01-05T08:00:00Z'],
    ['CRON_TZ=Europe/Paris 0 9 * * mon', '2026-07-01T00:00:00Z', '2026-07-06T07:00:00Z'],
    ['TZ=Asia/Kolkata @daily', '2026-01-01T00:00:00Z', '2026-01-01T18:30:00Z'],
    // New York springs forward on 8 March 2026: 02:30 does not exist that day, so the next run is the 9th.
    ['TZ=America/New_York 30 2 * * *', '2026-03-07T08:00:00Z', '2026-03-09T06:30:00Z'],
    // And falls back on 1 November: 01:30 happens twice, and runs twice (EDT, then EST).
    ['TZ=America/New_York 30 1 * * *', '2026-10-31T12:00:00Z', '2026-11-01T05:30:00Z'],
    ['TZ=America/New_York 30 1 * * *', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z'],
    ['TZ=America/New_York 30 1 * * *', '2026-11-01T06:30:00Z', '2026-11-02T06:30:00Z'],
    // São Paulo skipped midnight on 4 November 2018 (the day began at 01:00): walking the hours, no run that day.
    ['TZ=America/Sao_Paulo 0 0 * * *', '2018-11-03T12:00:00Z', '2018-11-05T02:00:00Z'],
  ];
  for (const [spec, after, want] of cases) it(`${spec} after ${after} -> ${want}`, () => expect(next(spec, after)).toBe(want));
});

describe('ParseStandard errors', () => {
  const cases: [string, string][] = [
    ['TZ=Mars/Olympus 0 * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
    ['@every 1x', 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
    ['*/5/2 * * * *', 'too many slashes: */5/2'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['* * * foo *', 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
  ];
  for (const [spec, want] of cases) it(`${spec} -> ${want}`, () => expect(cronScheduleError(spec)).toBe(want));
});

describe('zoned time', () => {
  it('formats RFC 3339 in a zone as Go does, Z for UTC', () => {
    const at = Date.parse('2026-07-01T07:00:00Z');
    expect(formatRFC3339In(at, loadLocation('Europe/Paris')!)).toBe('2026-07-01T09:00:00+02:00');
    expect(formatRFC3339In(at, loadLocation('America/St_Johns')!)).toBe('2026-07-01T04:30:00-02:30');
    expect(formatRFC3339In(at, loadLocation('')!)).toBe('2026-07-01T07:00:00Z');
  });
  it('time.Date of a wall time a transition skips lands where Go puts it', () => {
    // 02:30 on 8 March 2026 in New York: Go answers 06:30Z (01:30 EST).
    expect(iso(zonedDate(loadLocation('America/New_York')!, 2026, 3, 8, 2, 30))).toBe('2026-03-08T06:30:00Z');
    expect(iso(zonedDate(loadLocation('America/New_York')!, 2026, 13, 1))).toBe('2027-01-01T05:00:00Z');
  });
  it('an unknown zone does not load', () => expect(loadLocation('Mars/Olympus')).toBeUndefined());
});
