import { describe, expect, it } from 'vitest';
import { goBase64Error, goFormatValue, goQuantityParseError, goTimeParseError } from './goValues';

describe('goTimeParseError (time.Parse with RFC 3339)', () => {
  const L = '"2006-01-02T15:04:05Z07:00"';
  const cases: [string, string | undefined][] = [
    ['2024-01-02T03:04:05Z', undefined],
    ['2024-01-02T03:04:05.999999999+02:00', undefined],
    ['2024-02-29T00:00:00Z', undefined],
    ['yesterday', `parsing time "yesterday" as ${L}: cannot parse "yesterday" as "2006"`],
    ['2024/01/02T03:04:05Z', `parsing time "2024/01/02T03:04:05Z" as ${L}: cannot parse "/01/02T03:04:05Z" as "-"`],
    ['2024-1-02T03:04:05Z', `parsing time "2024-1-02T03:04:05Z" as ${L}: cannot parse "1-02T03:04:05Z" as "01"`],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-02', `parsing time "2024-01-02" as ${L}: cannot parse "" as "T"`],
    ['2024-01-02T03:04:05', `parsing time "2024-01-02T03:04:05" as ${L}: cannot parse "" as "Z07:00"`],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
  ];
  for (const [v, want] of cases) it(v, () => expect(goTimeParseError(v)).toBe(want));

  it('MicroTime needs exactly six fractional digits', () => {
    expect(goTimeParseError('2024-01-02T03:04:05.123456Z', true)).toBeUndefined();
    expect(goTimeParseError('2024-01-02T03:04:05Z', true)).toBe(
      'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });
});

describe('goQuantityParseError', () => {
  it.each([
    ['1', undefined],
    ['500m', undefined],
    ['1.5Gi', undefined],
    ['1e3', undefined],
    ['abc', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1Qi', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['1iK', "unable to parse quantity's suffix"],
    ['1.2.3', 'unable to parse numeric part of quantity'],
  ])('%s', (v, want) => expect(goQuantityParseError(v)).toBe(want));
});

describe('goBase64Error', () => {
  it.each([
    ['aGVsbG8=', undefined],
    ['aGVsbA==', undefined],
    ['', undefined],
    ['!!!!', 'illegal base64 data at input byte 0'],
    ['aGVsbG8', 'illegal base64 data at input byte 4'],
    ['aGVs\nbG8=', undefined],
  ])('%j', (v, want) => expect(goBase64Error(v)).toBe(want));
});

describe('goFormatValue (%+v of a decoded patch)', () => {
  it('prints maps sorted, slices space-separated, integers whole', () => {
    expect(goFormatValue({ spec: { b: [1, 'x', true, null], a: 1.5, c: 1e21 } })).toBe('map[spec:map[a:1.5 b:[1 x true <nil>] c:1e+21]]');
  });
});
