/**
 * The watch cache's sliding window (k8s.io/apiserver storage/cacher
 * watch_cache.go): the most recent events, in revision order, each stamped
 * with the time it arrived. Events leave the window when they are older than
 * the history window or when the window holds too many; the revision of the
 * newest event that left is the window's start. Watches from a revision at or
 * after the start are replayed from here; older ones are "too old".
 */
import type { StorageEvent } from '../interface';

export interface WatchCacheWindowOptions {
  /** How long an event stays replayable (kube-apiserver: 5 minutes, like etcd compaction). */
  historyWindowMs: number;
  /** Upper bound on events kept, whatever their age (kube's watch cache capacity). */
  maxEvents: number;
}

export class WatchCache {
  private events: StorageEvent[] = [];
  private times: number[] = [];
  /** Index of the oldest live entry; entries before it are dropped lazily. */
  private head = 0;
  /** Revision just before the oldest event kept: a watch from here on loses nothing. */
  private start: number;
  /** Newest revision seen. */
  private newest: number;

  constructor(
    startRevision: number,
    private readonly options: WatchCacheWindowOptions,
  ) {
    this.start = startRevision;
    this.newest = startRevision;
  }

  get startRevision(): number {
    return this.start;
  }

  get resourceVersion(): number {
    return this.newest;
  }

  get size(): number {
    return this.events.length - this.head;
  }

  /** Appends a committed event (events arrive in revision order); false for one already seen. */
  add(event: StorageEvent, now: number): boolean {
    if (event.revision <= this.newest) return false;
    this.events.push(event);
    this.times.push(now);
    this.newest = event.revision;
    while (this.size > this.options.maxEvents) this.dropOldest();
    return true;
  }

  /** The backend has delivered every event up to revision (a progress notification): the window is current to it. */
  progress(revision: number): void {
    if (revision > this.newest) this.newest = revision;
  }

  /** Drops events that arrived before now - historyWindowMs. Returns whether the start moved. */
  expire(now: number): boolean {
    const cutoff = now - this.options.historyWindowMs;
    const before = this.start;
    while (this.size > 0 && this.times[this.head]! < cutoff) this.dropOldest();
    return this.start !== before;
  }

  /** Drops every event at or below revision (an explicit compaction). */
  dropThrough(revision: number): void {
    while (this.size > 0 && this.events[this.head]!.revision <= revision) this.dropOldest();
    if (revision > this.start) this.start = revision;
  }

  /** Events with revision > afterRevision; the caller checked afterRevision >= startRevision. */
  since(afterRevision: number): StorageEvent[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.revision <= afterRevision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  private dropOldest(): void {
    this.start = this.events[this.head]!.revision;
    this.head++;
    // Reclaim the dropped prefix once it dominates, keeping appends amortized O(1).
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
