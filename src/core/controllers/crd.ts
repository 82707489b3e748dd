/**
 * The CustomResourceDefinition controllers of apiextensions-apiserver, as one
 * level-triggered loop: naming (NamesAccepted, conflicts with the other CRDs
 * of the group), establishing (Established), serving (the registry gains and
 * loses the CRD's resource types, so discovery, OpenAPI and the handlers
 * follow) and finalizing (a deleted CRD's objects are removed, then its
 * customresourcecleanup finalizer).
 *
 * `sync()` reconciles every CRD; the API server awaits it after each CRD
 * write so the resource is served within the request that created it, and at
 * start so stored CRDs are served again. A storage watch catches writes made
 * by another server over the same storage.
 */
import { formatTime, type KubeObject } from '../api/types';
import {
  CRD_GROUP,
  CRD_RESOURCE,
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionNames,
  type CustomResourceDefinitionStatus,
} from '../apiextensions/types';
import { customResourceInfo, servedVersions, storageVersionHash, storageVersionOf } from '../apiextensions/resources';
import { jsonEqual } from '../api/equality';
import type { Store } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import type { Clock } from '../util/clock';

/** How long to wait before looking again at a CRD whose objects are held by finalizers. */
export const crdRequeueMs = 1000;

export interface CrdControllerDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  storeFor(type: ResourceType): Store;
}

export interface CrdController {
  /** Reconciles every CRD; resolves when done (never rejects). */
  sync(): Promise<void>;
  /** Starts watching CRD storage for writes made elsewhere. */
  start(): Promise<void>;
  stop(): void;
}

/** What the CRD asks for, with kube's defaults (singular = lower-case kind, listKind = kind + "List"). */
export function requestedNames(crd: CustomResourceDefinition): CustomResourceDefinitionNames {
  const n = crd.spec.names;
  const out: CustomResourceDefinitionNames = { plural: n.plural, singular: n.singular || n.kind.toLowerCase(), kind: n.kind, listKind: n.listKind || `${n.kind}List` };
  if (n.shortNames?.length) out.shortNames = [...n.shortNames];
  if (n.categories?.length) out.categories = [...n.categories];
  return out;
}

interface NamingResult {
  accepted: Partial<CustomResourceDefinitionNames>;
  condition: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;
}

