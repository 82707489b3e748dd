/**
 * Storage: a small, etcd-shaped, revisioned key-value store under the
 * registry. The global revision is the `resourceVersion` clients see.
 *
 * - interface.ts: the contract every backend implements (and its errors).
 * - memory.ts: the in-memory backend, reference semantics.
 * - watchers.ts: the in-order, re-entrant watch fan-out backends share.
 * - revisions.ts: the read, precondition and compaction checks backends share.
 * - testing/conformance.ts: the shared vitest suite every backend runs
 *   (imported directly by tests, not re-exported here, since it imports vitest).
 *
 * Host-bound backends live with their hosts: SQLite and etcd in
 * server/storage, IndexedDB in src/sw/storage.
 */
export * from './interface';
export { createMemoryStorage } from './memory';
export type { MemoryStorageOptions } from './memory';
export { compactedError, compactionDue, readRevisionAt, requireLive } from './revisions';
export { WatcherSet } from './watchers';
export type { ListenerErrorHandler } from './watchers';
