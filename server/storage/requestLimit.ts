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
  const create = async (key: string, value: string) => (check(value), storage.create(key, value));
  const update = async (key: string, value: string, expected: number) => (check(value), storage.update(key, value, expected));
  // Each method is bound once (every read comes through here), again only if it was replaced.
  const bound = new Map<PropertyKey, { member: unknown; fn: unknown }>();
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === 'create') return create;
      if (prop === 'update') return update;
      const member = Reflect.get(target, prop, target) as unknown;
      if (typeof member !== 'function') return member;
      const known = bound.get(prop);
      if (known?.member === member) return known.fn;
      const fn = (member as (...args: unknown[]) => unknown).bind(target);
      bound.set(prop, { member, fn });
      return fn;
    },
  });
}
