/**
 * One watcher per client (storage/cacher cache_watcher.go): a bounded queue
 * between the fan-out, which must never wait, and a consumer that reads at
 * its own pace. The fan-out pushes in O(1); when a consumer falls more than
 * `capacity` items behind, the watcher is terminated and its backlog dropped,
 * so a slow client costs bounded memory and never delays writes or other
 * watchers. Its stream then ends, and the client resumes from the last
 * resourceVersion it saw (or relists), as with kube-apiserver.
 *
 * A consumer that takes items as they come (onReady) is told about new items
 * after the write that produced them has returned, as kube's cacher
 * dispatches to watcher goroutines: once per task for every watcher with new
 * items, or at once when a watcher has `readyBatch` items it was not told
 * about. Writes made back to back without yielding thus reach each watcher as
 * one chunk, as kube-apiserver flushes a watch once its channel is empty.
 */
import type { Storage, StorageEvent } from '../interface';
import { CachingEvent, cachingEvent } from './cachingEvent';

/** An event (with its memo, shared by every watcher), or a bookmark: all changes up to revision have been queued before it. */
export type WatchItem = CachingEvent | { kind: 'bookmark'; revision: number };

/** Why a watcher ended: the consumer stopped it, or it fell too far behind. */
export type WatcherCloseReason = 'stopped' | 'overflow';

/** kube-apiserver sizes watcher channels in the hundreds; this is the backlog tolerated past replay. */
export const defaultWatcherCapacity = 1000;

/** Items a consumer may have waiting, untold, before it is told synchronously. */
export const readyBatch = 64;

/** Watchers with items their consumer has not been told about, told together in the next task. */
let due: CacheWatcher[] = [];
function tellSoon(watcher: CacheWatcher): void {
  if (due.push(watcher) === 1) setTimeout(tellDue, 0);
}
function tellDue(): void {
  const now = due;
  due = [];
  for (const watcher of now) watcher.tell();
}

export class CacheWatcher {
  /** Items at [head, tail); slots outside are empty. The array keeps its size when drained, so a watcher that keeps up allocates nothing per item. */
  private queue: (WatchItem | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private waiter: ((item: WatchItem | undefined) => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Items pushed since the consumer was last told. */
  private untold = 0;
  /** Whether this watcher waits in `due`. */
  private telling = false;
  private limit: number;
  /** Set once the watcher has ended. */
  closeReason: WatcherCloseReason | undefined;
  /** Highest event revision queued. */
  lastRevision: number;
  /**
   * For a consumer that takes items as they come (the watch handler moves
   * them into its response stream while the client has room) instead of
   * awaiting next(): called once new items wait (after the pushing write
   * returned, or at once past `readyBatch`), and on close.
   */
  onReady: (() => void) | undefined = undefined;

  constructor(
    afterRevision: number,
    readonly capacity: number = defaultWatcherCapacity,
  ) {
    this.lastRevision = afterRevision;
    // Unbounded while history replays; endReplay() sets the bound.
    this.limit = Infinity;
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Items waiting for the consumer. */
  get backlog(): number {
    return this.tail - this.head;
  }

  /** Fan-out side: never blocks. */
  push(item: WatchItem): void {
    if (this.closed) return;
    if (item.kind === 'event' && item.revision > this.lastRevision) this.lastRevision = item.revision;
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve(item);
      return;
    }
    this.queue[this.tail++] = item;
    if (this.tail - this.head > this.limit) return this.close('overflow');
    if (!this.onReady) return;
    if (++this.untold >= readyBatch) this.tell();
    else if (!this.telling) {
      this.telling = true;
      tellSoon(this);
    }
  }

  /** Tells the consumer that items wait (the scheduled call, or a full batch). */
  tell(): void {
    this.telling = false;
    this.untold = 0;
    if (!this.closed) this.onReady?.();
  }

  /** The replayed history is accepted whole; the capacity bounds the backlog beyond it. */
  endReplay(): void {
    this.limit = Math.max(this.capacity, this.backlog + this.capacity);
  }

  attach(unsubscribe: () => void): void {
    if (this.closed) unsubscribe();
    else this.unsubscribe = unsubscribe;
  }

  /** Consumer side: the next item, or undefined once the watcher has ended. */
  next(): Promise<WatchItem | undefined> {
    const item = this.take();
    if (item || this.closed) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The next item if one is queued, without waiting. */
  take(): WatchItem | undefined {
    if (this.head === this.tail) return undefined;
    const item = this.queue[this.head]!;
    this.queue[this.head++] = undefined;
    if (this.head === this.tail) {
      this.head = 0;
      this.tail = 0;
      // A long replay's array is not kept once it is drained.
      if (this.queue.length > 4096) this.queue = [];
    } else if (this.head > 1024 && this.head * 2 > this.tail) {
      // Reclaim the taken prefix once it dominates, keeping pushes amortized O(1).
      this.queue.copyWithin(0, this.head, this.tail);
      this.queue.fill(undefined, this.tail - this.head, this.tail);
      this.tail -= this.head;
      this.head = 0;
    }
    return item;
  }

  close(reason: WatcherCloseReason = 'stopped'): void {
    if (this.closed) return;
    this.closeReason = reason;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    // A terminated watcher drops its backlog: the client resumes from what it saw.
    if (reason === 'overflow') {
      this.queue = [];
      this.head = 0;
      this.tail = 0;
    }
    const resolve = this.waiter;
    this.waiter = undefined;
    resolve?.(undefined);
    this.onReady?.();
  }
}

/**
 * Opens a buffered watcher on any Storage (the watch cache, or a bare backend):
 * events on keys under prefix after afterRevision. Rejects like Storage.watch
 * (StorageError 'Compacted' for a revision older than the retained history).
 */
export async function openCacheWatcher(storage: Storage, prefix: string, afterRevision: number, capacity?: number): Promise<CacheWatcher> {
  const watcher = new CacheWatcher(afterRevision, capacity);
  // A watch its storage ends (the watch cache starting over) ends the stream: the client resumes from what it saw.
  const unsubscribe = await storage.watch(prefix, afterRevision, (event: StorageEvent) => watcher.push(cachingEvent(event)), undefined, () => watcher.close());
  watcher.endReplay();
  watcher.attach(unsubscribe);
  return watcher;
}
