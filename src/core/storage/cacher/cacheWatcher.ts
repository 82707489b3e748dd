/**
 * One watcher per client (storage/cacher cache_watcher.go): a bounded queue
 * between the fan-out, which must never wait, and a consumer that reads at
 * its own pace. The fan-out pushes in O(1); when a consumer falls more than
 * `capacity` items behind, the watcher is terminated and its backlog dropped,
 * so a slow client costs bounded memory and never delays writes or other
 * watchers. Its stream then ends, and the client resumes from the last
 * resourceVersion it saw (or relists), as with kube-apiserver.
 */
import type { Storage, StorageEvent, Unsubscribe } from '../interface';

export type WatchItem =
  | { kind: 'event'; event: StorageEvent }
  /** All changes up to revision have been queued before this item. */
  | { kind: 'bookmark'; revision: number };

/** Why a watcher ended: the consumer stopped it, or it fell too far behind. */
export type WatcherCloseReason = 'stopped' | 'overflow';

/** kube-apiserver sizes watcher channels in the hundreds; this is the backlog tolerated past replay. */
export const defaultWatcherCapacity = 1000;

export class CacheWatcher {
  private queue: WatchItem[] = [];
  private head = 0;
  private waiter: ((item: WatchItem | undefined) => void) | undefined;
  private unsubscribe: Unsubscribe | undefined;
  private limit: number;
  /** Set once the watcher has ended. */
  closeReason: WatcherCloseReason | undefined;
  /** Highest event revision queued. */
  lastRevision: number;
  /**
   * Called synchronously after every push and on close, for a consumer that
   * takes items as they come (the watch handler moves them straight into its
   * response stream while the client has room) instead of awaiting next().
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
    return this.queue.length - this.head;
  }

  /** Fan-out side: never blocks. */
  push(item: WatchItem): void {
    if (this.closed) return;
    if (item.kind === 'event') this.lastRevision = Math.max(this.lastRevision, item.event.revision);
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = undefined;
      resolve(item);
      return;
    }
    this.queue.push(item);
    if (this.backlog > this.limit) this.close('overflow');
    else this.onReady?.();
  }

  /** The replayed history is accepted whole; the capacity bounds the backlog beyond it. */
  endReplay(): void {
    this.limit = Math.max(this.capacity, this.backlog + this.capacity);
  }

  attach(unsubscribe: Unsubscribe): void {
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
    if (this.head >= this.queue.length) return undefined;
    const item = this.queue[this.head]!;
    this.queue[this.head++] = undefined as unknown as WatchItem;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
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
    }
    const resolve = this.waiter;
    this.waiter = undefined;
    resolve?.(undefined);
    this.onReady?.();
  }
}

/** The item made last: the fan-out hands one event to every watcher in turn, and items are never changed, so they share it. */
let lastItem: WatchItem & { kind: 'event' } = { kind: 'event', event: { type: 'PUT', revision: 0, kv: { key: '', value: '', createRevision: 0, modRevision: 0 } } };
function itemFor(event: StorageEvent): WatchItem {
  if (lastItem.event !== event) lastItem = { kind: 'event', event };
  return lastItem;
}

/**
 * Opens a buffered watcher on any Storage (the watch cache, or a bare backend):
 * events on keys under prefix after afterRevision. Rejects like Storage.watch
 * (StorageError 'Compacted' for a revision older than the retained history).
 */
export async function openCacheWatcher(storage: Storage, prefix: string, afterRevision: number, capacity?: number): Promise<CacheWatcher> {
  const watcher = new CacheWatcher(afterRevision, capacity);
  const unsubscribe = await storage.watch(prefix, afterRevision, (event) => watcher.push(itemFor(event)));
  watcher.endReplay();
  watcher.attach(unsubscribe);
  return watcher;
}
