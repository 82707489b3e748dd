/**
 * The etcd flags of kube-apiserver (--etcd-servers, --etcd-prefix, the client
 * TLS files, --storage-media-type) and the leader election flags of
 * kube-controller-manager, whose controllers the host runs: with
 * --store=etcd several hosts share one etcd, and the controllers run on the
 * one holding the Lease.
 */
import { storageMediaTypes, type StorageMediaType } from './storage/etcdCodec';

export interface EtcdFlags {
  servers: string[];
  /** --etcd-prefix (default /registry). */
  prefix: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** --storage-media-type (default application/vnd.kubernetes.protobuf). */
  storageMediaType?: StorageMediaType;
  /** --leader-elect (default true) and its durations in ms. */
  leaderElect: boolean;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export const etcdFlagNames = new Set([
  'etcd-servers', 'etcd-prefix', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'storage-media-type',
  'leader-elect', 'leader-elect-lease-duration', 'leader-elect-renew-deadline', 'leader-elect-retry-period',
]);

export const etcdBooleanFlags = ['leader-elect'];

export const etcdFlagHelp = `      --etcd-servers strings           etcd endpoints with --store=etcd (http(s)://host:port, comma separated)
      --etcd-prefix string             prefix of every key in etcd (default "/registry")
      --etcd-cafile, --etcd-certfile, --etcd-keyfile string  TLS files for the etcd connection
      --storage-media-type string      how built-in objects are stored in etcd (default "application/vnd.kubernetes.protobuf";
                                       custom resources are always JSON)
      --leader-elect                   run controllers only on the host holding the kube-system/kube-controller-manager Lease
                                       (default true; with --store=etcd)
      --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period duration  (default 15s, 10s, 2s)
`;

export function defaultEtcdFlags(): EtcdFlags {
  return { servers: [], prefix: '/registry', leaderElect: true };
}

/** Applies one flag; false when the name is not an etcd flag. Throws Error with cobra-style messages. */
export function parseEtcdFlag(etcd: EtcdFlags, name: string, value: string, duration: (value: string, flag: string) => number): boolean {
  switch (name) {
    case 'etcd-servers':
      etcd.servers = value.split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of etcd.servers) {
        if (!/^https?:\/\/[^/]+\/?$/.test(s)) throw new Error(`invalid argument ${JSON.stringify(value)} for "--etcd-servers" flag: ${JSON.stringify(s)} is not an http(s)://host:port URL`);
      }
      return true;
    case 'etcd-prefix':
      etcd.prefix = value.replace(/\/+$/, '');
      return true;
    case 'etcd-cafile':
      etcd.caFile = value;
      return true;
    case 'etcd-certfile':
      etcd.certFile = value;
      return true;
    case 'etcd-keyfile':
      etcd.keyFile = value;
      return true;
    case 'storage-media-type':
      if (!(storageMediaTypes as readonly string[]).includes(value)) {
        throw new Error(`invalid argument ${JSON.stringify(value)} for "--storage-media-type" flag: must be one of ${storageMediaTypes.join(', ')}`);
      }
      etcd.storageMediaType = value as StorageMediaType;
      return true;
    case 'leader-elect':
      etcd.leaderElect = value !== 'false';
      return true;
    case 'leader-elect-lease-duration':
      etcd.leaseDurationMs = duration(value, name);
      return true;
    case 'leader-elect-renew-deadline':
      etcd.renewDeadlineMs = duration(value, name);
      return true;
    case 'leader-elect-retry-period':
      etcd.retryPeriodMs = duration(value, name);
      return true;
    default:
      return false;
  }
}

/** Checks made once every flag is read, with kube-apiserver's messages. */
export function validateEtcdFlags(store: string, etcd: EtcdFlags | undefined): void {
  if (store !== 'etcd') return;
  if (!etcd || etcd.servers.length === 0) throw new Error('--etcd-servers must be specified');
  if ((etcd.certFile === undefined) !== (etcd.keyFile === undefined)) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
}
