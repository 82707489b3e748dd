/**
 * Injected time and randomness, so tests and shared scenarios replay
 * identically (the apiserver's injected clocks and name generators).
 */

export interface Clock {
  now(): Date;
  /** Resolves after ms of this clock's time (a fake clock resolves when advanced). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RandomSource {
  /** Fills the array with random bytes. */
  fill(bytes: Uint8Array): Uint8Array;
}

/** setTimeout's longest delay (a longer one fires at once). */
const maxTimerMs = 2 ** 31 - 1;

export const realClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      // A wait longer than one timer allows (a yearly schedule) is a chain of timers.
      const until = Date.now() + ms;
      let timer: ReturnType<typeof setTimeout>;
      const aborted = () => {
        clearTimeout(timer);
        resolve();
      };
      // A loop sleeps on one long-lived signal: each wake takes its listener off, or they pile up.
      const woke = () => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const arm = () => {
        const left = until - Date.now();
        timer = setTimeout(left > maxTimerMs ? arm : woke, Math.min(Math.max(left, 0), maxTimerMs));
      };
      arm();
      signal?.addEventListener('abort', aborted, { once: true });
    }),
};

/** Random bytes drawn from the platform's generator a page at a time: every create takes a few (uid, name suffixes). */
const randomPool = new Uint8Array(4096);
let randomPoolAt = randomPool.length;

export const cryptoRandom: RandomSource = {
  fill: (bytes) => {
    if (bytes.length > randomPool.length) return crypto.getRandomValues(bytes as Uint8Array<ArrayBuffer>);
    if (randomPoolAt + bytes.length > randomPool.length) {
      crypto.getRandomValues(randomPool);
      randomPoolAt = 0;
    }
    for (let i = 0; i < bytes.length; i++) bytes[i] = randomPool[randomPoolAt++]!;
    return bytes;
  },
};

/** A clock that only moves when told to; sleepers wake when their deadline is passed. */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const aborted = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper = {
        until: this.current + ms,
        resolve: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  advance(ms: number): void {
    this.current += ms;
    const due = this.sleepers.filter((s) => s.until <= this.current);
    this.sleepers = this.sleepers.filter((s) => s.until > this.current);
    for (const s of due) s.resolve();
  }
}

/** Deterministic randomness for tests and replayable scenarios (xorshift32). */
export function seededRandom(seed = 1): RandomSource {
  let state = seed >>> 0 || 1;
  return {
    fill(bytes) {
      for (let i = 0; i < bytes.length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        bytes[i] = state & 0xff;
      }
      return bytes;
    },
  };
}
