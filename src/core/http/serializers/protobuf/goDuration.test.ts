import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration } from './goDuration';

describe('Go duration text', () => {
  // Expected strings are what Go's time.Duration.String prints.
  const cases: Array<[name: string, ns: bigint, text: string]> = [
    ['zero', 0n, '0s'],
    ['nanoseconds', 999n, '999ns'],
    ['microseconds', 1_500n, '1.5µs'],
    ['milliseconds', 300_000_000n, '300ms'],
    ['fractional seconds', 1_500_000_000n, '1.5s'],
    ['minutes', 90_000_000_000n, '1m30s'],
    ['one hour', 3_600_000_000_000n, '1h0m0s'],
    ['hours minutes seconds', 9_045_000_000_000n, '2h30m45s'],
    ['negative', -5_000_000_000n, '-5s'],
    ['past 2^53 nanoseconds', 10_000_000_000_000_000n, '2777h46m40s'],
  ];
  it.each(cases)('formats %s', (_name, ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });
  it.each(cases)('parses %s back', (_name, ns, text) => {
    expect(parseGoDuration(text)).toBe(ns);
  });

  it.each([
    ['1.5h', 5_400_000_000_000n],
    ['2h45m', 9_900_000_000_000n],
    ['10us', 10_000n],
    ['10μs', 10_000n],
    ['+3s', 3_000_000_000n],
    ['0', 0n],
    ['.5s', 500_000_000n],
  ])('parses %s like time.ParseDuration', (text, ns) => {
    expect(parseGoDuration(text)).toBe(ns);
  });

  it.each(['', '1', 'h', '1d', '1.5.5s', '-'])('rejects %j', (text) => {
    expect(() => parseGoDuration(text)).toThrow(/duration/);
  });
});
