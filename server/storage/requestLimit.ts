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

/** The backend, refusing creates and updates whose value is over `limit` bytes. */
export function withMaxRequestBytes(storage: Storage, limit: number): Storage {
  const check = (value: string) => {
    if (Buffer.byteLength(value) > limit) throw requestTooLarge();
  };
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === 'create') return async (key: string, value: string) => (check(value), target.create(key, value));
      if (prop === 'update') return async (key: string, value: string, expected: number) => (check(value), target.update(key, value, expected));
      const member = Reflect.get(target, prop, target) as unknown;
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
    },
  });
}
