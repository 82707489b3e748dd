/**
 * The SQLite backend for the Node host: one durable file, laid out like
 * k3s's kine. A single table is the revision log: one row per write, the row
 * id being the revision. A key's value at revision R is its newest row with
 * id <= R (a row with deleted = 1 is a tombstone carrying the last value).
 *
 * Durability: WAL journal with synchronous=FULL, so a write is fsynced before
 * its promise resolves and survives `kill -9` or power loss.
 *
 * Ownership: one process owns the file. It is opened with an exclusive lock
 * (a second opener fails with StorageError 'Internal'), which is what makes
 * the in-process watch correct: every committed write goes through this
 * object, which feeds its watchers right after the commit. Several API server
 * processes over one store need a backend with a shared watch (etcd).
 *
 * Keys compare as UTF-8 bytes (SQLite BINARY collation), i.e. by code point;
 * this equals JS string order for every key kube-apiserver produces.
 */

import Database from 'better-sqlite3';
import {
  StorageError,
  isStorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type StorageEvent,
  type Unsubscribe,
} from '../../src/core/storage/interface';
import { compactedError, compactionDue, readRevisionAt, requireLive } from '../../src/core/storage/revisions';
import { WatcherSet, type ListenerErrorHandler } from '../../src/core/storage/watchers';

export interface SqliteStorageOptions {
  /** Receives exceptions thrown by watch listeners (they never fail a write). */
  onListenerError?: ListenerErrorHandler;
}

/** A row of the revision log. */
interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

