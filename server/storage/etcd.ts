/**
 * The etcd backend (kube-apiserver's storage/etcd3 store): several Node hosts
 * over one etcd behave as kube-apiserver replicas.
 *
 * - resourceVersion is etcd's revision (mod revision for objects), so every
 *   host reports the same versions; reads at a revision are etcd ranges at
 *   that revision, and continue tokens work on any host.
 * - create, update and delete are etcd transactions guarded by a compare on
 *   the key's create or mod revision (optimistic concurrency), with the
 *   current value fetched in the failure branch to tell the error apart.
 * - watch is etcd's watch with previous values; the watch cache on top follows
 *   it as it follows the in-process backends, and etcd's progress
 *   notifications move the cache's revision (which bookmarks carry) when no
 *   event does. Run etcd with --experimental-watch-progress-notify-interval
 *   (kubeadm sets 5s) when other clients write to it too.
 * - keys follow kube-apiserver's layout (./etcdKeys.ts), values its storage
 *   media types (./etcdCodec.ts).
 *
 * etcd keeps no "compacted revision" a client can read, and kube-apiserver's
 * compact_rev_key costs a revision per compaction. Here the compacted
 * revision is found by probing reads: a range at revision r fails with
 * "required revision has been compacted" exactly when r is below it.
 *
 * `revisionBase` lets tests run many stores over one etcd: revisions are
 * reported relative to the etcd revision the store was opened at.
 */
import { Etcd3, type ICompare, type IKeyValue, type IOptions, type IRangeRequest, type IRangeResponse, type ITxnRequest, type ITxnResponse, type IWatchResponse, type Watcher } from 'etcd3';
import {
  StorageError,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type StorageEvent,
  type Unsubscribe,
} from '../../src/core/storage/interface';
import { compactedError } from '../../src/core/storage/revisions';
import type { ListenerErrorHandler } from '../../src/core/storage/watchers';
import { etcdValueCodec, type EtcdValueCodec } from './etcdCodec';
import { EtcdKeyLayout } from './etcdKeys';

export interface EtcdStorageOptions {
  client: Etcd3;
  layout: EtcdKeyLayout;
  codec?: EtcdValueCodec;
  /** etcd revision reported as 0 (tests sharing one etcd); 0 in production. */
  revisionBase?: number;
  /** Close the client with the store. */
  ownsClient?: boolean;
  /** Receives exceptions thrown by watch listeners and watches etcd ended (compaction while disconnected). */
  onListenerError?: ListenerErrorHandler;
  onWatchError?: (error: Error) => void;
}

/** --etcd-servers and the client TLS files, as kube-apiserver takes them. */
export interface EtcdConnectionFlags {
  servers: string[];
  caFile?: Buffer;
  certFile?: Buffer;
  keyFile?: Buffer;
}

export function etcdClient(flags: EtcdConnectionFlags): Etcd3 {
  const options: IOptions = { hosts: flags.servers, dialTimeout: 5000 };
  if (flags.caFile) {
    options.credentials = {
      rootCertificate: flags.caFile,
      ...(flags.certFile && flags.keyFile ? { certChain: flags.certFile, privateKey: flags.keyFile } : {}),
    };
  }
  return new Etcd3(options);
}

export function createEtcdStorage(options: EtcdStorageOptions): Storage {
  return new EtcdStorage(options);
}

