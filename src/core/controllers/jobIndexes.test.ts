/** Completion index sets as status.completedIndexes and failedIndexes write them (orderedIntervals). */
import { describe, expect, it } from 'vitest';
import { firstPendingIndexes, formatIntervals, generateNameWithIndex, matchSuccessPolicy, parseIntervals, withIndexes } from './jobIndexes';

describe('completion index intervals', () => {
  it.each([
    ['a single index', [3], '3'],
    ['two in a row are listed', [0, 1], '0,1'],
    ['three or more are a range', [0, 1, 2, 5, 7, 8, 9], '0-2,5,7-9'],
    ['nothing', [], ''],
  ])('%s', (_name, indexes, text) => {
    expect(formatIntervals(withIndexes([], indexes))).toBe(text);
  });

  it.each([
    ['ranges and singles merge when they touch', '0-2,3,5', 10, '0-3,5'],
    ['indexes past completions are dropped, a range cut', '1,4-9,12', 6, '1,4,5'],
    ['corrupt pieces are skipped', '1,x,3-y,5', 10, '1,5'],
  ])('parse: %s', (_name, text, completions, back) => {
    expect(formatIntervals(parseIntervals(text, completions))).toBe(back);
  });

  it('the first pending indexes skip those taken', () => {
    expect(firstPendingIndexes(parseIntervals('0,2-4', 10), 3, 10)).toEqual([1, 5, 6]);
    expect(firstPendingIndexes(parseIntervals('0-1', 3), 5, 3)).toEqual([2]);
  });

  it('an indexed pod name prefix fits a generated name', () => {
    expect(generateNameWithIndex('pi', 3)).toBe('pi-3-');
    const long = 'a'.repeat(63);
    expect(generateNameWithIndex(long, 12)).toBe(`${'a'.repeat(54)}-12-`);
  });

  it.each([
    ['all the rule\'s indexes succeeded', [{ succeededIndexes: '0-2' }], '0-3', 'Matched rules at index 0'],
    ['not all of them', [{ succeededIndexes: '0-2' }], '0,1,4', undefined],
    ['succeededCount of the rule\'s indexes', [{ succeededIndexes: '0-4', succeededCount: 2 }], '1,3', 'Matched rules at index 0'],
    ['succeededCount of any indexes, the second rule', [{ succeededIndexes: '9' }, { succeededCount: 3 }], '2,5,7', 'Matched rules at index 1'],
  ])('successPolicy: %s', (_name, rules, succeeded, message) => {
    expect(matchSuccessPolicy({ rules }, 10, parseIntervals(succeeded, 10))).toBe(message);
  });
});
