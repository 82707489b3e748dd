/**
 * Storage backends bound to the Node host: SQLite (one durable file, the
 * embedded default, like k3s's kine), etcd (several hosts over one etcd, as
 * kube-apiserver replicas) and memory. The host hands the backend to the
 * core; the core never imports this folder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMemoryStorage, type Storage } from '../../src/core/storage';
import type { EtcdFlags } from '../etcdFlags';
import { createEtcdStorage, etcdClient } from './etcd';
import { etcdValueCodec } from './etcdCodec';
import { EtcdKeyLayout } from './etcdKeys';
import { createSqliteStorage } from './sqlite';

export { createSqliteStorage, type SqliteStorageOptions } from './sqlite';
export { defaultMaxRequestBytes, withMaxRequestBytes } from './requestLimit';
export { createEtcdStorage, etcdClient, type EtcdStorageOptions } from './etcd';
export { EtcdKeyLayout } from './etcdKeys';
export { etcdValueCodec, type StorageMediaType } from './etcdCodec';

export interface HostStorageFlags {
  store: 'sqlite' | 'memory' | 'etcd';
  dataDir: string;
  etcd?: EtcdFlags;
}

/** The backend --store selects. */
export function openHostStorage(flags: HostStorageFlags): Storage {
  if (flags.store === 'memory') return createMemoryStorage();
  if (flags.store === 'sqlite') return createSqliteStorage(join(flags.dataDir, 'kubesim.db'));
  const etcd = flags.etcd!;
  const read = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const client = etcdClient({ servers: etcd.servers, caFile: read(etcd.caFile), certFile: read(etcd.certFile), keyFile: read(etcd.keyFile) });
  return createEtcdStorage({
    client,
    ownsClient: true,
    layout: new EtcdKeyLayout(etcd.prefix),
    codec: etcdValueCodec(etcd.storageMediaType),
    onWatchError: (error) => console.error(`kubesim: etcd watch ended: ${error.message}`),
  });
}
