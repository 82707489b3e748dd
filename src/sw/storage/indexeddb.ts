/**
 * The IndexedDB backend for the service-worker host.
 *
 * Three object stores:
 * - `log`: one entry per write, keyed by revision (tombstones carry the last
 *   value), indexed by [key, revision]. It answers reads at past revisions
 *   and replays watches, so a restarted worker rebuilds its watch cache from
 *   history instead of starting blind.
 * - `objects`: the live value of every key, for fast reads at the latest
 *   revision.
 * - `meta`: the current and compacted revisions.
 *
 * Writes, compaction and watch registration run one at a time through an
 * in-process queue: each write is one readwrite transaction, and watchers
 * are fed after it commits, in revision order. Registering a watch inside the
 * same queue means no write can slip between its history and its live part.
 * One worker owns the database; other contexts opening it would not see its
 * watch events.
 *
 * Because the worker owns the database, it keeps the live objects and the
 * revision in memory, loaded when it opens and changed only after a write
 * commits. Reads of one key at the latest revision are answered from there
 * (the NamespaceLifecycle check of every create is one), and a write issues
 * its three puts at once, without reading first: one transaction with no
 * read round trip, as raw IndexedDB code would write it. The log's revision
 * key still guards against another writer: a revision taken twice fails the
 * transaction, and the in-memory state is reloaded.
 *
 * Write transactions are 'relaxed' by default (Chromium's default since 121,
 * and Firefox's and Safari's): a write is acknowledged once the browser's
 * storage process has it, so it survives the worker stopping and the browser
 * crashing; 'strict' also waits for the OS to flush it to disk.
 *
 * Keys compare as UTF-16 code units, like JS strings.
 */

import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import {
  StorageError,
  isStorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type StorageEvent,
  type Unsubscribe,
} from '../../core/storage/interface';
import { compactedError, compactionDue, readRevisionAt, requireLive } from '../../core/storage/revisions';
import { WatcherSet, type ListenerErrorHandler } from '../../core/storage/watchers';

export interface IndexedDbStorageOptions {
  /** Receives exceptions thrown by watch listeners (they never fail a write). */
  onListenerError?: ListenerErrorHandler;
  /** Durability of write transactions (default 'relaxed'). */
  durability?: 'relaxed' | 'strict';
}

/** One write in the log. */
interface LogEntry {
  revision: number;
  key: string;
  value: string;
  createRevision: number;
  /** The key's previous live entry (for prevKv), 0 on create. */
  prevRevision: number;
  created: boolean;
  deleted: boolean;
}

interface StorageSchema extends DBSchema {
  meta: { key: 'revision' | 'compacted'; value: number };
  log: { key: number; value: LogEntry; indexes: { byKey: [string, number] } };
  objects: { key: string; value: KeyValue };
}

type Db = IDBPDatabase<StorageSchema>;
type Tx<Mode extends IDBTransactionMode> = IDBPTransaction<StorageSchema, StoreNames<StorageSchema>[], Mode>;

const SCHEMA_VERSION = 1;

export async function createIndexedDbStorage(dbName: string, options: IndexedDbStorageOptions = {}): Promise<Storage> {
  const db = await openDB<StorageSchema>(dbName, SCHEMA_VERSION, {
    upgrade(database) {
      database.createObjectStore('meta');
      database.createObjectStore('log', { keyPath: 'revision' }).createIndex('byKey', ['key', 'revision']);
      database.createObjectStore('objects', { keyPath: 'key' });
    },
  });
  const storage = new IndexedDbStorage(db, options);
  await storage.load();
  return storage;
}

class IndexedDbStorage implements Storage {
  private readonly watchers: WatcherSet;
  private readonly durability: 'relaxed' | 'strict';
  /** Tail of the write queue. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Mirrors meta.revision; only changed inside the write queue after a commit. */
  private revision = 0;
  private compacted = 0;
  /** The committed live objects by key, as the `objects` store holds them. */
  private live = new Map<string, KeyValue>();

  constructor(
    private readonly db: Db,
    options: IndexedDbStorageOptions,
  ) {
    this.watchers = new WatcherSet(options.onListenerError);
    this.durability = options.durability ?? 'relaxed';
  }