/** The naming controller's verdict for one CRD given the names the group's other CRDs hold (calculateNamesAndConditions). */
export function calculateNames(crd: CustomResourceDefinition, others: Partial<CustomResourceDefinitionNames>[]): NamingResult {
  const requested = requestedNames(crd);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    for (const r of [o.plural, o.singular, ...(o.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [o.kind, o.listKind]) if (k) kinds.add(k);
  }
  const conflict = (reason: string, name: string): NamingResult['condition'] => ({ type: 'NamesAccepted', status: 'False', reason, message: `${JSON.stringify(name)} is already in use` });
  let condition: NamingResult['condition'] | undefined;
  if (resources.has(requested.plural)) condition = conflict('PluralConflict', requested.plural);
  else if (resources.has(requested.singular!)) condition = conflict('SingularConflict', requested.singular!);
  else {
    const short = (requested.shortNames ?? []).find((s) => resources.has(s));
    if (short !== undefined) condition = conflict('ShortNamesConflict', short);
    else if (kinds.has(requested.kind)) condition = conflict('KindConflict', requested.kind);
    else if (kinds.has(requested.listKind!)) condition = conflict('ListKindConflict', requested.listKind!);
  }
  if (condition) return { accepted: crd.status?.acceptedNames ?? { plural: '', kind: '' }, condition };
  return { accepted: requested, condition: { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' } };
}

/** Sets a condition, keeping lastTransitionTime when the status does not change (SetCRDCondition). */
export function setCondition(status: CustomResourceDefinitionStatus, c: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>, now: string): void {
  const conditions = status.conditions ?? [];
  const existing = conditions.find((x) => x.type === c.type);
  if (!existing) {
    conditions.push({ type: c.type, status: c.status, lastTransitionTime: now, reason: c.reason, message: c.message });
  } else {
    if (existing.status !== c.status) existing.lastTransitionTime = now;
    existing.status = c.status;
    existing.reason = c.reason;
    existing.message = c.message;
  }
  status.conditions = conditions;
}

export function conditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return !!crd.status?.conditions?.some((c) => c.type === type && c.status === 'True');
}

const byAge = (a: KubeObject, b: KubeObject): number => {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
};

export function createCrdController(deps: CrdControllerDeps): CrdController {
  const crdType = deps.registry.resourceFor(CRD_GROUP, 'v1', CRD_RESOURCE);
  /** CRD name -> the resource types registered for it, and what they were built from (spec, accepted names, termination). */
  const registered = new Map<string, { source: string; storage: string; types: ResourceType[] }>();
  const hashes = new Map<string, string>();
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  let stopped = false;
  const abort = new AbortController();
  let requeued = false;

  /** Looks again later at a CRD whose objects are held by finalizers (kube's finalizer controller requeues). */
  function requeue(): void {
    if (requeued || stopped) return;
    requeued = true;
    deps.clock.sleep(crdRequeueMs, abort.signal).then(() => {
      requeued = false;
      return sync();
    }, () => undefined);
  }

  async function hashFor(crd: CustomResourceDefinition): Promise<string> {
    const key = `${crd.spec.group}/${storageVersionOf(crd)}/${crd.spec.names.kind}`;
    let h = hashes.get(key);
    if (!h) {
      h = await storageVersionHash(crd.spec.group, storageVersionOf(crd), crd.spec.names.kind);
      hashes.set(key, h);
    }
    return h;
  }

  /** Withdraws a CRD's resource types; their watches end unless `keepWatches` (the next registration takes them over). */
  function unregister(name: string, keepWatches = false): void {
    const r = registered.get(name);
    if (!r) return;
    for (const t of r.types) {
      // Only remove what is still ours (another CRD may have taken the slot since).
      if (deps.registry.knownResource(t.group, t.version, t.resource) === t) deps.registry.removeResource(t.group, t.version, t.resource);
      if (!keepWatches) customResourceInfo(t)?.withdrawn.abort();
    }
    registered.delete(name);
  }

  async function register(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name!;
    const current = registered.get(name);
    // Condition-only status writes keep the registration (and its watches), as kube keeps the CRD's storage.
    const terminating = conditionTrue(crd, 'Terminating');
    const storage = JSON.stringify([crd.spec, crd.status?.acceptedNames]);
    const source = JSON.stringify([storage, terminating]);
    if (current && current.source === source) return;
    const served = servedVersions(crd, await hashFor(crd));
    // Only a change of spec or accepted names replaces the storage (and ends watches); termination alone does not.
    const sameStorage = current?.storage === storage;
    if (sameStorage) {
      for (const v of served) {
        const previous = current!.types.find((t) => t.version === v.type.version);
        const info = customResourceInfo(v.type);
        const old = previous && customResourceInfo(previous);
        if (info && old) info.withdrawn = old.withdrawn;
      }
    }
    unregister(name, sameStorage);
    for (const v of served) deps.registry.addResource(v.type, v.definitions);
    registered.set(name, { source, storage, types: served.map((v) => v.type) });
  }

  async function writeStatus(store: Store, crd: CustomResourceDefinition, status: CustomResourceDefinitionStatus): Promise<CustomResourceDefinition> {
    const result = await store.update('', crd.metadata.name!, (current) => {
      if (!current) return current as unknown as KubeObject;
      return { ...current, status };
    }, { subresource: 'status' });
    return result.object as CustomResourceDefinition;
  }

  /** Deletes the CRD's objects; true when none is left. */
  async function deleteInstances(crd: CustomResourceDefinition): Promise<boolean> {
    const type = registered.get(crd.metadata.name!)?.types[0];
    if (!type) return true;
    const store = deps.storeFor(type);
    const listed = await store.list('');
    for (const obj of listed.items) {
      if (obj.metadata.deletionTimestamp) continue;
      try {
        await store.delete(obj.metadata.namespace ?? '', obj.metadata.name!, { propagationPolicy: 'Background' });
      } catch {
        // Gone already, or changed underneath: the next pass sees it.
      }
    }
    return (await store.list('', { limit: 1 })).items.length === 0;
  }

  async function finalize(store: Store, crd: CustomResourceDefinition): Promise<boolean> {
    const now = formatTime(deps.clock.now());
    const status = structuredClone(crd.status ?? {});
    setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, now);
    if (!jsonEqual(status, crd.status ?? {})) crd = await writeStatus(store, crd, status);
    if (!(await deleteInstances(crd))) return false;
    const done = structuredClone(crd.status ?? {});
    setCondition(done, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, now);
    crd = await writeStatus(store, crd, done);
    unregister(crd.metadata.name!);
    await store.update('', crd.metadata.name!, (current) => {
      if (!current) return current as unknown as KubeObject;
      const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
      const { finalizers: _old, ...metadata } = current.metadata;
      return { ...current, metadata: finalizers.length ? { ...metadata, finalizers } : metadata };
    });
    return true;
  }

  async function reconcile(): Promise<void> {
    if (!crdType) return;
    const store = deps.storeFor(crdType);
    const crds = (await store.list('')).items as CustomResourceDefinition[];
    crds.sort(byAge);
    const seen = new Set<string>();
    for (let i = 0; i < crds.length; i++) {
      let crd = crds[i]!;
      const name = crd.metadata.name!;
      seen.add(name);
      try {
        if (!crd.metadata.deletionTimestamp) {
          const others = crds.filter((o, j) => j !== i && o.spec.group === crd.spec.group && !o.metadata.deletionTimestamp).map((o) => o.status?.acceptedNames ?? {});
          const naming = calculateNames(crd, others);
          const now = formatTime(deps.clock.now());
          const status = structuredClone(crd.status ?? {});
          status.acceptedNames = naming.accepted;
          setCondition(status, naming.condition, now);
          if (naming.condition.status === 'True') {
            setCondition(status, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
          } else if (!conditionTrue(crd, 'Established')) {
            setCondition(status, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
          }
          if (!jsonEqual(status, crd.status ?? {})) {
            crd = await writeStatus(store, crd, status);
            crds[i] = crd;
          }
        }
        if (conditionTrue(crd, 'Established')) await register(crd);
        else unregister(name);
        if (crd.metadata.deletionTimestamp && crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
          if (!(await finalize(store, crd))) requeue();
        }
      } catch (e) {
        if (!stopped) console.error(`kubesim: crd controller: ${name}:`, e);
      }
    }
    for (const name of [...registered.keys()]) if (!seen.has(name)) unregister(name);
  }

  function sync(): Promise<void> {
    if (queued) return queued;
    const p = tail.then(() => {
      queued = undefined;
      return reconcile();
    }).catch((e: unknown) => {
      if (!stopped) console.error('kubesim: crd controller:', e);
    });
    queued = p;
    tail = p;
    return p;
  }

  return {
    sync,
    async start() {
      if (!crdType) return;
      const store = deps.storeFor(crdType);
      const revision = (await store.list('', { limit: 1 })).revision;
      await sync();
      if (stopped) return;
      unsubscribe = await deps.storage.watch(store.prefix, revision, () => void sync());
      if (stopped) unsubscribe();
    },
    stop() {
      stopped = true;
      abort.abort();
      unsubscribe?.();
    },
  };
}
