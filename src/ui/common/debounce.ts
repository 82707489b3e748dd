/**
 * A value that is applied once the user stops changing it (each change
 * restarts the wait), or at once when asked (Enter, leaving the field), so a
 * field whose every keystroke would cost a request makes one for the value
 * the user meant.
 */
import { useEffect, useRef } from 'react';

export interface Debouncer<T> {
  /** The latest value, applied after the wait unless another one comes first. */
  schedule(value: T): void;
  /** Applies the waiting value now (nothing when none waits). */
  flush(): void;
  /** Drops the waiting value. */
  cancel(): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export function createDebouncer<T>(apply: (value: T) => void, ms: number, timers: Timers = globalTimers): Debouncer<T> {
  let waiting: { value: T; handle: unknown } | undefined;
  const cancel = () => {
    if (waiting) timers.clearTimeout(waiting.handle);
    waiting = undefined;
  };
  const flush = () => {
    if (!waiting) return;
    const { value } = waiting;
    cancel();
    apply(value);
  };
  return {
    schedule(value) {
      cancel();
      waiting = { value, handle: timers.setTimeout(flush, ms) };
    },
    flush,
    cancel,
  };
}

/** A debouncer for the component's lifetime; the latest `apply` is the one called, and a waiting value is dropped on unmount. */
export function useDebouncer<T>(apply: (value: T) => void, ms: number): Debouncer<T> {
  const latest = useRef(apply);
  latest.current = apply;
  const debouncer = useRef<Debouncer<T>>(undefined);
  debouncer.current ??= createDebouncer<T>((value) => latest.current(value), ms);
  useEffect(() => () => debouncer.current?.cancel(), []);
  return debouncer.current;
}
