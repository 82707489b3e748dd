/**
 * The embedded store's request limit, as etcd's --max-request-bytes (1.5 MiB
 * by default): a write whose stored value is larger fails in etcd with
 * `etcdserver: request is too large`, and kube-apiserver hands that error on
 * unconverted, as a 500 Status with no reason (kubernetes/kubernetes#112152).
 * Bodies up to the apiserver's own 3 MiB limit reach this check; the stored
 * value is JSON here where etcd holds protobuf, so the sizes compare loosely.
 */
import { StatusError } from '../../src/core/errors';
import type { Storage } from '../../src/core/storage/interface';

export const defaultMaxRequestBytes = 1.5 * 1024 * 1024;

function requestTooLarge(): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
}

/** The backend, refusing creates and updates whose value is over `limit` bytes; everything else is the backend's own call. */
export function withMaxRequestBytes(storage: Storage, limit: number): Storage {
  const check = (value: string) => {
    if (Buffer.byteLength(value) > limit) throw requestTooLarge();
  };
  // Plain methods rather than a Proxy: every read of the store comes through here.
  return {
    currentRevision: () => storage.currentRevision(),
    compactedRevision: () => storage.compactedRevision(),
    revisionNow: storage.revisionNow && (() => storage.revisionNow!()),
    get: (key, revision) => storage.get(key, revision),
    range: (prefix, options) => storage.range(prefix, options),
    create: async (key, value) => (check(value), storage.create(key, value)),
    update: async (key, value, expected) => (check(value), storage.update(key, value, expected)),
    delete: (key, expected) => storage.delete(key, expected),
    // Every argument passes on, callbacks a backend may add included.
    watch: (...args) => storage.watch(...args),
    compact: (revision) => storage.compact(revision),
    close: () => storage.close(),
  };
}
