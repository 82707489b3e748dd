import { describe, expect, it } from 'vitest';
import { humanDuration, timestampSince } from './duration';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration (duration.HumanDuration)', () => {
  it.each([
    ['2s in the future is invalid', -2 * s, '<invalid>'],
    ['1.999s in the future is now', -1999, '0s'],
    ['1s in the future is now', -1 * s, '0s'],
    ['zero', 0, '0s'],
    ['sub-second truncates', 999, '0s'],
    ['59s', 59 * s, '59s'],
    ['seconds up to 2m', 119 * s, '119s'],
    ['2m exactly', 2 * m, '2m'],
    ['2m1s', 2 * m + 1 * s, '2m1s'],
    ['5m3s', 5 * m + 3 * s, '5m3s'],
    ['9m59s', 9 * m + 59 * s, '9m59s'],
    ['10m drops seconds', 10 * m + 30 * s, '10m'],
    ['179m', 179 * m + 59 * s, '179m'],
    ['3h exactly', 3 * h, '3h'],
    ['3h5m', 3 * h + 5 * m, '3h5m'],
    ['7h59m', 7 * h + 59 * m + 59 * s, '7h59m'],
    ['8h drops minutes', 8 * h + 30 * m, '8h'],
    ['47h', 47 * h + 59 * m, '47h'],
    ['2d exactly', 2 * d, '2d'],
    ['2d5h', 2 * d + 5 * h + 59 * m, '2d5h'],
    ['7d23h', 7 * d + 23 * h, '7d23h'],
    ['8d drops hours', 8 * d + 5 * h, '8d'],
    ['729d', 729 * d + 23 * h, '729d'],
    ['2y exactly (730d)', 730 * d, '2y'],
    ['2y5d', 735 * d, '2y5d'],
    ['7y364d', 8 * 365 * d - d, '7y364d'],
    ['8y drops days', 8 * 365 * d + 10 * d, '8y'],
    ['15y', 15 * 365 * d, '15y'],
  ])('%s', (_name, ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });
});

describe('timestampSince (translateTimestampSince)', () => {
  const now = new Date('2025-06-01T12:00:00Z');
  it.each([
    ['missing', undefined, '<unknown>'],
    ['null', null, '<unknown>'],
    ['Go zero time', '0001-01-01T00:00:00Z', '<unknown>'],
    ['unparsable', 'yesterday', '<unknown>'],
    ['RFC 3339 UTC', '2025-06-01T11:54:57Z', '5m3s'],
    ['RFC 3339 with offset', '2025-06-01T13:55:00+02:00', '5m'],
    ['micro time', '2025-06-01T11:59:30.123456Z', '29s'],
  ])('%s', (_name, ts, expected) => {
    expect(timestampSince(ts, now)).toBe(expected);
  });
});
