/**
 * The namespace lifecycle controller: when a namespace is marked for deletion
 * (phase Terminating, spec.finalizers holding "kubernetes"), it deletes every
 * namespaced object in it, waits for those held by finalizers, then removes
 * its own finalizer through the finalize sub-resource, which removes the
 * namespace. Each pass reports in status.conditions what remains, as the
 * upstream namespace deleter does (NamespaceContentRemaining,
 * NamespaceFinalizersRemaining and their ok variants). It is fed by a storage watch, like an informer.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
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

  /** Deletes what is left in the namespace and counts what remains, by resource and by finalizer. */
  async function deleteContent(namespace: string): Promise<Remaining> {
    const stores = namespacedStores();
    const remaining: Remaining = { resources: new Map(), finalizers: new Map(), errors: [] };
    const failed = new Set<Store>();
    for (const store of stores) {
      let listed;
      try {
        listed = await store.list(namespace);
      } catch (e) {
        // An object storage cannot read (or another read failure): reported, and looked at again next pass.
        remaining.errors.push(e instanceof Error ? e.message : String(e));
        failed.add(store);
        continue;
      }
      for (const obj of listed.items) {
        if (obj.metadata.deletionTimestamp) continue;
        try {
          await store.delete(namespace, obj.metadata.name!, { propagationPolicy: 'Background' });
        } catch {
          // Gone already, or changed underneath: the next pass sees it.
        }
      }
    }
    for (const store of stores) {
      if (failed.has(store)) continue;
      const left = (await store.list(namespace)).items;
      if (!left.length) continue;
      remaining.resources.set(`${store.type.resource}.${store.type.group}`, left.length);
      for (const obj of left) for (const f of obj.metadata.finalizers ?? []) remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
    }
    return remaining;
  }

  /** namespaceConditionUpdater: the five deletion conditions, the ok variant unless content remains. */
  async function reportConditions(name: string, remaining: Remaining): Promise<void> {
    const now = formatTime(deps.clock.now());
    const failing = new Map<string, NamespaceCondition>();
    const list = (m: Map<string, number>, text: (k: string, n: number) => string) => [...m].filter(([, n]) => n > 0).map(([k, n]) => text(k, n)).sort().join(', ');
    if (remaining.errors.length) {
      const aggregate = remaining.errors.length === 1 ? remaining.errors[0] : `[${remaining.errors.join(', ')}]`;
      failing.set('NamespaceDeletionContentFailure', { type: 'NamespaceDeletionContentFailure', status: 'True', lastTransitionTime: now, reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${remaining.errors.length} remaining: ${aggregate}` });
    }
    if (remaining.resources.size) {
      failing.set('NamespaceContentRemaining', { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${list(remaining.resources, (k, n) => `${k} has ${n} resource instances`)}` });
    }
    if (remaining.finalizers.size) {
      failing.set('NamespaceFinalizersRemaining', { type: 'NamespaceFinalizersRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${list(remaining.finalizers, (k, n) => `${k} in ${n} resource instances`)}` });
    }
    await namespaces.update('', name, (ns) => {
      if (!ns) throw new Error('namespace gone');
      const status = isObject(ns['status']) ? ns['status'] : {};
      const old = (Array.isArray(status['conditions']) ? status['conditions'] : []) as NamespaceCondition[];
      status['conditions'] = conditionTypes.map(([type, reason, message]) => {
        const next = failing.get(type) ?? { type, status: 'False', lastTransitionTime: now, reason, message };
        const prev = old.find((c) => c.type === type);
        return prev && prev.status === next.status && prev.message === next.message ? prev : next;
      });
      ns['status'] = status;
      return ns;
    }, { subresource: 'status' });
  }

  /** Namespaces waiting on their content, woken by any write in them (a finalizer removed, an object gone). */
  const wakers = new Map<string, () => void>();

  /** Waits for a write inside the namespace, or the requeue delay on the server clock. */
  async function contentChangeOrRequeue(name: string): Promise<void> {
    const done = new AbortController();
    const abort = () => done.abort();
    stop.signal.addEventListener('abort', abort, { once: true });
    wakers.set(name, abort);
    try {
      await deps.clock.sleep(namespaceRequeueMs, done.signal);
    } finally {
      wakers.delete(name);
      stop.signal.removeEventListener('abort', abort);
      done.abort();
    }
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
        const remaining = await deleteContent(name);
        await reportConditions(name, remaining);
        if (!remaining.resources.size && !remaining.errors.length) {
          await namespaces.update('', name, (obj) => {
            if (!obj) return obj as unknown as KubeObject;
            const spec = isObject(obj['spec']) ? obj['spec'] : {};
            const finalizers = (Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : []).filter((f) => f !== 'kubernetes');
            return { ...obj, spec: { ...spec, finalizers } };
          }, { subresource: 'finalize' });
          return;
        }
        await contentChangeOrRequeue(name);
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
    if (stop.signal.aborted) return unsubscribe();
    const contentWatch = await deps.storage.watch('/registry/', listed.revision, (e) => {
      for (const [ns, wake] of wakers) if (e.kv.key.includes(`/${ns}/`)) wake();
    });
    const namespacesWatch = unsubscribe;
    unsubscribe = () => {
      namespacesWatch();
      contentWatch();
    };
    if (stop.signal.aborted) unsubscribe();
  })();

  return {
    stop() {
      stop.abort();
      unsubscribe?.();
    },
  };
}

interface Remaining {
  /** `resource.group` -> objects left. */
  resources: Map<string, number>;
  /** finalizer -> objects left carrying it. */
  finalizers: Map<string, number>;
  /** Why some resources could not be listed or deleted. */
  errors: string[];
}

interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The conditions the namespace deleter maintains, in its order, with their ok reason and message. */
const conditionTypes: [string, string, string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

function holdsKubernetesFinalizer(ns: KubeObject): boolean {
  const spec = isObject(ns['spec']) ? ns['spec'] : {};
  return Array.isArray(spec['finalizers']) && (spec['finalizers'] as string[]).includes('kubernetes');
}
