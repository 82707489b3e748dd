/**
 * Watch fan-out shared by every backend: delivers committed events to the
 * registered listeners in strict revision order.
 *
 * Delivery is synchronous, but re-entrant: a listener that writes to the
 * store while being notified gets its own event queued behind the current
 * one, so every listener still sees revisions in increasing order. Each
 * watcher remembers the last revision it saw and skips anything not newer,
 * which makes "replay history, then go live" free of duplicates even when a
 * watch is opened from inside a listener. A throwing listener is reported to
 * `onListenerError` and never breaks the write that produced the event.
 */

import type { StorageEvent, Unsubscribe } from './interface';

export type ListenerErrorHandler = (error: unknown, event: StorageEvent) => void;

interface Watcher {
  prefix: string;
  listener: (event: StorageEvent) => void;
  /** Told when the set ends every watcher (the source they follow was lost). */
  onEnded?: () => void;
  /** Highest revision delivered (or replayed) to this watcher. */
  lastRevision: number;
  active: boolean;
}

export class WatcherSet {
  private readonly watchers = new Set<Watcher>();
  private readonly queue: StorageEvent[] = [];
  private delivering = false;

  constructor(private readonly onListenerError: ListenerErrorHandler = () => {}) {}

  /** Number of live watchers (for tests and metrics). */
  get size(): number {
    return this.watchers.size;
  }

  /**
   * Registers a listener for keys under prefix. `history` holds the events
   * after `afterRevision` already committed, in revision order; they are
   * delivered first, then live events from notify().
   */
  add(
    prefix: string,
    afterRevision: number,
    history: readonly StorageEvent[],
    listener: (event: StorageEvent) => void,
    onEnded?: () => void,
  ): Unsubscribe {
    const watcher: Watcher = { prefix, listener, onEnded, lastRevision: afterRevision, active: true };
    this.watchers.add(watcher);
    // Replay counts as delivery: writes made by the listener meanwhile wait
    // in the queue until the history is through.
    const outermost = !this.delivering;
    this.delivering = true;
    try {
      for (const event of history) {
        if (!watcher.active) break;
        this.deliver(watcher, event);
      }
    } finally {
      if (outermost) this.drain();
    }
    return () => {
      watcher.active = false;
      this.watchers.delete(watcher);
    };
  }

  /** Called by a backend once per committed write, in revision order. */
  notify(event: StorageEvent): void {
    this.queue.push(event);
    if (this.delivering) return;
    this.delivering = true;
    this.drain();
  }

  private drain(): void {
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        // Set iteration tolerates removal and visits watchers added meanwhile;
        // those skip what their replay already covered.
        for (const watcher of this.watchers) this.deliver(watcher, next);
      }
    } finally {
      this.delivering = false;
    }
  }

  /** Ends every watcher, telling each (its source was lost and it must start again). */
  endAll(): void {
    const ended = [...this.watchers];
    this.clear();
    for (const watcher of ended) watcher.onEnded?.();
  }

  /** Drops every watcher (on close). */
  clear(): void {
    for (const watcher of this.watchers) watcher.active = false;
    this.watchers.clear();
    this.queue.length = 0;
  }

  private deliver(watcher: Watcher, event: StorageEvent): void {
    if (!watcher.active || event.revision <= watcher.lastRevision) return;
    if (!event.kv.key.startsWith(watcher.prefix)) return;
    watcher.lastRevision = event.revision;
    try {
      watcher.listener(event);
    } catch (error) {
      try {
        this.onListenerError(error, event);
      } catch {
        // An error handler that throws must not break the write either.
      }
    }
  }
}
