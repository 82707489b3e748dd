import { describe, expect, it } from 'vitest';
import { formatRfc3339, parseRfc3339 } from './wellKnown';

describe('RFC 3339 timestamps (metav1.Time, metav1.MicroTime)', () => {
  it.each([
    ['1970-01-01T00:00:00Z', 0, 0],
    ['2024-01-02T03:04:05Z', 1704164645, 0],
    ['2024-02-29T23:59:59Z', 1709251199, 0],
    ['1969-12-31T23:59:59Z', -1, 0],
    ['0001-01-01T00:00:00Z', -62135596800, 0],
    ['9999-12-31T23:59:59Z', 253402300799, 0],
    ['2024-01-02T03:04:05.123456789Z', 1704164645, 123456789],
    ['2024-01-02T05:04:05.5+02:00', 1704164645, 500000000],
    ['2024-01-01T22:04:05-05:00', 1704164645, 0],
  ])('%s', (text, seconds, nanos) => {
    expect(parseRfc3339(text)).toEqual({ seconds, nanos });
    expect(formatRfc3339(seconds)).toBe(`${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`);
  });

  it('formats microseconds with six digits', () => {
    expect(formatRfc3339(1704164645, 1234)).toBe('2024-01-02T03:04:05.001234Z');
  });

  it.each(['2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-02T24:00:00Z', '2024-01-02 03:04:05Z', '2024-01-02T03:04:05'])(
    'rejects %s', (text) => {
      expect(() => parseRfc3339(text)).toThrow();
    });
});