/** A log row joined with the row it superseded (for watch prevKv). */
interface EventRow extends Row {
  p_id: number | null;
  p_create_revision: number | null;
  p_value: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY,           -- the revision of this write
  name TEXT NOT NULL,               -- the key
  created INTEGER NOT NULL,         -- 1: this write created the key
  deleted INTEGER NOT NULL,         -- 1: this write deleted it (value = last value)
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,   -- the key's previous row, 0 when none
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
`;

export function createSqliteStorage(path: string, options: SqliteStorageOptions = {}): Storage {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (e) {
    throw new StorageError('Internal', '', `cannot open ${path}: ${errorMessage(e)}`);
  }
  try {
    // Exclusive before WAL: no shared-memory index, and the lock is held until close.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('BEGIN IMMEDIATE');
    db.exec(SCHEMA);
    db.exec('COMMIT');
  } catch (e) {
    db.close();
    const busy = e instanceof Error && 'code' in e && String(e.code).startsWith('SQLITE_BUSY');
    throw new StorageError(
      'Internal',
      '',
      busy ? `${path} is owned by another process` : `cannot open ${path}: ${errorMessage(e)}`,
    );
  }
  return new SqliteStorage(db, options);
}

class SqliteStorage implements Storage {
  private revision: number;
  private compacted: number;
  private readonly watchers: WatcherSet;
  private closed = false;

  private readonly latestRow;
  private readonly rowAt;
  private readonly insertRow;
  private readonly rangeBounded;
  private readonly rangeAll;
  private readonly countBounded;
  private readonly countAll;
  private readonly eventsAfter;
  private readonly compactRows;
  private readonly setMeta;

  constructor(
    private readonly db: Database.Database,
    options: SqliteStorageOptions,
  ) {
    this.watchers = new WatcherSet(options.onListenerError);
    this.latestRow = db.prepare<[string], Row>('SELECT * FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1');
    this.rowAt = db.prepare<[string, number], Row>('SELECT * FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1');
    this.insertRow = db.prepare<[Row]>(
      `INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value)
       VALUES (@id, @name, @created, @deleted, @create_revision, @prev_revision, @value)`,
    );
    // The newest row per key at a revision, live rows only, in key order.
    const latestPerKey = (bounded: boolean) => `
      FROM kv JOIN (
        SELECT MAX(id) AS id FROM kv
        WHERE name >= @from ${bounded ? 'AND name < @end' : ''} AND id <= @rev
        GROUP BY name
      ) latest ON kv.id = latest.id
      WHERE kv.deleted = 0`;
    type RangeParams = { from: string; end?: string; rev: number; limit: number };
    this.rangeBounded = db.prepare<[RangeParams], Row>(`SELECT kv.* ${latestPerKey(true)} ORDER BY kv.name LIMIT @limit`);
    this.rangeAll = db.prepare<[RangeParams], Row>(`SELECT kv.* ${latestPerKey(false)} ORDER BY kv.name LIMIT @limit`);
    type CountParams = Omit<RangeParams, 'limit'>;
    this.countBounded = db.prepare<[CountParams], number>(`SELECT COUNT(*) ${latestPerKey(true)}`).pluck();
    this.countAll = db.prepare<[CountParams], number>(`SELECT COUNT(*) ${latestPerKey(false)}`).pluck();
    this.eventsAfter = db.prepare<[number], EventRow>(
      `SELECT c.*, p.id AS p_id, p.create_revision AS p_create_revision, p.value AS p_value
       FROM kv c LEFT JOIN kv p ON c.created = 0 AND p.id = c.prev_revision
       WHERE c.id > ? ORDER BY c.id`,
    );
    // Drops rows not visible at @rev: tombstones and superseded versions. The
    // newest row (id = current revision) always survives, so MAX(id) stays
    // the current revision across restarts.
    this.compactRows = db.prepare<[{ rev: number }]>(
      `DELETE FROM kv WHERE id < @rev AND (
         deleted = 1 OR id < (SELECT MAX(k.id) FROM kv k WHERE k.name = kv.name AND k.id <= @rev)
       )`,
    );
    this.setMeta = db.prepare<[string, number]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.revision = db.prepare<[], number | null>('SELECT MAX(id) FROM kv').pluck().get() ?? 0;
    this.compacted = db.prepare<[string], number>('SELECT value FROM meta WHERE key = ?').pluck().get('compact_revision') ?? 0;
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
    const row = this.rowAt.get(key, at);
    return row && !row.deleted ? toKv(row) : undefined;
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const at = this.readRevision(prefix, options.revision);
    const limit = options.limit && options.limit > 0 ? options.limit : -1;
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const end = prefixEnd(prefix);
    const params = end === undefined ? { from, rev: at } : { from, end, rev: at };
    const [rangeRows, countRows] = end === undefined ? [this.rangeAll, this.countAll] : [this.rangeBounded, this.countBounded];
    const rows = rangeRows.all({ ...params, limit });
    // A short page already holds every match; count only when it may not.
    const count = limit < 0 || rows.length < limit ? rows.length : countRows.get(params)!;
    return { kvs: rows.map(toKv), more: count > rows.length, count, revision: at };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      if (current && !current.deleted) {
        throw new StorageError('KeyExists', key, `key already exists: ${key}`, current.id);
      }
      return { id: revision, name: key, created: 1, deleted: 0, create_revision: revision, prev_revision: current?.id ?? 0, value };
    });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      const live = requireLiveRow(key, current, expectedModRevision);
      return { ...live, id: revision, created: 0, prev_revision: live.id, value };
    });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(key, (current, revision) => {
      const live = requireLiveRow(key, current, expectedModRevision);
      return { ...live, id: revision, created: 0, deleted: 1, prev_revision: live.id };
    });
  }

  async watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void): Promise<Unsubscribe> {
    this.assertOpen(prefix);
    if (afterRevision < this.compacted) throw compactedError(prefix, afterRevision, this.compacted);
    // Read the whole history before delivering: a listener may write, and
    // better-sqlite3 cannot write while a statement is still iterating.
    const history: StorageEvent[] = [];
    for (const row of this.eventsAfter.all(afterRevision)) {
      if (row.name.startsWith(prefix)) history.push(toEvent(row));
    }
    return this.watchers.add(prefix, afterRevision, history, listener);
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    if (!compactionDue(revision, this.revision, this.compacted)) return;
    this.db.transaction(() => {
      this.compactRows.run({ rev: revision });
      this.setMeta.run('compact_revision', revision);
    })();
    this.compacted = revision;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchers.clear();
    this.db.close();
  }

  /**
   * Runs one write in a transaction: `next` sees the key's newest row and the
   * revision to assign, and returns the row to insert (or throws). Watchers
   * hear about it only after the commit.
   */
  private write(key: string, next: (current: Row | undefined, revision: number) => Row): KeyValue {
    this.assertOpen(key);
    const revision = this.revision + 1;
    let row: Row;
    let prev: Row | undefined;
    try {
      row = this.db.transaction(() => {
        prev = this.latestRow.get(key);
        const r = next(prev, revision);
        this.insertRow.run(r);
        return r;
      }).immediate();
    } catch (e) {
      if (isStorageError(e)) throw e;
      throw new StorageError('Internal', key, `write failed: ${errorMessage(e)}`);
    }
    this.revision = revision;
    const kv = toKv(row);
    const event: StorageEvent = { type: row.deleted ? 'DELETE' : 'PUT', revision, kv };
    if (!row.created && prev) event.prevKv = toKv(prev);
    this.watchers.notify(event);
    return kv;
  }

  private readRevision(key: string, revision: number | undefined): number {
    this.assertOpen(key);
    return readRevisionAt(key, revision, this.revision, this.compacted);
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Internal', key, 'storage is closed');
  }
}

/** The key's live row when it exists and matches the expected modRevision. */
function requireLiveRow(key: string, current: Row | undefined, expectedModRevision: number | undefined): Row {
  return requireLive(key, current && !current.deleted ? current : undefined, (row) => row.id, expectedModRevision);
}

function toKv(row: Row): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

function toEvent(row: EventRow): StorageEvent {
  const event: StorageEvent = { type: row.deleted ? 'DELETE' : 'PUT', revision: row.id, kv: toKv(row) };
  if (row.p_id !== null && row.p_create_revision !== null && row.p_value !== null) {
    event.prevKv = { key: row.name, value: row.p_value, createRevision: row.p_create_revision, modRevision: row.p_id };
  }
  return event;
}

/**
 * The smallest string above every string with this prefix, in code point
 * order; undefined when there is none (empty prefix).
 */
export function prefixEnd(prefix: string): string | undefined {
  const codePoints = Array.from(prefix);
  while (codePoints.length > 0) {
    let next = codePoints.pop()!.codePointAt(0)! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return codePoints.join('') + String.fromCodePoint(next);
  }
  return undefined;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
