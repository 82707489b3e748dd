/**
 * The revision checks every backend makes, with the same StorageErrors, so
 * the registry sees one behaviour whatever the backend.
 */
import { StorageError } from './interface';

/**
 * The revision a read asking for `revision` is served at (0 or undefined:
 * `current`). Newer than current is 'TooLargeResourceVersion'; older than the
 * compacted revision is 'Compacted'.
 */
export function readRevisionAt(key: string, revision: number | undefined, current: number, compacted: number): number {
  if (!revision || revision <= 0) return current;
  if (revision > current) {
    throw new StorageError('TooLargeResourceVersion', key, `revision ${revision} is newer than current ${current}`, current);
  }
  if (revision < compacted) throw compactedError(key, revision, compacted);
  return revision;
}

/** Reads and watches from before the compacted revision fail with this. */
export function compactedError(key: string, revision: number, compacted: number): StorageError {
  return new StorageError('Compacted', key, `revision ${revision} has been compacted (oldest ${compacted})`, compacted);
}

/**
 * Preconditions of update and delete: the key must be live (`current`
 * undefined when it is not) and, when one is expected, at that modRevision.
 * Returns the live entry.
 */
export function requireLive<T>(key: string, current: T | undefined, modRevisionOf: (live: T) => number, expectedModRevision: number | undefined): T {
  if (current === undefined) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
  const modRevision = modRevisionOf(current);
  if (expectedModRevision !== undefined && modRevision !== expectedModRevision) {
    throw new StorageError('Conflict', key, `modRevision of ${key} is ${modRevision}, expected ${expectedModRevision}`, modRevision);
  }
  return current;
}

/**
 * Whether compacting at `revision` has anything to do: at or below the
 * compacted revision it is a no-op; newer than current is 'TooLargeResourceVersion'.
 */
export function compactionDue(revision: number, current: number, compacted: number): boolean {
  if (revision > current) {
    throw new StorageError('TooLargeResourceVersion', '', `cannot compact at ${revision}: current revision is ${current}`, current);
  }
  return revision > compacted;
}
