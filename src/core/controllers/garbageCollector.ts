/**
 * The garbage collector (kube-controller-manager's pkg/controller/garbagecollector):
 * deletes objects whose every owner (metadata.ownerReferences, matched by uid)
 * is gone, and carries out the two deletion policies that need a controller:
 *
 * - Foreground: the owner is Terminating with the `foregroundDeletion`
 *   finalizer; its dependents are deleted, and the finalizer is removed once no
 *   dependent holding `blockOwnerDeletion: true` is left.
 * - Orphan: the owner is Terminating with the `orphan` finalizer; its
 *   reference is removed from every dependent, then the finalizer.
 *
 * Background deletion needs nothing more: the owner is removed at once and its
 * dependents are collected when its DELETE event arrives.
 *
 * Like the upstream graph builder it keeps an in-memory dependency graph fed
 * by one watch on every resource (`/registry/`), and like its workers it
 * decides from live reads, so a graph that lags behind storage never makes it
 * delete something that still has an owner.
 */
import { isObject, type KubeObject, type OwnerReference } from '../api/types';
import { isConflict, isNotFound } from '../errors';
import { storedObjectHead, type DeleteOptions, type Store } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { KeyValue, Storage, StorageEvent } from '../storage/interface';
import type { Clock } from '../util/clock';

export interface GarbageCollectorDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  storeFor(type: ResourceType): Store;
}

export const foregroundDeletionFinalizer = 'foregroundDeletion';
export const orphanFinalizer = 'orphan';

/** The storage prefix every resource lives under. */
const registryPrefix = '/registry/';
/** Delay before retrying an item whose processing failed for another reason than a race. */
export const garbageCollectorRetryMs = 1000;
/** Attempts at one item before it is dropped until its next event. */
const maxRetries = 5;

/** What the graph remembers of one stored object. */
interface GraphNode {
  key: string;
  uid: string;
  kind: string;
  name: string;
  namespace: string;
  owners: OwnerReference[];
  beingDeleted: boolean;
  finalizers: string[];
}

function isDeletingDependents(node: GraphNode): boolean {
  return node.beingDeleted && node.finalizers.includes(foregroundDeletionFinalizer);
}

/** The graph node for a stored value; undefined for values that are not objects with a uid. */
function nodeFrom(kv: KeyValue): GraphNode | undefined {
  // Most writes carry no owners, finalizers or deletion: read their identity off the stored text without parsing.
  if (!/"(ownerReferences|finalizers|deletionTimestamp)"/.test(kv.value)) {
    const head = storedObjectHead(kv.value);
    if (head) {
      if (!head.uid) return undefined;
      return { key: kv.key, uid: head.uid, kind: head.kind, name: head.name ?? '', namespace: head.namespace ?? '', owners: [], beingDeleted: false, finalizers: [] };
    }
  }
  let obj: unknown;
  try {
    obj = JSON.parse(kv.value);
  } catch {
    return undefined;
  }
  if (!isObject(obj) || !isObject(obj['metadata'])) return undefined;
  const meta = obj['metadata'] as KubeObject['metadata'];
  if (typeof meta.uid !== 'string' || !meta.uid) return undefined;
  const owners = Array.isArray(meta.ownerReferences)
    ? meta.ownerReferences.filter((r): r is OwnerReference => isObject(r) && typeof r.uid === 'string' && r.uid !== '')
    : [];
  return {
    key: kv.key,
    uid: meta.uid,
    kind: typeof obj['kind'] === 'string' ? obj['kind'] : '',
    name: meta.name ?? '',
    namespace: meta.namespace ?? '',
    owners,
    beingDeleted: !!meta.deletionTimestamp,
    finalizers: Array.isArray(meta.finalizers) ? meta.finalizers.filter((f): f is string => typeof f === 'string') : [],
  };
}

