/**
 * A pod lister fed by a controller's pod watch, as an informer's indexer
 * feeds client-go's listers: a namespace's pods are read from storage once,
 * when first listed, then kept current by the watch's events, each pod
 * decoded once per change rather than once per sync. Controllers that sync
 * a Service on every change of its pods list them often.
 */
import type { KubeObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { StorageEvent } from '../storage/interface';

type Cached = { pods: Map<string, KubeObject>; revision: number };
type Loading = { pending: StorageEvent[]; loaded: Promise<Cached> };

export class PodLister {
  private readonly byNamespace = new Map<string, Cached | Loading>();

  constructor(private readonly pods: Store) {}

  /** Applies an event of the pod watch (every namespace's) to the namespaces already listed. */
  observe(e: StorageEvent): void {
    const [namespace, name] = e.kv.key.slice(this.pods.prefix.length).split('/') as [string, string];
    const entry = this.byNamespace.get(namespace);
    if (!entry) return;
    if ('pending' in entry) entry.pending.push(e);
    else this.apply(entry, name, e);
  }

  private apply(cached: Cached, name: string, e: StorageEvent): void {
    // The list already holds what was written up to its revision.
    if (e.revision <= cached.revision) return;
    if (e.type === 'DELETE') cached.pods.delete(name);
    else cached.pods.set(name, this.pods.decode(e.kv));
  }

  /** The namespace's pods; the first call reads them from storage. The objects are shared: callers do not change them. */
  async list(namespace: string): Promise<KubeObject[]> {
    let entry = this.byNamespace.get(namespace);
    if (!entry) {
      const pending: StorageEvent[] = [];
      const loaded = this.pods.list(namespace).then((listed) => {
        const cached: Cached = { pods: new Map(listed.items.map((p) => [p.metadata.name!, p])), revision: listed.revision };
        for (const e of pending) this.apply(cached, e.kv.key.slice(this.pods.prefix.length).split('/')[1]!, e);
        this.byNamespace.set(namespace, cached);
        return cached;
      });
      this.byNamespace.set(namespace, (entry = { pending, loaded }));
      // A failed read is tried afresh by the next list.
      loaded.catch(() => this.byNamespace.delete(namespace));
    }
    const cached = 'pending' in entry ? await entry.loaded : entry;
    return [...cached.pods.values()];
  }
}
