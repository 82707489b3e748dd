/**
 * The namespace lifecycle controller: when a namespace is marked for deletion
 * (phase Terminating, spec.finalizers holding "kubernetes"), it deletes every
 * namespaced object in it, waits for those held by finalizers, then removes
 * its own finalizer through the finalize sub-resource, which removes the
 * namespace. It is fed by a storage watch, like an informer.
 */
import { isObject, type KubeObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import type { Clock } from '../util/clock';

export interface NamespaceControllerDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  storeFor(type: ResourceType): Store;
}

/** How long to wait before looking again at a namespace whose content is held by finalizers. */
export const namespaceRequeueMs = 1000;

export function startNamespaceController(deps: NamespaceControllerDeps): { stop(): void } {
  const namespaceType = deps.registry.resourceFor('', 'v1', 'namespaces')!;
  const namespaces = deps.storeFor(namespaceType);
  const running = new Set<string>();
  const stop = new AbortController();
  let unsubscribe: (() => void) | undefined;

  /** One store per storage prefix: resources served in several versions share their objects. */
  function namespacedStores(): Store[] {
    const byPrefix = new Map<string, Store>();
    for (const g of deps.registry.groups()) {
      for (const r of deps.registry.resourcesIn(g.name, g.preferredVersion)) {
        if (r.scope !== 'Namespaced' || r.createOnly || !r.verbs.includes('delete')) continue;
        const store = deps.storeFor(r);
        if (!byPrefix.has(store.prefix)) byPrefix.set(store.prefix, store);
      }
    }
    return [...byPrefix.values()];
  }

  /** Deletes what is left in the namespace; true when nothing is left. */
  async function deleteContent(namespace: string): Promise<boolean> {
    let remaining = 0;
    for (const store of namespacedStores()) {
      const listed = await store.list(namespace);
      for (const obj of listed.items) {
        remaining++;
        if (obj.metadata.deletionTimestamp) continue;
        try {
          await store.delete(namespace, obj.metadata.name!, { propagationPolicy: 'Background' });
        } catch {
          // Gone already, or changed underneath: the next pass sees it.
        }
      }
    }
    if (remaining === 0) return true;
    // Deleting may have removed everything that had no finalizers.
    for (const store of namespacedStores()) if ((await store.list(namespace, { limit: 1 })).items.length) return false;
    return true;
  }

  async function finalize(name: string): Promise<void> {
    if (running.has(name)) return;
    running.add(name);
    try {
      while (!stop.signal.aborted) {
        const current = await namespaces.getKv('', name);
        if (!current) return;
        const ns = namespaces.decode(current);
        if (!ns.metadata.deletionTimestamp || !holdsKubernetesFinalizer(ns)) return;
        if (await deleteContent(name)) {
          await namespaces.update('', name, (obj) => {
            if (!obj) return obj as unknown as KubeObject;
            const spec = isObject(obj['spec']) ? obj['spec'] : {};
            const finalizers = (Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : []).filter((f) => f !== 'kubernetes');
            return { ...obj, spec: { ...spec, finalizers } };
          }, { subresource: 'finalize' });
          return;
        }
        await deps.clock.sleep(namespaceRequeueMs, stop.signal);
      }
    } catch (e) {
      console.error(`kubesim: namespace controller: ${name}:`, e);
    } finally {
      running.delete(name);
    }
  }

  void (async () => {
    const listed = await namespaces.list('');
    for (const ns of listed.items) if (ns.metadata.deletionTimestamp) void finalize(ns.metadata.name!);
    if (stop.signal.aborted) return;
    unsubscribe = await deps.storage.watch(namespaces.prefix, listed.revision, (e) => {
      if (e.type !== 'PUT') return;
      const ns = namespaces.decode(e.kv);
      if (ns.metadata.deletionTimestamp && holdsKubernetesFinalizer(ns)) void finalize(ns.metadata.name!);
    });
    if (stop.signal.aborted) unsubscribe();
  })();

  return {
    stop() {
      stop.abort();
      unsubscribe?.();
    },
  };
}

function holdsKubernetesFinalizer(ns: KubeObject): boolean {
  const spec = isObject(ns['spec']) ? ns['spec'] : {};
  return Array.isArray(spec['finalizers']) && (spec['finalizers'] as string[]).includes('kubernetes');
}