function sameOwners(a: OwnerReference[], b: OwnerReference[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((r, i) => {
    const o = b[i]!;
    return r.uid === o.uid && r.name === o.name && r.kind === o.kind && r.apiVersion === o.apiVersion && !!r.blockOwnerDeletion === !!o.blockOwnerDeletion;
  });
}

/** Thrown from an update function when the object it meant to change is gone or was replaced. */
class ObjectReplaced extends Error {}

/** How an owner reference resolves, as the upstream collector classifies it. */
type OwnerState = 'solid' | 'dangling' | 'waitingForDependentsDeletion' | 'unresolvable';

/**
 * A work queue keyed by item: an item added while queued runs once; one added
 * while running runs again afterwards (client-go's workqueue dirty set).
 */
class WorkQueue {
  private readonly queued = new Map<string, () => Promise<void>>();
  private readonly dirty = new Map<string, () => Promise<void>>();
  private readonly running = new Set<string>();

  constructor(private readonly stopped: () => boolean) {}

  add(id: string, work: () => Promise<void>): void {
    if (this.stopped()) return;
    if (this.running.has(id)) {
      this.dirty.set(id, work);
      return;
    }
    const wasQueued = this.queued.has(id);
    this.queued.set(id, work);
    if (!wasQueued) queueMicrotask(() => void this.run(id));
  }

  private async run(id: string): Promise<void> {
    const work = this.queued.get(id);
    this.queued.delete(id);
    if (!work || this.stopped()) return;
    this.running.add(id);
    try {
      await work();
    } catch (e) {
      console.error(`kubesim: garbage collector: ${id}:`, e);
    } finally {
      this.running.delete(id);
      const again = this.dirty.get(id);
      this.dirty.delete(id);
      if (again) this.add(id, again);
    }
  }
}

export function startGarbageCollector(deps: GarbageCollectorDeps): { stop(): void } {
  const { storage, registry } = deps;
  const stop = new AbortController();
  let unsubscribe: (() => void) | undefined;
  const queue = new WorkQueue(() => stop.signal.aborted);

  // The dependency graph: objects by storage key, keys by uid, and the keys of
  // the objects that name a uid as owner (kept while the owner is gone, so
  // dependents can be found when they are the ones that change).
  const nodes = new Map<string, GraphNode>();
  const keyByUid = new Map<string, string>();
  const dependents = new Map<string, Set<string>>();

  // ---------------------------------------------------------------------------
  // Resource lookups.

  let storesGeneration = -1;
  let storesByPrefix = new Map<string, Store>();

  /** One store per storage prefix (resources served in several versions share their objects). */
  function stores(): Map<string, Store> {
    if (storesGeneration === registry.generation) return storesByPrefix;
    const byPrefix = new Map<string, Store>();
    for (const g of registry.groups()) {
      for (const v of g.versions) {
        for (const r of registry.resourcesIn(g.name, v)) {
          if (r.createOnly) continue;
          const store = deps.storeFor(r);
          if (!byPrefix.has(store.prefix)) byPrefix.set(store.prefix, store);
        }
      }
    }
    storesByPrefix = byPrefix;
    storesGeneration = registry.generation;
    return byPrefix;
  }

  /** The store an object's key belongs to: /registry/<group>/<resource>/... or /registry/<resource>/... */
  function storeForKey(key: string): Store | undefined {
    const parts = key.slice(registryPrefix.length).split('/');
    const byPrefix = stores();
    if (parts.length >= 3) {
      const grouped = byPrefix.get(`${registryPrefix}${parts[0]}/${parts[1]}/`);
      if (grouped) return grouped;
    }
    return byPrefix.get(`${registryPrefix}${parts[0]}/`);
  }

  /** The store of an owner reference's kind; its version need not be the one served. */
  function storeForOwner(ref: OwnerReference): Store | undefined {
    if (typeof ref.apiVersion !== 'string' || typeof ref.kind !== 'string') return undefined;
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const version = slash < 0 ? ref.apiVersion : ref.apiVersion.slice(slash + 1);
    let type = registry.kindFor(group, version, ref.kind);
    for (const v of registry.group(group)?.versions ?? []) {
      if (type) break;
      type = registry.kindFor(group, v, ref.kind);
    }
    return type && !type.createOnly ? deps.storeFor(type) : undefined;
  }

  // ---------------------------------------------------------------------------
  // The graph.

  function addToGraph(node: GraphNode): void {
    nodes.set(node.key, node);
    keyByUid.set(node.uid, node.key);
    for (const ref of node.owners) {
      let set = dependents.get(ref.uid);
      if (!set) dependents.set(ref.uid, (set = new Set()));
      set.add(node.key);
    }
  }

  function removeFromGraph(node: GraphNode): void {
    nodes.delete(node.key);
    if (keyByUid.get(node.uid) === node.key) keyByUid.delete(node.uid);
    for (const ref of node.owners) {
      const set = dependents.get(ref.uid);
      set?.delete(node.key);
      if (set?.size === 0) dependents.delete(ref.uid);
    }
  }

  function ownerNode(uid: string): GraphNode | undefined {
    const key = keyByUid.get(uid);
    return key === undefined ? undefined : nodes.get(key);
  }

  /** Dependents of an owner uid that still name it in the graph. */
  function dependentsOf(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const key of dependents.get(uid) ?? []) {
      const node = nodes.get(key);
      if (node && node.owners.some((r) => r.uid === uid)) out.push(node);
    }
    return out;
  }

  /**
   * Whether a dependent may need collecting: some owner is not in the graph
   * as named, or is deleting its dependents. Cheap, from the graph only; the
   * work item re-checks against storage.
   */
  function needsAttempt(node: GraphNode): boolean {
    if (node.beingDeleted) return false;
    return node.owners.some((ref) => {
      const owner = ownerNode(ref.uid);
      if (!owner || owner.name !== ref.name || owner.kind !== ref.kind) return true;
      if (owner.namespace && owner.namespace !== node.namespace) return true;
      return isDeletingDependents(owner);
    });
  }

  /** Queues the processing an object's own state asks for. */
  function enqueueFor(node: GraphNode): void {
    if (!node.beingDeleted) {
      if (node.owners.length && needsAttempt(node)) enqueueAttempt(node.key);
      return;
    }
    if (node.finalizers.includes(orphanFinalizer)) enqueueOrphan(node.key);
    if (node.finalizers.includes(foregroundDeletionFinalizer)) enqueueForeground(node.key);
  }

  /** Owners deleting their dependents look again when one of those changes or goes. */
  function enqueueOwnersWaiting(refs: Iterable<OwnerReference>): void {
    for (const ref of refs) {
      const owner = ownerNode(ref.uid);
      if (owner && isDeletingDependents(owner)) enqueueForeground(owner.key);
    }
  }

  function onEvent(e: StorageEvent): void {
    try {
      const key = e.kv.key;
      const prev = nodes.get(key);
      if (e.type === 'DELETE') {
        if (!prev) return;
        removeFromGraph(prev);
        // The owner is gone: each dependent is collected if no other owner remains.
        for (const dep of dependentsOf(prev.uid)) enqueueAttempt(dep.key);
        enqueueOwnersWaiting(prev.owners);
        return;
      }
      const node = nodeFrom(e.kv);
      if (prev) removeFromGraph(prev);
      if (!node) return;
      addToGraph(node);
      if (prev && prev.uid !== node.uid) {
        // A delete and re-create we saw as one write: the old object's dependents lost their owner.
        for (const dep of dependentsOf(prev.uid)) enqueueAttempt(dep.key);
      }
      const ownersChanged = !prev || prev.uid !== node.uid || !sameOwners(prev.owners, node.owners);
      if (ownersChanged) enqueueOwnersWaiting([...(prev?.owners ?? []), ...node.owners]);
      else if (prev && !prev.beingDeleted && node.beingDeleted) enqueueOwnersWaiting(node.owners);
      if (ownersChanged || node.beingDeleted) enqueueFor(node);
    } catch (err) {
      console.error('kubesim: garbage collector: event', err);
    }
  }

  // ---------------------------------------------------------------------------
  // Work items.

  function enqueueAttempt(key: string): void {
    queue.add(`attemptToDelete ${key}`, () => withRetries(() => attemptToDelete(key)));
  }

  function enqueueForeground(key: string): void {
    queue.add(`deleteDependents ${key}`, () => withRetries(() => processDeletingDependents(key)));
  }

  function enqueueOrphan(key: string): void {
    queue.add(`orphanDependents ${key}`, () => withRetries(() => orphanDependents(key)));
  }

  /**
   * Runs one work item. Races (the object changed or went away underneath) end
   * it quietly, or retry at once on a conflict; other failures retry after a
   * delay, a bounded number of times.
   */
  async function withRetries(work: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await work();
        return;
      } catch (e) {
        if (stop.signal.aborted || e instanceof ObjectReplaced || isNotFound(e)) return;
        if (isConflict(e) && attempt < maxRetries) continue;
        if (attempt >= maxRetries) {
          console.error('kubesim: garbage collector: giving up on an item until its next change:', e);
          return;
        }
        console.error('kubesim: garbage collector: retrying:', e);
        await deps.clock.sleep(garbageCollectorRetryMs * 2 ** attempt, stop.signal);
        if (stop.signal.aborted) return;
      }
    }
  }

  /** Reads an object by key, live. */
  async function read(key: string): Promise<{ store: Store; obj: KubeObject } | undefined> {
    const store = storeForKey(key);
    if (!store) return undefined;
    const kv = await storage.get(key);
    return kv ? { store, obj: store.decode(kv) } : undefined;
  }

  /** Classifies one owner reference of a dependent by reading the owner. */
  async function ownerState(dependent: KubeObject, ref: OwnerReference): Promise<OwnerState> {
    const store = storeForOwner(ref);
    if (!store) return 'unresolvable';
    const namespace = dependent.metadata.namespace ?? '';
    // A cluster-scoped object cannot be owned by a namespaced one: the reference never resolves.
    if (store.namespaced && !namespace) return 'unresolvable';
    // A namespaced owner is looked for in the dependent's namespace only.
    const kv = await store.getKv(namespace, ref.name);
    if (!kv) return 'dangling';
    const owner = store.decode(kv);
    if (owner.metadata.uid !== ref.uid) return 'dangling';
    if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(foregroundDeletionFinalizer)) {
      return 'waitingForDependentsDeletion';
    }
    return 'solid';
  }

  /** Changes one object, failing with ObjectReplaced when it is gone or has another uid. */
  async function updateObject(store: Store, obj: KubeObject, change: (current: KubeObject) => KubeObject): Promise<void> {
    const uid = obj.metadata.uid;
    await store.update(obj.metadata.namespace ?? '', obj.metadata.name!, (current) => {
      if (!current || current.metadata.uid !== uid) throw new ObjectReplaced();
      return change(current);
    });
  }

  async function removeFinalizer(store: Store, obj: KubeObject, finalizer: string): Promise<void> {
    await updateObject(store, obj, (current) => {
      current.metadata.finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      return current;
    });
  }

  /** Deletes the object read, not one re-created under its name since (a uid precondition; its conflict retries on what is there now). */
  async function deleteObject(store: Store, obj: KubeObject, propagationPolicy: DeleteOptions['propagationPolicy']): Promise<void> {
    await store.delete(obj.metadata.namespace ?? '', obj.metadata.name!, { propagationPolicy, preconditions: { uid: obj.metadata.uid } });
  }

  /**
   * attemptToDeleteItem: a dependent is deleted when none of its owners
   * remains; references to owners that are gone, or that wait for their
   * dependents, are dropped when a live owner remains.
   */
  async function attemptToDelete(key: string): Promise<void> {
    const current = await read(key);
    if (!current) return;
    const { store, obj } = current;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      // Already being deleted; one deleting its own dependents is handled as an owner.
      if ((meta.finalizers ?? []).includes(foregroundDeletionFinalizer)) enqueueForeground(key);
      return;
    }
    const refs = (meta.ownerReferences ?? []).filter((r) => isObject(r) && typeof r.uid === 'string' && r.uid !== '');
    if (!refs.length) return;

    const solid: OwnerReference[] = [];
    const gone = new Set<string>();
    let waiting = false;
    for (const ref of refs) {
      const state = await ownerState(obj, ref);
      // An owner that cannot be looked up (unknown kind, invalid scope) keeps the dependent.
      if (state === 'unresolvable') return;
      if (state === 'solid') solid.push(ref);
      else {
        gone.add(ref.uid);
        if (state === 'waitingForDependentsDeletion') waiting = true;
      }
    }

    if (solid.length) {
      if (!gone.size) return;
      await updateObject(store, obj, (cur) => {
        cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => !gone.has(r.uid));
        if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
        return cur;
      });
      return;
    }

    const own = meta.uid ? dependentsOf(meta.uid) : [];
    if (waiting && own.length) {
      // An owner waits for this object, which has dependents of its own: delete in the
      // foreground too. If one of those already waits on its dependents, this object's
      // references stop blocking, so a cycle of foreground deletions cannot deadlock.
      if (own.some(isDeletingDependents) && refs.some((r) => r.blockOwnerDeletion)) {
        await updateObject(store, obj, (cur) => {
          cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
          return cur;
        });
      }
      await deleteObject(store, obj, 'Foreground');
      return;
    }
    // No owner left: honour a policy the object already asks for, otherwise Background.
    const finalizers = meta.finalizers ?? [];
    const policy = finalizers.includes(orphanFinalizer) ? 'Orphan' : finalizers.includes(foregroundDeletionFinalizer) ? 'Foreground' : 'Background';
    await deleteObject(store, obj, policy);
  }

  /**
   * processDeletingDependentsItem: an owner in foreground deletion has its
   * dependents deleted and keeps its finalizer while any that block it remain.
   */
  async function processDeletingDependents(key: string): Promise<void> {
    const current = await read(key);
    if (!current) return;
    const { store, obj } = current;
    const uid = obj.metadata.uid;
    if (!uid || !obj.metadata.deletionTimestamp || !(obj.metadata.finalizers ?? []).includes(foregroundDeletionFinalizer)) return;
    let blocked = false;
    for (const dep of dependentsOf(uid)) {
      if (dep.owners.some((r) => r.uid === uid && r.blockOwnerDeletion)) blocked = true;
      if (!dep.beingDeleted) enqueueAttempt(dep.key);
    }
    if (blocked) return;
    await removeFinalizer(store, obj, foregroundDeletionFinalizer);
  }

  /** orphanDependents: dependents lose their reference to the owner, then the owner its finalizer. */
  async function orphanDependents(key: string): Promise<void> {
    const current = await read(key);
    if (!current) return;
    const { store, obj } = current;
    const uid = obj.metadata.uid;
    if (!uid || !obj.metadata.deletionTimestamp || !(obj.metadata.finalizers ?? []).includes(orphanFinalizer)) return;
    for (const dep of dependentsOf(uid)) {
      const depStore = storeForKey(dep.key);
      if (!depStore) continue;
      try {
        await depStore.update(dep.namespace, dep.name, (cur) => {
          if (!cur) throw new ObjectReplaced();
          const refs = cur.metadata.ownerReferences ?? [];
          const kept = refs.filter((r) => r.uid !== uid);
          if (kept.length === refs.length) return cur;
          if (kept.length) cur.metadata.ownerReferences = kept;
          else delete cur.metadata.ownerReferences;
          return cur;
        });
      } catch (e) {
        if (!(e instanceof ObjectReplaced) && !isNotFound(e)) throw e;
      }
    }
    await removeFinalizer(store, obj, orphanFinalizer);
  }

  // ---------------------------------------------------------------------------
  // Start: list everything, then follow from the listed revision.

  void (async () => {
    try {
      const listed = await storage.range(registryPrefix);
      if (stop.signal.aborted) return;
      for (const kv of listed.kvs) {
        const node = nodeFrom(kv);
        if (node) addToGraph(node);
      }
      // Work left over from before the start: dangling dependents, owners mid-deletion.
      for (const node of nodes.values()) enqueueFor(node);
      const off = await storage.watch(registryPrefix, listed.revision, onEvent);
      if (stop.signal.aborted) off();
      else unsubscribe = off;
    } catch (e) {
      console.error('kubesim: garbage collector: start:', e);
    }
  })();

  return {
    stop() {
      stop.abort();
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