/** The end of a prefix range: the prefix with its last byte incremented (etcd's clientv3.GetPrefixRangeEnd). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff (or empty): to the end of the keyspace.
  return Buffer.from([0]);
}

const compactedMessage = 'required revision has been compacted';
const futureMessage = 'required revision is a future revision';

class EtcdStorage implements Storage {
  private readonly client: Etcd3;
  private readonly layout: EtcdKeyLayout;
  private readonly codec: EtcdValueCodec;
  private readonly base: number;
  /** Lowest etcd revision known to be readable after a compaction (only grows). */
  private knownCompacted = 0;
  private readonly watchers = new Set<Watcher>();
  private closed = false;

  constructor(private readonly options: EtcdStorageOptions) {
    this.client = options.client;
    this.layout = options.layout;
    this.codec = options.codec ?? etcdValueCodec();
    this.base = options.revisionBase ?? 0;
  }

  async currentRevision(): Promise<number> {
    return this.toRevision((await this.probe(0)).header.revision);
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen('');
    let hi = Number((await this.probe(0)).header.revision);
    let lo = Math.max(this.knownCompacted, 1);
    if (!(await this.readable(lo))) {
      // Binary search for the lowest readable revision in (lo, hi]; hi (current) always is.
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (await this.readable(mid)) hi = mid;
        else lo = mid;
      }
      lo = hi;
    }
    this.knownCompacted = Math.max(this.knownCompacted, lo);
    // Compacting at 1 drops nothing: that is "never compacted".
    return Math.max(0, lo <= 1 ? 0 : lo - this.base);
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    this.assertOpen(key);
    const res = await this.kvRange(key, { key: Buffer.from(this.layout.key(key)), revision: this.etcdRevision(revision) });
    const kv = res.kvs[0];
    return kv ? this.toKeyValue(key, kv) : undefined;
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    this.assertOpen(prefix);
    const revision = this.etcdRevision(options.revision);
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const startKey = options.startKey !== undefined && options.startKey > prefix ? options.startKey : undefined;
    if (this.layout.spanning(prefix)) return this.spanningRange(prefix, revision, limit, startKey);
    const etcdPrefix = Buffer.from(this.layout.keyPrefix(prefix));
    const end = prefixRangeEnd(etcdPrefix);
    if (startKey !== undefined && !startKey.startsWith(prefix)) {
      // A start key past the prefix (it sorts after every key under it): nothing, at the revision.
      const res = await this.probe(revision, prefix);
      return { kvs: [], more: false, count: 0, revision: this.servedAt(revision, res) };
    }
    const from = startKey !== undefined ? Buffer.from(this.layout.key(startKey)) : etcdPrefix;
    const res = await this.kvRange(prefix, { key: from, range_end: end, revision, limit });
    return {
      kvs: res.kvs.map((kv) => this.toKeyValue(this.layout.storageKey(kv.key.toString()), kv)),
      more: res.more,
      count: Number(res.count),
      revision: this.servedAt(revision, res),
    };
  }

  /** A range across resources laid out differently in etcd: the whole keyspace, filtered and sorted by storage key. */
  private async spanningRange(prefix: string, revision: number, limit: number, startKey: string | undefined): Promise<RangeResult> {
    const space = Buffer.from(this.layout.prefix + '/');
    const res = await this.kvRange(prefix, { key: space, range_end: prefixRangeEnd(space), revision });
    const matching = res.kvs
      .map((kv) => ({ key: this.layout.storageKey(kv.key.toString()), kv }))
      .filter(({ key }) => key.startsWith(prefix) && (startKey === undefined || key >= startKey))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const page = limit ? matching.slice(0, limit) : matching;
    return {
      kvs: page.map(({ key, kv }) => this.toKeyValue(key, kv)),
      more: page.length < matching.length,
      count: matching.length,
      revision: this.servedAt(revision, res),
    };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.assertOpen(key);
    const etcdKey = Buffer.from(this.layout.key(key));
    const res = await this.txn(key, {
      compare: [{ key: etcdKey, target: 'Create', result: 'Equal', create_revision: 0 }],
      success: [{ request_put: { key: etcdKey, value: Buffer.from(this.codec.encode(value)) } }],
      failure: [{ request_range: { key: etcdKey } }],
    });
    if (!res.succeeded) {
      const existing = res.responses[0]?.response_range.kvs[0];
      throw new StorageError('KeyExists', key, `key already exists: ${key}`, existing ? this.toRevision(existing.mod_revision) : undefined);
    }
    const revision = this.toRevision(res.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.assertOpen(key);
    const etcdKey = Buffer.from(this.layout.key(key));
    const res = await this.txn(key, {
      compare: [
        { key: etcdKey, target: 'Version', result: 'Greater', version: 0 },
        { key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision + this.base },
      ],
      success: [{ request_put: { key: etcdKey, value: Buffer.from(this.codec.encode(value)), prev_kv: true } }],
      failure: [{ request_range: { key: etcdKey, keys_only: true } }],
    });
    if (!res.succeeded) throw this.preconditionFailed(key, res, expectedModRevision);
    const prev = res.responses[0]!.response_put.prev_kv;
    return { key, value, createRevision: this.toRevision(prev.create_revision), modRevision: this.toRevision(res.header.revision) };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen(key);
    const etcdKey = Buffer.from(this.layout.key(key));
    const compare: ICompare[] = [{ key: etcdKey, target: 'Version', result: 'Greater', version: 0 }];
    if (expectedModRevision !== undefined) compare.push({ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision + this.base });
    const res = await this.txn(key, {
      compare,
      success: [{ request_delete_range: { key: etcdKey, prev_kv: true } }],
      failure: [{ request_range: { key: etcdKey, keys_only: true } }],
    });
    if (!res.succeeded) throw this.preconditionFailed(key, res, expectedModRevision);
    const prev = res.responses[0]!.response_delete_range.prev_kvs[0]!;
    return { key, value: this.codec.decode(prev.value), createRevision: this.toRevision(prev.create_revision), modRevision: this.toRevision(res.header.revision) };
  }

  async watch(prefix: string, afterRevision: number, listener: (event: StorageEvent) => void, onProgress?: (revision: number) => void, onEnded?: (error: StorageError) => void): Promise<Unsubscribe> {
    this.assertOpen(prefix);
    const start = afterRevision + this.base;
    // etcd accepts a watch from the compacted revision itself; the interface wants it past it.
    if (!(await this.readable(Math.max(start, 1)))) {
      throw compactedError(prefix, afterRevision, await this.compactedRevision());
    }
    const spanning = this.layout.spanning(prefix);
    const builder = this.client.watch().withPreviousKV().startRevision(String(start + 1));
    if (spanning) builder.prefix(this.layout.prefix + '/');
    else builder.prefix(this.layout.keyPrefix(prefix));
    let active = true;
    const watcher = builder.watcher();
    const onData = (res: IWatchResponse) => {
      // A response without events is a progress notification: every event up to its revision has come.
      if (res.events.length === 0) {
        if (active && onProgress) onProgress(this.toRevision(res.header.revision));
        return;
      }
      for (const e of res.events) {
        if (!active) return;
        const key = this.layout.storageKey(e.kv.key.toString());
        if (spanning && !key.startsWith(prefix)) continue;
        const event = this.toEvent(key, e.type, e.kv, e.prev_kv);
        try {
          listener(event);
        } catch (error) {
          try {
            this.options.onListenerError?.(error, event);
          } catch {
            // An error handler that throws must not stop the stream.
          }
        }
      }
    };
    watcher.on('data', onData);
    const connected = new Promise<void>((resolve, reject) => {
      watcher.once('connected', () => resolve());
      watcher.once('error', (err: Error) => {
        if (err.message.includes(compactedMessage)) reject(new StorageError('Compacted', prefix, `etcd: ${compactedMessage}`));
        else reject(new StorageError('Internal', prefix, `etcd watch: ${err.message}`));
      });
    });
    try {
      await connected;
    } catch (e) {
      active = false;
      void watcher.cancel().catch(() => {});
      throw e;
    }
    // Later errors end the watch (etcd cancelled it, e.g. compacted while this host was disconnected).
    watcher.on('error', (err: Error) => {
      if (!active) return;
      active = false;
      this.watchers.delete(watcher);
      this.options.onWatchError?.(err);
      onEnded?.(err.message.includes(compactedMessage) ? new StorageError('Compacted', prefix, `etcd: ${compactedMessage}`) : new StorageError('Internal', prefix, `etcd watch: ${err.message}`));
    });
    this.watchers.add(watcher);
    return () => {
      if (!active) return;
      active = false;
      this.watchers.delete(watcher);
      void watcher.cancel().catch(() => {});
    };
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    if (revision <= 0) return;
    try {
      await this.client.kv.compact({ revision: revision + this.base, physical: false });
      this.knownCompacted = Math.max(this.knownCompacted, revision + this.base);
    } catch (e) {
      const err = this.storageError('', e);
      // At or below the compacted revision: nothing to do.
      if (err.code !== 'Compacted') throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = [...this.watchers];
    this.watchers.clear();
    await Promise.all(open.map((w) => w.cancel().catch(() => {})));
    if (this.options.ownsClient) this.client.close();
  }

  /** A count-only read of one key at revision: the header, and the revision checks etcd makes. */
  private probe(revision: number, key = ''): Promise<IRangeResponse> {
    return this.kvRange(key, { key: Buffer.from(this.layout.prefix + '\0'), revision, count_only: true });
  }

  /** Whether etcd still serves reads at this revision (it is not compacted away). */
  private async readable(revision: number): Promise<boolean> {
    try {
      await this.probe(revision);
      return true;
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Compacted') return false;
      // A revision etcd has not reached yet is not compacted either.
      if (e instanceof StorageError && e.code === 'TooLargeResourceVersion') return true;
      throw e;
    }
  }

  private async kvRange(key: string, request: IRangeRequest): Promise<IRangeResponse> {
    try {
      return await this.client.kv.range(request);
    } catch (e) {
      throw this.storageError(key, e);
    }
  }

  private async txn(key: string, request: ITxnRequest): Promise<ITxnResponse> {
    try {
      return await this.client.kv.txn(request);
    } catch (e) {
      throw this.storageError(key, e);
    }
  }

  /** A failed compare: the failure branch read the key (keys only). */
  private preconditionFailed(key: string, res: ITxnResponse, expectedModRevision: number | undefined): StorageError {
    const current = res.responses[0]?.response_range.kvs[0];
    if (!current) return new StorageError('KeyNotFound', key, `key not found: ${key}`);
    const modRevision = this.toRevision(current.mod_revision);
    return new StorageError('Conflict', key, `modRevision of ${key} is ${modRevision}, expected ${expectedModRevision}`, modRevision);
  }

  private storageError(key: string, e: unknown): StorageError {
    if (e instanceof StorageError) return e;
    const message = e instanceof Error ? e.message : String(e);
    if (message.includes(compactedMessage)) {
      return new StorageError('Compacted', key, `etcd: ${compactedMessage}`, this.knownCompacted > 1 ? this.knownCompacted - this.base : undefined);
    }
    if (message.includes(futureMessage)) return new StorageError('TooLargeResourceVersion', key, `etcd: ${futureMessage}`);
    return new StorageError('Internal', key, `etcd: ${message}`);
  }

  private toEvent(key: string, type: string, kv: IKeyValue, prev: IKeyValue | undefined | null): StorageEvent {
    const prevKv = prev ? this.toKeyValue(key, prev) : undefined;
    if (type === 'Delete') {
      return {
        type: 'DELETE',
        revision: this.toRevision(kv.mod_revision),
        kv: { key, value: prevKv?.value ?? '', createRevision: prevKv?.createRevision ?? 0, modRevision: this.toRevision(kv.mod_revision) },
        ...(prevKv ? { prevKv } : {}),
      };
    }
    const current = this.toKeyValue(key, kv);
    return { type: 'PUT', revision: current.modRevision, kv: current, ...(prevKv ? { prevKv } : {}) };
  }

  private toKeyValue(key: string, kv: IKeyValue): KeyValue {
    return { key, value: this.codec.decode(kv.value), createRevision: this.toRevision(kv.create_revision), modRevision: this.toRevision(kv.mod_revision) };
  }

  private toRevision(etcdRevision: string | number): number {
    return Number(etcdRevision) - this.base;
  }

  private etcdRevision(revision: number | undefined): number {
    return revision && revision > 0 ? revision + this.base : 0;
  }

  /** The revision a read was served at: the one asked for, or etcd's current one. */
  private servedAt(revision: number, res: IRangeResponse): number {
    return revision > 0 ? revision - this.base : this.toRevision(res.header.revision);
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Internal', key, 'storage is closed');
  }
}
