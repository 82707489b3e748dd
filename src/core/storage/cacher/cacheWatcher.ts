/**
 * One watcher per client (storage/cacher cache_watcher.go): what a client
 * has yet to read, between the fan-out, which must never wait, and a consumer
 * that reads at its own pace. Items come two ways:
 *
 * - from the watch cache: the replayed history is pushed, then the watcher
 *   reads its prefix's shared feed (./watchFeed.ts) through a cursor, so a
 *   write costs nothing per watcher; the feed closes the watcher once it is
 *   more than `capacity` events behind;
 * - from any other storage (and bookmarks, always): pushed into a bounded
 *   queue in O(1), the watcher closed when it holds more than `capacity`.
 *
 * Pushed items and feed events are taken in revision order. A terminated
 * watcher drops its backlog, so a slow client costs bounded memory and never
 * delays writes or other watchers; its stream ends and the client resumes
 * from the last resourceVersion it saw (or relists), as with kube-apiserver.
 *
 * A consumer that takes items as they come (onReady) is told about new items
 * after the write that produced them has returned, as kube's cacher
 * dispatches to watcher goroutines: once per task, or at once past
 * `readyBatch` untold items. Writes made back to back without yielding thus
 * reach each watcher as one chunk, as kube-apiserver flushes a watch once its
 * channel is empty.
 */
import type { Storage, StorageEvent } from '../interface';
import { CachingEvent, cachingEvent } from './cachingEvent';
import { readyBatch, type FeedReader, type WatchFeed } from './watchFeed';

export { readyBatch };

/** An event (with its memo, shared by every watcher), or a bookmark: all changes up to revision have been queued before it. */
export type WatchItem = CachingEvent | { kind: 'bookmark'; revision: number };

/** Why a watcher ended: the consumer stopped it, or it fell too far behind. */
export type WatcherCloseReason = 'stopped' | 'overflow';

/** kube-apiserver sizes watcher channels in the hundreds; this is the backlog tolerated past replay. */
export const defaultWatcherCapacity = 1000;

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

export class CacheWatcher implements FeedReader {
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
  /** Highest event revision queued (the feed's events aside). */
  private queuedRevision: number;
  /** Live events after the replay, read from the prefix's shared feed (the watch cache), instead of pushed. */
  private feed: WatchFeed | undefined;
  /** Sequence number of the next feed event to take. */
  cursor = 0;
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
    this.queuedRevision = afterRevision;
    // Unbounded while history replays; endReplay() sets the bound.
    this.limit = Infinity;
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Items waiting for the consumer. */
  get backlog(): number {
    return this.tail - this.head + (this.feed ? this.feed.end - this.cursor : 0);
  }

  /** Highest event revision queued. */
  get lastRevision(): number {
    return this.feed ? Math.max(this.queuedRevision, this.feed.newestRevision) : this.queuedRevision;
  }

  /** Reads live events from feed from its end on (after the replay was pushed); the feed closes the watcher past its capacity. */
  follow(feed: WatchFeed): void {
    this.feed = feed;
    feed.join(this);
  }

  overflow(): void {
    this.close('overflow');
  }

  /** Fan-out side: never blocks. */
  push(item: WatchItem): void {
    if (this.closed) return;
    if (item.kind === 'event' && item.revision > this.queuedRevision) this.queuedRevision = item.revision;
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
    if (this.closed) return;
    if (this.waiter) {
      const item = this.take();
      if (!item) return;
      const resolve = this.waiter;
      this.waiter = undefined;
      return resolve(item);
    }
    this.onReady?.();
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

  /**
   * The feed events waiting when nothing pushed (the replay, a bookmark)
   * comes before them: sequence numbers [from, to) of feed, for a consumer
   * that writes a run of events at once (skip() then marks them taken).
   */
  run(): { feed: WatchFeed; from: number; to: number } | undefined {
    const feed = this.feed;
    if (!feed || this.head !== this.tail) return undefined;
    // A watch from a revision the cache has not reached yet skips what is not newer.
    while (this.cursor < feed.end && feed.at(this.cursor).revision <= this.queuedRevision) this.cursor++;
    return this.cursor < feed.end ? { feed, from: this.cursor, to: feed.end } : undefined;
  }

  /** Marks the first count events of run() taken. */
  skip(count: number): void {
    this.cursor += count;
  }

  /** The next item if one is queued, without waiting. */
  take(): WatchItem | undefined {
    return this.takeFrom(this.feed);
  }

  private takeFrom(feed: WatchFeed | undefined): WatchItem | undefined {
    while (feed && this.cursor < feed.end) {
      // Pushed items (the replay, bookmarks) and feed events merge in revision order; a bookmark follows the events it covers.
      const queued = this.head < this.tail ? this.queue[this.head]! : undefined;
      if (queued && (queued.kind === 'event' || queued.revision < feed.at(this.cursor).revision)) break;
      const event = feed.at(this.cursor++);
      // A watch from a revision the cache has not reached yet skips what is not newer.
      if (event.revision > this.queuedRevision) return event;
    }
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
    const feed = this.feed;
    this.feed = undefined;
    if (feed) {
      feed.leave(this);
      // A stopped watcher's consumer may still drain what was written before: its share of the feed is kept.
      if (reason === 'stopped') {
        const items: WatchItem[] = [];
        for (let item = this.takeFrom(feed); item; item = this.takeFrom(feed)) items.push(item);
        this.queue = items;
        this.head = 0;
        this.tail = items.length;
      }
    }
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
  // The watch cache serves it from its shared feed; any other storage pushes each event.
  if (hasWatcherFeeds(storage)) return storage.openWatcher(prefix, afterRevision, capacity);
  const watcher = new CacheWatcher(afterRevision, capacity);
  // A watch its storage ends (the watch cache starting over) ends the stream: the client resumes from what it saw.
  const unsubscribe = await storage.watch(prefix, afterRevision, (event: StorageEvent) => watcher.push(cachingEvent(event)), undefined, () => watcher.close());
  watcher.endReplay();
  watcher.attach(unsubscribe);
  return watcher;
}

/** A storage that opens cache watchers itself (the watch cache). */
export interface WatcherFeeds {
  openWatcher(prefix: string, afterRevision: number, capacity?: number): Promise<CacheWatcher>;
}

function hasWatcherFeeds(storage: Storage): storage is Storage & WatcherFeeds {
  return typeof (storage as Partial<WatcherFeeds>).openWatcher === 'function';
}
