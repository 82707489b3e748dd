import { describe, expect, it } from 'vitest';
import { RecentKeys } from './recentKeys';

describe('RecentKeys', () => {
  it('says a key was seen from its second sighting on, and forgets everything once full', () => {
    const keys = new RecentKeys<string>(3);
    expect(keys.repeated('a')).toBe(false);
    expect(keys.repeated('a')).toBe(true);
    expect(keys.repeated('b')).toBe(false);
    expect(keys.repeated('c')).toBe(false);
    expect([keys.repeated('a'), keys.repeated('b'), keys.repeated('c')]).toEqual([true, true, true]);
    // Full: a fourth key starts the set over with only itself.
    expect(keys.repeated('d')).toBe(false);
    expect(keys.repeated('d')).toBe(true);
    expect(keys.repeated('a')).toBe(false);
    expect(keys.repeated('a')).toBe(true);
  });
});
