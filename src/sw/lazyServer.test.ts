import { describe, expect, it } from 'vitest';
import { lazily } from './lazyServer';

describe('lazily', () => {
  it('starts once and shares the result', async () => {
    let starts = 0;
    const get = lazily(async () => ++starts);
    expect(starts).toBe(0);
    expect(await Promise.all([get(), get()])).toEqual([1, 1]);
    expect(await get()).toBe(1);
  });

  it('forgets a failed start so the next call retries', async () => {
    let starts = 0;
    const get = lazily(async () => {
      starts++;
      if (starts === 1) throw new Error('blocked');
      return 'up';
    });
    await expect(get()).rejects.toThrow('blocked');
    expect(await get()).toBe('up');
  });
});
