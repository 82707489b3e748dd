/**
 * A rate-limited work queue in the spirit of client-go's workqueue: a key
 * added while it is queued is queued once; a key added while it is being
 * processed is processed again afterwards (never twice at the same time);
 * a failed key is retried after a delay (real time even under a fake clock).
 */
import { realClock } from '../util/clock';

export interface WorkQueue {
  add(key: string): void;
  /** Resolves once nothing is queued or running (for tests and benchmarks). */
  idle(): Promise<void>;
  stop(): void;
}

export function newWorkQueue(name: string, sync: (key: string) => Promise<void>, retryMs = 1000): WorkQueue {
  const running = new Set<string>();
  const dirty = new Set<string>();
  const stopped = new AbortController();
  let waiters: (() => void)[] = [];

  function settle(): void {
    if (running.size || dirty.size) return;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  }

  async function process(key: string): Promise<void> {
    running.add(key);
    dirty.delete(key);
    try {
      await sync(key);
    } catch (e) {
      if (!stopped.signal.aborted) {
        console.error(`kubesim: ${name}: ${key}:`, e);
        // A retry is the controller's own pacing, not simulated time: it waits on the real clock.
        void realClock.sleep(retryMs, stopped.signal).then(() => {
          if (!stopped.signal.aborted) add(key);
        });
      }
    } finally {
      running.delete(key);
      if (dirty.has(key) && !stopped.signal.aborted) void process(key);
      settle();
    }
  }

  function add(key: string): void {
    if (stopped.signal.aborted) return;
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (dirty.has(key)) return;
    dirty.add(key);
    // Coalesce the events of one tick into one sync.
    queueMicrotask(() => {
      if (dirty.has(key) && !running.has(key)) void process(key);
    });
  }

  return {
    add,
    idle: () => new Promise<void>((resolve) => {
      waiters.push(resolve);
      settle();
    }),
    stop() {
      stopped.abort();
      dirty.clear();
      settle();
    },
  };
}

/**
 * The queue's AddRateLimited and Forget, for a controller that paces its own failures: `retry` adds the key again
 * after backoffMs(failures so far) on the real clock, dropping it after maxRetries; `forget` clears a key's count
 * after a success.
 */
export function rateLimitedRetries(queue: WorkQueue, backoffMs: (failures: number) => number, maxRetries: number, signal: AbortSignal) {
  const failures = new Map<string, number>();
  return {
    retry(key: string): void {
      const n = failures.get(key) ?? 0;
      if (n >= maxRetries) {
        failures.delete(key);
        return;
      }
      failures.set(key, n + 1);
      void realClock.sleep(backoffMs(n), signal).then(() => {
        if (!signal.aborted) queue.add(key);
      });
    },
    forget(key: string): void {
      failures.delete(key);
    },
  };
}