  /** Reads the revisions and the live objects from the database. */
  async load(): Promise<void> {
    const tx = this.db.transaction(['meta', 'objects'], 'readonly');
    const meta = tx.objectStore('meta');
    const [revision, compacted, objects] = await Promise.all([meta.get('revision'), meta.get('compacted'), tx.objectStore('objects').getAll()]);
    await tx.done;
    this.revision = revision ?? 0;
    this.compacted = compacted ?? 0;
    this.live = new Map(objects.map((kv) => [kv.key, Object.freeze(kv)]));
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
    this.assertOpen(key);
    const current = this.revision;
    const at = readRevisionAt(key, revision, current, this.compacted);
    // The latest state is the committed one in memory: no transaction.
    if (at === current) return this.live.get(key);
    const tx = this.db.transaction(['log'], 'readonly');
    return finish(tx, async () => {
      const cursor = await tx
        .objectStore('log')
        .index('byKey')
        .openCursor(IDBKeyRange.bound([key, 0], [key, at]), 'prev');
      return cursor && !cursor.value.deleted ? toKv(cursor.value) : undefined;
    });
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    this.assertOpen(prefix);
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const end = prefixEnd(prefix);
    // A startKey past the prefix: an empty key range (which IDBKeyRange refuses to build).
    const empty = end !== undefined && from >= end;
    const keys = empty ? undefined : end === undefined ? IDBKeyRange.lowerBound(from) : IDBKeyRange.bound(from, end, false, true);
    const tx = this.db.transaction(['meta', 'log', 'objects'], 'readonly');
    return finish(tx, async () => {
      if (!options.revision && keys) {
        // The latest state: the revision and the objects in one round trip, all read in this transaction's snapshot.
        const objects = tx.objectStore('objects');
        const [stored, kvs, count] = await Promise.all([tx.objectStore('meta').get('revision'), objects.getAll(keys, limit), objects.count(keys)]);
        return { kvs, more: count > kvs.length, count, revision: stored ?? 0 };
      }
      const { at, current } = await readRevision(tx, prefix, options.revision);
      if (!keys) return { kvs: [], more: false, count: 0, revision: at };
      if (at === current) {
        const objects = tx.objectStore('objects');
        const [kvs, count] = await Promise.all([objects.getAll(keys, limit), objects.count(keys)]);
        return { kvs, more: count > kvs.length, count, revision: at };
      }
      // A past revision: the newest log entry per key at or before it.
      const entries = await tx
        .objectStore('log')
        .index('byKey')
        .getAll(end === undefined ? IDBKeyRange.lowerBound([from, 0]) : IDBKeyRange.bound([from, 0], [end, 0], false, true));
      const kvs: KeyValue[] = [];
      let count = 0;
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!;
        const next = entries[i + 1];
        // Entries come sorted by [key, revision]: take the last one <= at per key.
        if (entry.revision > at || (next && next.key === entry.key && next.revision <= at)) continue;
        if (entry.deleted) continue;
        count++;
        if (limit === undefined || kvs.length < limit) kvs.push(toKv(entry));
      }
      return { kvs, more: count > kvs.length, count, revision: at };
    });
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      if (current) throw new StorageError('KeyExists', key, `key already exists: ${key}`, current.modRevision);
      return { revision, key, value, createRevision: revision, prevRevision: 0, created: true, deleted: false };
    });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      const live = requireLive(key, current, (kv) => kv.modRevision, expectedModRevision);
      return { revision, key, value, createRevision: live.createRevision, prevRevision: live.modRevision, created: false, deleted: false };
    });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      const live = requireLive(key, current, (kv) => kv.modRevision, expectedModRevision);
      return {
        revision,
        key,
        value: live.value,
        createRevision: live.createRevision,
        prevRevision: live.modRevision,
        created: false,
        deleted: true,
      };
    });
  }

  async watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void): Promise<Unsubscribe> {
    this.assertOpen(prefix);
    return this.serialize(async () => {
      if (afterRevision < this.compacted) throw compactedError(prefix, afterRevision, this.compacted);
      const tx = this.db.transaction('log', 'readonly');
      const history = await finish(tx, async () => {
        const entries = (await tx.store.getAll(IDBKeyRange.lowerBound(afterRevision, true))).filter((e) => e.key.startsWith(prefix));
        const prevs = await Promise.all(entries.map((e) => (e.created || !e.prevRevision ? undefined : tx.store.get(e.prevRevision))));
        return entries.map((e, i) => toEvent(e, prevs[i]));
      });
      return this.watchers.add(prefix, afterRevision, history, listener);
    });
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    await this.serialize(async () => {
      if (!compactionDue(revision, this.revision, this.compacted)) return;
      const tx = this.db.transaction(['meta', 'log'], 'readwrite');
      await finish(tx, async () => {
        const log = tx.objectStore('log');
        const entries = await log.getAll(IDBKeyRange.upperBound(revision));
        // Per key, keep only the entry visible at `revision`, and not even
        // that one when it is a tombstone. Entries come in revision order.
        const visible = new Map<string, LogEntry>();
        const drop: number[] = [];
        for (const entry of entries) {
          const older = visible.get(entry.key);
          if (older) drop.push(older.revision);
          visible.set(entry.key, entry);
        }
        for (const entry of visible.values()) if (entry.deleted) drop.push(entry.revision);
        await Promise.all([...drop.map((r) => log.delete(r)), tx.objectStore('meta').put(revision, 'compacted')]);
      });
      this.compacted = revision;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // New calls fail from here on; those already queued finish first.
    this.closed = true;
    await this.queue;
    this.watchers.clear();
    this.db.close();
  }

  /**
   * Runs one write in the queue, as one readwrite transaction. `next` gets the
   * key's live value and the revision to assign; it returns the log entry or
   * throws (which aborts the transaction).
   */
  private write(
    key: string,
    next: (current: KeyValue | undefined, revision: number) => LogEntry,
  ): Promise<KeyValue> {
    this.assertOpen(key);
    return this.serialize(async () => {
      const current = this.live.get(key);
      const entry = next(current, this.revision + 1);
      // Frozen: it is shared with the in-memory state, as the memory backend shares its values.
      const kv = Object.freeze(toKv(entry));
      const tx = this.db.transaction(['meta', 'log', 'objects'], 'readwrite', { durability: this.durability });
      try {
        await finish(tx, () =>
          Promise.all([
            // add, not put: a revision another writer took fails the transaction.
            tx.objectStore('log').add(entry),
            entry.deleted ? tx.objectStore('objects').delete(key) : tx.objectStore('objects').put(kv),
            tx.objectStore('meta').put(entry.revision, 'revision'),
          ]),
        );
      } catch (e) {
        // Nothing was written; whatever made it fail, memory follows the database again.
        await this.load().catch(() => {});
        throw e;
      }
      this.revision = entry.revision;
      if (entry.deleted) this.live.delete(key);
      else this.live.set(key, kv);
      const event: StorageEvent = { type: entry.deleted ? 'DELETE' : 'PUT', revision: entry.revision, kv };
      if (!entry.created && current) event.prevKv = current;
      this.watchers.notify(event);
      return kv;
    });
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Internal', key, 'storage is closed');
  }
}

/**
 * Runs body against tx and waits for the transaction to commit. A throw
 * aborts the transaction (nothing written) and is passed on as-is when it is
 * a StorageError, as 'Internal' otherwise.
 */
async function finish<T>(tx: { done: Promise<void>; abort(): void }, body: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await body();
  } catch (e) {
    try {
      tx.abort();
    } catch {
      // Already finished.
    }
    await tx.done.catch(() => {});
    if (isStorageError(e)) throw e;
    throw new StorageError('Internal', '', `IndexedDB: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    await tx.done;
  } catch (e) {
    throw new StorageError('Internal', '', `IndexedDB: ${e instanceof Error ? e.message : String(e)}`);
  }
  return result;
}

/** Validates a requested read revision against the stored meta, inside the read's transaction. */
async function readRevision(
  tx: Tx<'readonly'>,
  key: string,
  revision: number | undefined,
): Promise<{ at: number; current: number }> {
  const meta = tx.objectStore('meta');
  const [stored, compactedStored] = await Promise.all([meta.get('revision'), meta.get('compacted')]);
  const current = stored ?? 0;
  return { at: readRevisionAt(key, revision, current, compactedStored ?? 0), current };
}

function toKv(entry: LogEntry): KeyValue {
  return { key: entry.key, value: entry.value, createRevision: entry.createRevision, modRevision: entry.revision };
}

function toEvent(entry: LogEntry, prev: LogEntry | undefined): StorageEvent {
  const event: StorageEvent = { type: entry.deleted ? 'DELETE' : 'PUT', revision: entry.revision, kv: toKv(entry) };
  if (prev) event.prevKv = toKv(prev);
  return event;
}

/** The smallest string above every string with this prefix, in UTF-16 code unit order. */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const unit = prefix.charCodeAt(i);
    if (unit < 0xffff) return prefix.slice(0, i) + String.fromCharCode(unit + 1);
  }
  return undefined;
}
