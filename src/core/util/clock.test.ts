/** The real clock's sleep under vitest's fake timers: waits longer than one setTimeout allows (a yearly CronJob's) still wait their whole length. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock, realClock } from './clock';

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

describe('a loop sleeping on one long-lived signal', () => {
  /** The abort listeners a signal holds, counted through its add and remove calls. */
  function countedSignal(): { signal: AbortSignal; held: () => number; abort: () => void } {
    const controller = new AbortController();
    const held = new Set<unknown>();
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: AddEventListenerOptions) => {
      held.add(listener);
      add(type, listener, options);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListenerOrEventListenerObject) => {
      held.delete(listener);
      remove(type, listener);
    }) as typeof signal.removeEventListener;
    return { signal, held: () => held.size, abort: () => controller.abort() };
  }

  it('leaves no abort listener behind for each wake of the real clock', async () => {
    const { signal, held } = countedSignal();
    for (let i = 0; i < 100; i++) {
      const slept = realClock.sleep(10_000, signal);
      await vi.advanceTimersByTimeAsync(10_000);
      await slept;
    }
    expect(held()).toBe(0);
  });

  it('leaves no abort listener behind for each wake of the fake clock, and an abort still wakes a sleeper', async () => {
    const clock = new FakeClock();
    const { signal, held, abort } = countedSignal();
    for (let i = 0; i < 100; i++) {
      const slept = clock.sleep(10_000, signal);
      clock.advance(10_000);
      await slept;
    }
    expect(held()).toBe(0);
    let woke = false;
    void clock.sleep(10_000, signal).then(() => (woke = true));
    expect(held()).toBe(1);
    abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
  });
});
