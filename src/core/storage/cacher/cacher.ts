/**
 * The cacher (k8s.io/apiserver storage/cacher cacher.go): the watch cache in
 * front of a backend. It implements the same Storage interface and passes
 * writes and point-in-time reads through, while it:
 *
 * - follows every committed event of the backend into a sliding window
 *   (./watchCache.ts) and serves watches from it: cache watchers read each
 *   watched prefix's shared feed (./watchFeed.ts), so a write costs the same
 *   whatever their number, and Storage.watch listeners are called through
 *   the in-order WatcherSet;
 * - retains history for a window of time on the injected clock (5 minutes by
 *   default, as kube-apiserver compacts etcd), after which reads at older
 *   revisions, continue tokens and watches from them fail with 'Compacted'
 *   (410 Expired at the API);
 * - compacts the backend behind the window, in batches, so its history stays
 *   bounded too.
 *
 * Expiry is applied lazily on every call that reads history or writes (a
 * read of the latest value needs none), so a fake clock needs no timers.
 */
import { StorageError, type KeyValue, type RangeOptions, type RangeResult, type Storage, type StorageEvent, type Unsubscribe } from '../interface';
import { WatcherSet } from '../watchers';
import { realClock, type Clock } from '../../util/clock';
import { WatchCache } from './watchCache';
import { CachingEvent } from './cachingEvent';
import { CacheWatcher, type WatcherFeeds } from './cacheWatcher';
import { WatchFeed } from './watchFeed';

export interface WatchCacheOptions {
  clock: Clock;
  /** Retained watch history (kube-apiserver: 5 minutes). */
  historyWindowMs?: number;
  /** Maximum events kept whatever their age. */
  maxEvents?: number;
  /** Minimum clock time between two compactions of the backend. */
  compactionIntervalMs?: number;
  /** Receives exceptions thrown by watch listeners. */
  onListenerError?: (error: unknown, event: StorageEvent) => void;
}

export interface WatchCacheStats {
  /** Events in the window. */
  events: number;
  /** Open watchers. */
  watchers: number;
  /** Oldest revision a watch or read can start from. */
  startRevision: number;
  /** Newest revision the cache has seen. */
  resourceVersion: number;
}

export interface WatchCacheStorage extends Storage, WatcherFeeds {
  readonly historyWindowMs: number;
  /** Resolves once the cache follows the backend. */
  readonly ready: Promise<void>;
  stats(): WatchCacheStats;
}

export const defaultHistoryWindowMs = 5 * 60_000;
/** kube-apiserver's watch cache grows up to 100 Ki events. */
export const defaultMaxEvents = 100 * 1024;
export const defaultCompactionIntervalMs = 60_000;

export function createWatchCache(backend: Storage, options: WatchCacheOptions): WatchCacheStorage {
  return new Cacher(backend, options);
}

class Cacher implements WatchCacheStorage {
  /** Cache watchers by prefix, each reading its prefix's shared feed. */
  private readonly feeds = new Map<string, WatchFeed>();
  readonly historyWindowMs: number;
  readonly ready: Promise<void>;
  private readonly clock: Clock;
  private readonly compactionIntervalMs: number;
  private readonly watchers: WatcherSet;
  private cache!: WatchCache;
  private stopFollowing: Unsubscribe | undefined;
  /** The backend's compacted revision as far as this cache compacted it. */
  private backendCompacted = 0;
  private lastCompactionAt: number;
  private compacting: Promise<void> | undefined;
  private closed = false;
  /** The current follow of the backend: the first one (ready), or a restart after the backend ended it. */
  private following!: Promise<void>;
  /** Whether `following` has settled, so reads need not wait a turn on it. */
  private followed = false;
  /** Ranges read the backend itself, so its revision is theirs (-1 once closed: nothing kept answers then). */
  readonly revisionNow?: () => number;

  constructor(
    private readonly backend: Storage,
    options: WatchCacheOptions,
  ) {
    this.clock = options.clock;
    const revisionNow = backend.revisionNow?.bind(backend);
    if (revisionNow) this.revisionNow = () => (this.closed ? -1 : revisionNow());
    this.historyWindowMs = options.historyWindowMs ?? defaultHistoryWindowMs;
    this.compactionIntervalMs = Math.min(options.compactionIntervalMs ?? defaultCompactionIntervalMs, this.historyWindowMs);
    this.watchers = new WatcherSet(options.onListenerError);
    this.lastCompactionAt = this.now();
    this.ready = this.startFollowing(options.maxEvents ?? defaultMaxEvents);
  }

