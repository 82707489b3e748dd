/**
 * An informer cache of one kind for admission plugins (the
 * shared informer's lister the ResourceQuota and LimitRanger plugins read):
 * a list, then a watch, keeping the objects by namespace. Memory and SQLite
 * deliver watch events as the write commits, so a write that returned is in
 * the cache; over etcd the cache trails by an event, as kube's listers do.
 */
import type { KubeObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { Storage } from '../storage/interface';

export interface NamespacedCache {
  /** Lists and starts watching; until then the cache is empty. */
  start(): Promise<void>;
  stop(): void;
  /** The objects of one namespace (shared: never mutate them). */
  list(namespace: string): KubeObject[];
  /** One object (shared: never mutate it); undefined when the cache does not hold it. */
  get(namespace: string, name: string): KubeObject | undefined;
  /** Listed and watching: what it lacks was missing when listed or created since the last event. */
  readonly synced: boolean;
}

/**
 * An object as an admission plugin's lister reads it: from the cache when it
 * holds it (no wait), else from storage (an object created since the cache's
 * last event, or before the cache synced), as kube's plugins fall back to a
 * live lookup when their lister misses.
 */
export function cachedOrRead(cache: NamespacedCache, store: Store, namespace: string, name: string): KubeObject | undefined | Promise<KubeObject | undefined> {
  const cached = cache.synced ? cache.get(namespace, name) : undefined;
  if (cached) return cached;
  return store.getKv(namespace, name).then((kv) => (kv ? store.decode(kv) : undefined));
}

export function newNamespacedCache(storage: Storage, store: Store): NamespacedCache {
  const byNamespace = new Map<string, Map<string, KubeObject>>();
  let unsubscribe: (() => void) | undefined;
  let stopped = false;
  let synced = false;

  function put(obj: KubeObject): void {
    const ns = obj.metadata.namespace ?? '';
    let m = byNamespace.get(ns);
    if (!m) byNamespace.set(ns, (m = new Map()));
    m.set(obj.metadata.name ?? '', obj);
  }

  return {
    async start() {
      const listed = await store.list('');
      for (const obj of listed.items) put(obj);
      const u = await storage.watch(store.prefix, listed.revision, (e) => {
        if (e.type !== 'DELETE') {
          put(store.decode(e.kv));
          return;
        }
        const rest = e.kv.key.slice(store.prefix.length);
        // A cluster-scoped kind's keys have no namespace part.
        const [ns = '', name = ''] = store.namespaced ? rest.split('/') : ['', rest];
        const m = byNamespace.get(ns);
        m?.delete(name);
        if (m && !m.size) byNamespace.delete(ns);
      });
      if (stopped) u();
      else {
        unsubscribe = u;
        synced = true;
      }
    },
    stop() {
      stopped = true;
      synced = false;
      unsubscribe?.();
    },
    get synced() {
      return synced;
    },
    get(namespace, name) {
      return byNamespace.get(namespace)?.get(name);
    },
    list(namespace) {
      const m = byNamespace.get(namespace);
      return m ? [...m.values()] : [];
    },
  };
}
