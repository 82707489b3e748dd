/**
 * The in-memory backend: reference semantics for the storage interface.
 *
 * MVCC like etcd's: every key keeps its versions (tombstones included) in
 * revision order, and a sorted key index serves ranges; together they answer
 * reads at any revision not yet compacted. An event log (one event per
 * revision, contiguous) serves watch replay. Everything runs synchronously
 * inside each call, so a read is a consistent snapshot and writes are
 * serialized without locks; watchers are notified synchronously after each
 * write, in revision order (see ./watchers.ts).
 *
 * Returned KeyValues are frozen and shared with the store.
 */

import {
  StorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type StorageEvent,
  type Unsubscribe,
} from './interface';
import { compactedError, compactionDue, readRevisionAt, requireLive } from './revisions';
import { SortedKeys } from './sortedKeys';
import { WatcherSet, type ListenerErrorHandler } from './watchers';

export interface MemoryStorageOptions {
  /** Receives exceptions thrown by watch listeners (they never fail a write). */
  onListenerError?: ListenerErrorHandler;
}

/** One version of a key; kv undefined marks a deletion (tombstone). */
interface Version {
  revision: number;
  kv: KeyValue | undefined;
}

export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  return new MemoryStorage(options);
}

class MemoryStorage implements Storage {
  private revision = 0;
  private compacted = 0;
  /** Versions per key, oldest first. A key stays until compaction drops all its versions. */
  private readonly versions = new Map<string, Version[]>();
  /** Every key in `versions`, sorted (JS string order). */
  private readonly sortedKeys = new SortedKeys();
  /** Keys whose newest version is a deletion (kept until compaction), sorted: lets a page count what follows it without visiting it. */
  private readonly tombstones = new SortedKeys();
  /** Events with revision > compacted, contiguous: events[i].revision === compacted + 1 + i. */
  private events: StorageEvent[] = [];
  private readonly watchers: WatcherSet;
  private closed = false;

  constructor(options: MemoryStorageOptions) {
    this.watchers = new WatcherSet(options.onListenerError);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  revisionNow(): number {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    const at = this.readRevision(key, revision);
    return this.valueAt(key, at);
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const at = this.readRevision(prefix, options.revision);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const kvs: KeyValue[] = [];
    let count = 0;
    const keys = this.sortedKeys;
    keys.forEachFrom(keys.lowerBound(from), (key, i) => {
      if (!key.startsWith(prefix)) return false;
      const kv = this.valueAt(key, at);
      if (!kv) return true;
      count++;
      if (kvs.length < limit) {
        kvs.push(kv);
        return true;
      }
      if (at !== this.revision) return true;
      // At the newest revision every key past the page is live unless it is a tombstone: count them from the indexes.
      const rest = keys.prefixEnd(i + 1, prefix) - (i + 1);
      const tombstoneFrom = this.tombstones.upperBound(key);
      count += rest - (this.tombstones.prefixEnd(tombstoneFrom, prefix) - tombstoneFrom);
      return false;
    });
    return { kvs, more: count > kvs.length, count, revision: at };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.assertOpen(key);
    const current = this.latest(key);
    if (current) throw new StorageError('KeyExists', key, `key already exists: ${key}`, current.modRevision);
    const revision = this.revision + 1;
    const kv = freezeKv(key, value, revision, revision);
    this.commit({ type: 'PUT', revision, kv });
    return kv;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.assertOpen(key);
    const current = requireLive(key, this.latest(key), (kv) => kv.modRevision, expectedModRevision);
    const revision = this.revision + 1;
    const kv = freezeKv(key, value, current.createRevision, revision);
    this.commit({ type: 'PUT', revision, kv, prevKv: current });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen(key);
    const current = requireLive(key, this.latest(key), (kv) => kv.modRevision, expectedModRevision);
    const revision = this.revision + 1;
    const kv = freezeKv(key, current.value, current.createRevision, revision);
    this.commit({ type: 'DELETE', revision, kv, prevKv: current });
    return kv;
  }

  async watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void): Promise<Unsubscribe> {
    this.assertOpen(prefix);
    if (afterRevision < this.compacted) throw compactedError(prefix, afterRevision, this.compacted);
    // events[0] has revision compacted + 1; replay starts right after afterRevision.
    const start = Math.max(0, afterRevision - this.compacted);
    const history = start < this.events.length ? this.events.slice(start) : [];
    return this.watchers.add(prefix, afterRevision, history, listener);
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    if (!compactionDue(revision, this.revision, this.compacted)) return;
    let removedKeys = false;
    for (const [key, history] of this.versions) {
      // Keep the version visible at `revision` (unless it is a tombstone) and everything newer.
      let keepFrom = upperBoundRevision(history, revision) - 1;
      if (keepFrom >= 0 && history[keepFrom]!.kv === undefined) keepFrom++;
      if (keepFrom <= 0) continue;
      if (keepFrom >= history.length) {
        this.versions.delete(key);
        removedKeys = true;
      } else {
        history.splice(0, keepFrom);
      }
    }
    if (removedKeys) {
      this.sortedKeys.filter((k) => this.versions.has(k));
      this.tombstones.filter((k) => this.versions.has(k));
    }
    this.events = this.events.slice(revision - this.compacted);
    this.compacted = revision;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchers.clear();
  }

  /** Validates a requested read revision and returns the one to serve. */
  private readRevision(key: string, revision: number | undefined): number {
    this.assertOpen(key);
    return readRevisionAt(key, revision, this.revision, this.compacted);
  }

  private latest(key: string): KeyValue | undefined {
    const history = this.versions.get(key);
    return history?.[history.length - 1]?.kv;
  }

  private valueAt(key: string, revision: number): KeyValue | undefined {
    const history = this.versions.get(key);
    if (!history) return undefined;
    const last = history[history.length - 1]!;
    if (last.revision <= revision) return last.kv;
    const i = upperBoundRevision(history, revision) - 1;
    return i >= 0 ? history[i]!.kv : undefined;
  }

  private commit(event: StorageEvent): void {
    const key = event.kv.key;
    let history = this.versions.get(key);
    if (!history) {
      history = [];
      this.versions.set(key, history);
      this.sortedKeys.insert(key);
    }
    const wasTombstone = history.length > 0 && history[history.length - 1]!.kv === undefined;
    if (event.type === 'DELETE') this.tombstones.insert(key);
    else if (wasTombstone) this.tombstones.delete(key);
    history.push({ revision: event.revision, kv: event.type === 'PUT' ? event.kv : undefined });
    this.revision = event.revision;
    this.events.push(Object.freeze(event));
    this.watchers.notify(event);
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Internal', key, 'storage is closed');
  }
}

function freezeKv(key: string, value: string, createRevision: number, modRevision: number): KeyValue {
  return Object.freeze({ key, value, createRevision, modRevision });
}

/** Index of the first version with revision > target. */
function upperBoundRevision(history: readonly Version[], target: number): number {
  let lo = 0;
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (history[mid]!.revision <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

