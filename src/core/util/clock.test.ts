/** The real clock's sleep under vitest's fake timers: waits longer than one setTimeout allows (a yearly CronJob's) still wait their whole length. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realClock } from './clock';

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('realClock.sleep', () => {
  it('a wait past setTimeout\'s 2^31-1 ms is a chain of timers, not an immediate wake', async () => {
    let woke = false;
    void realClock.sleep(40 * 24 * 3600_000).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(40 * 24 * 3600_000 - 2 ** 31 - 1);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
  });

  it('an abort wakes it at once', async () => {
    const abort = new AbortController();
    let woke = false;
    void realClock.sleep(10_000, abort.signal).then(() => (woke = true));
    abort.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
  });
});
