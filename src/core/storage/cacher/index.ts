/**
 * The watch cache: a Storage in front of a backend that serves watches from a
 * sliding window of recent events, fans them out to many watchers without a
 * slow one holding up the rest, and expires history on the injected clock so
 * that old reads, continue tokens and watches get 410 Expired.
 *
 * - cacher.ts: the Storage implementation (writes and reads pass through).
 * - watchCache.ts: the sliding window of events.
 * - watchFeed.ts: a prefix's live events, appended once and read by every watcher through its cursor.
 * - cacheWatcher.ts: one client's replay, cursor and bookmarks, pulled at its own pace and closed when too far behind.
 */
export { createWatchCache, defaultHistoryWindowMs, defaultMaxEvents, defaultCompactionIntervalMs } from './cacher';
export type { WatchCacheOptions, WatchCacheStats, WatchCacheStorage } from './cacher';
export { CacheWatcher, openCacheWatcher, defaultWatcherCapacity } from './cacheWatcher';
export type { WatchItem, WatcherCloseReason } from './cacheWatcher';
export { WatchCache } from './watchCache';