  /**
   * Loads the backend's retained history into the window, then follows new events.
   * When the backend ends the watch (etcd compacted past it while this host was
   * disconnected), every watcher is ended, as the cacher terminates them when its
   * reflector starts over, and the window starts again at the backend's
   * compacted revision: clients resume, and those further back get 410 and relist.
   */
  private async follow(maxEvents: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const compacted = await this.backend.compactedRevision();
      this.backendCompacted = compacted;
      this.cache = new WatchCache(compacted, { historyWindowMs: this.historyWindowMs, maxEvents });
      try {
        this.stopFollowing = await this.backend.watch('', compacted, (event) => this.onEvent(event), (revision) => this.cache.progress(revision), () => {
          if (this.closed) return;
          this.watchers.endAll();
          this.endFeeds();
          this.startFollowing(maxEvents);
        });
        return;
      } catch (e) {
        // Compacted between the two calls: start over from the new revision.
        if (attempt > 3 || !(e instanceof StorageError && e.code === 'Compacted')) throw e;
      }
    }
  }

  private startFollowing(maxEvents: number): Promise<void> {
    const following = (this.following = this.follow(maxEvents));
    this.followed = false;
    void following.then(() => {
      if (this.following === following) this.followed = true;
    }, () => {});
    return following;
  }

  private onEvent(event: StorageEvent): void {
    // One shared event per revision, kept in the window and handed to every watcher, so what they derive is memoized.
    const cached = new CachingEvent(event);
    if (!this.cache.add(cached, this.now())) return;
    // Appended once per prefix watched, whatever the number of watchers; they read it through their cursors.
    for (const feed of this.feeds.values()) if (event.kv.key.startsWith(feed.prefix)) feed.append(cached);
    this.watchers.notify(cached);
  }

  /** Ends every cache watcher (the window starts over); each consumer still drains what it had. */
  private endFeeds(): void {
    const feeds = [...this.feeds.values()];
    this.feeds.clear();
    for (const feed of feeds) for (const reader of [...feed.readers]) (reader as CacheWatcher).close();
  }

  private now(): number {
    // The real clock's Date is only read for its time: skip making one.
    return this.clock === realClock ? Date.now() : this.clock.now().getTime();
  }

  private compactionDue(now: number): boolean {
    return this.cache.startRevision > this.backendCompacted && now - this.lastCompactionAt >= this.compactionIntervalMs && !this.compacting;
  }

  /**
   * maintain() without a turn of its own: expires the window and says true
   * when that was all there was to do (the cache follows and no compaction
   * is due), which is the case for nearly every read.
   */
  private maintainedNow(): boolean {
    if (!this.followed) return false;
    const now = this.now();
    this.cache.expire(now);
    return !this.compactionDue(now);
  }

  /** Expires the window on the clock and compacts the backend behind it when due. */
  private async maintain(): Promise<void> {
    await this.following;
    const now = this.now();
    this.cache.expire(now);
    const start = this.cache.startRevision;
    if (this.compactionDue(now)) {
      this.lastCompactionAt = now;
      this.compacting = this.backend
        .compact(start)
        .then(() => {
          this.backendCompacted = Math.max(this.backendCompacted, start);
        })
        .catch(() => {
          // A failed compaction is retried at the next interval; the window stays authoritative.
        })
        .finally(() => {
          this.compacting = undefined;
        });
      await this.compacting;
    }
  }

  private assertReadable(key: string, revision: number | undefined): void {
    if (this.closed) throw new StorageError('Internal', key, 'storage is closed');
    const start = this.cache.startRevision;
    if (revision && revision > 0 && revision < start) {
      throw new StorageError('Compacted', key, `revision ${revision} has been compacted (oldest ${start})`, start);
    }
  }

  /**
   * The newest revision the cache has caught up to (kube's watch cache
   * resourceVersion, which bookmarks carry). Synchronous backends have
   * delivered every committed event by now, so it is the backend's; over
   * etcd, events and progress notifications arrive a moment after the write,
   * and nothing newer than what the cache has seen is reported.
   */
  async currentRevision(): Promise<number> {
    await this.ready;
    return Math.min(await this.backend.currentRevision(), this.cache.resourceVersion);
  }

  async compactedRevision(): Promise<number> {
    await this.maintain();
    return Math.max(this.cache.startRevision, await this.backend.compactedRevision());
  }

  get(key: string, revision?: number): Promise<KeyValue | undefined> {
    // A read of the latest value reads no history: the window's expiry waits for the next call that
    // does (or writes), which maintains it then. Other reads expire the window first.
    if (this.followed && !revision) return this.getNow(key, revision);
    if (!this.maintainedNow()) return this.maintain().then(() => this.getNow(key, revision));
    return this.getNow(key, revision);
  }

  /** A read once the window is maintained: the backend's promise itself, with no async wrapper's turns around it. */
  private getNow(key: string, revision: number | undefined): Promise<KeyValue | undefined> {
    try {
      this.assertReadable(key, revision);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.backend.get(key, revision);
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    await this.maintain();
    this.assertReadable(prefix, options.revision);
    return this.backend.range(prefix, options);
  }

  // Writes too reach the backend in the caller's turn when there is no maintenance to wait for.
  create(key: string, value: string): Promise<KeyValue> {
    return this.maintainedNow() ? this.backend.create(key, value) : this.maintain().then(() => this.backend.create(key, value));
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.maintainedNow() ? this.backend.update(key, value, expectedModRevision) : this.maintain().then(() => this.backend.update(key, value, expectedModRevision));
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.maintainedNow() ? this.backend.delete(key, expectedModRevision) : this.maintain().then(() => this.backend.delete(key, expectedModRevision));
  }

  async watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void, _onProgress?: (revision: number) => void, onEnded?: (error: StorageError) => void): Promise<Unsubscribe> {
    await this.maintain();
    if (this.closed) throw new StorageError('Internal', prefix, 'storage is closed');
    const start = this.cache.startRevision;
    if (afterRevision < start) {
      throw new StorageError('Compacted', prefix, `too old resource version: ${afterRevision} (${start})`, start);
    }
    // Synchronous from here: the window and the live stream hand over without a gap.
    return this.watchers.add(prefix, afterRevision, this.cache.since(afterRevision), listener, onEnded && (() => onEnded(new StorageError('Internal', prefix, 'the watch cache started over from its backend'))));
  }

  /**
   * A cache watcher of keys under prefix after afterRevision: the window's
   * history is pushed to it, then it reads the prefix's shared feed from its
   * end. Synchronous after the checks, so replay and live events hand over
   * without a gap or a repeat.
   */
  async openWatcher(prefix: string, afterRevision: number, capacity?: number): Promise<CacheWatcher> {
    await this.maintain();
    if (this.closed) throw new StorageError('Internal', prefix, 'storage is closed');
    const start = this.cache.startRevision;
    if (afterRevision < start) {
      throw new StorageError('Compacted', prefix, `too old resource version: ${afterRevision} (${start})`, start);
    }
    const watcher = new CacheWatcher(afterRevision, capacity);
    for (const event of this.cache.since(afterRevision)) if (event.kv.key.startsWith(prefix)) watcher.push(event as CachingEvent);
    watcher.endReplay();
    let feed = this.feeds.get(prefix);
    if (!feed) this.feeds.set(prefix, (feed = new WatchFeed(prefix)));
    watcher.follow(feed);
    const joined = feed;
    watcher.attach(() => {
      if (joined.readers.size === 0 && this.feeds.get(prefix) === joined) this.feeds.delete(prefix);
    });
    return watcher;
  }

  async compact(revision: number): Promise<void> {
    await this.ready;
    await this.backend.compact(revision);
    this.backendCompacted = Math.max(this.backendCompacted, revision);
    this.cache.dropThrough(revision);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.ready.catch(() => {});
    this.stopFollowing?.();
    this.watchers.clear();
    this.feeds.clear();
    await this.backend.close();
  }

  stats(): WatchCacheStats {
    return {
      events: this.cache?.size ?? 0,
      watchers: this.watchers.size + [...this.feeds.values()].reduce((n, feed) => n + feed.readers.size, 0),
      startRevision: this.cache?.startRevision ?? 0,
      resourceVersion: this.cache?.resourceVersion ?? 0,
    };
  }
}
