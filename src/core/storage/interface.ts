/**
 * The storage interface: a small, etcd-shaped, revisioned key-value store.
 *
 * Every successful write (create, update, delete) bumps one global revision
 * by exactly one; that revision is the `resourceVersion` clients see. Reads
 * can be served at a past revision until it is compacted away, and watches
 * replay every event after a given revision. Values are opaque strings (the
 * registry stores JSON); keys are `/registry/...` paths as kube-apiserver uses.
 *
 * Backends: memory (./memory.ts, reference semantics), IndexedDB (src/sw),
 * SQLite and etcd (server/storage). All pass ./testing/conformance.ts.
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision at which this key was (last) created. */
  createRevision: number;
  /** Revision of the last write to this key. */
  modRevision: number;
}

export type WatchEventType = 'PUT' | 'DELETE';

export interface StorageEvent {
  type: WatchEventType;
  /** Revision of the write that produced the event. */
  revision: number;
  /** For PUT the new value; for DELETE the key with the last value (modRevision = the delete's revision). */
  kv: KeyValue;
  /** The value before the write, absent on create. */
  prevKv?: KeyValue;
}

export interface RangeOptions {
  /** Read at this revision (0 or undefined = latest). Older than the compacted revision -> StorageError 'Compacted'; newer than current -> 'TooLargeResourceVersion'. */
  revision?: number;
  /** Maximum number of keys returned (0 or undefined = no limit). */
  limit?: number;
  /** Only keys >= startKey (used for continue tokens). */
  startKey?: string;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** True when more keys matched beyond `limit`. */
  more: boolean;
  /** Number of keys that matched in total (including those returned). */
  count: number;
  /** The revision the read was served at. */
  revision: number;
}

export type Unsubscribe = () => void;

export interface Storage {
  /** The revision of the newest write (0 on an empty store). */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable (reads/watches before it fail with 'Compacted'). */
  compactedRevision(): Promise<number>;
  /**
   * currentRevision without a turn or a round trip, from a backend that makes every write itself
   * (memory, SQLite, IndexedDB); absent where another writer may have moved it (etcd). A reader that
   * kept an answer read at the latest revision knows, when this still equals that revision, that
   * nothing was written anywhere since.
   */
  revisionNow?(): number;
  /**
   * Current (or revision-pinned) value of one key; undefined when absent.
   * Revision errors as in RangeOptions.revision.
   */
  get(key: string, revision?: number): Promise<KeyValue | undefined>;
  /** Keys with the given prefix, sorted by key, as of a revision. */
  range(prefix: string, options?: RangeOptions): Promise<RangeResult>;
  /** Creates key; StorageError 'KeyExists' when present. */
  create(key: string, value: string): Promise<KeyValue>;
  /**
   * Compare-and-swap: replaces key only when its modRevision equals
   * expectedModRevision. 'KeyNotFound' when absent, 'Conflict' when changed.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /**
   * Deletes key (only when modRevision matches, if given). Returns the deleted
   * value with modRevision = the delete's revision (kube-apiserver reports the
   * deleted object at that resourceVersion), like the DELETE event's kv.
   * 'KeyNotFound' when absent, 'Conflict' on mismatch.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Delivers, in revision order, every event on keys with the prefix whose
   * revision is > afterRevision, first those already in history, then new
   * ones as they happen. Rejects with StorageError 'Compacted' when
   * afterRevision < compactedRevision. An afterRevision beyond the current one
   * is allowed (as in etcd): events arrive once the store gets there.
   * History may be delivered before the returned promise resolves; live
   * events are delivered synchronously after each committed write, and a
   * throwing listener never fails the write.
   *
   * `onProgress` is for backends whose events arrive after the write
   * resolves (etcd): they call it with a revision once every event up to it
   * has been delivered (etcd's progress notifications), so a watch cache can
   * move its revision without an event. Synchronous backends never call it.
   *
   * `onEnded` is called when the backend ends the watch by itself (etcd
   * cancels a watch whose revision was compacted while the client was
   * disconnected): no event comes after it. Local backends never end one.
   */
  watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void, onProgress?: (revision: number) => void, onEnded?: (error: StorageError) => void): Promise<Unsubscribe>;
  /**
   * Drops history up to (not including) revision; reads at older revisions
   * and watches from older revisions fail afterwards. A revision at or below
   * the compacted one is a no-op; one newer than current is
   * 'TooLargeResourceVersion'.
   */
  compact(revision: number): Promise<void>;
  /** Releases resources (file handles, listeners). */
  close(): Promise<void>;
}

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'Compacted'
  | 'TooLargeResourceVersion'
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message?: string,
    readonly revision?: number,
  ) {
    super(message ?? `${code}: ${key}`);
    this.name = 'StorageError';
  }
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}
