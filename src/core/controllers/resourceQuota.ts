/**
 * The resourcequota controller (pkg/controller/resourcequota): every
 * ResourceQuota's status.hard mirrors spec.hard and status.used is what its
 * namespace uses, recomputed when the quota is created or its spec changes,
 * when an object of a kind it counts gives usage back in its namespace
 * (replenishment: deletes, pods turning terminal, ...), and at every full
 * resync (5 minutes, as --resource-quota-sync-period). Admission charges
 * writes as they happen; the resync also gives back what a write refused
 * after admission (AlreadyExists) left charged, as in kube.
 */
import { isObject, type KubeObject } from '../api/types';
import { objectGone } from './controllerUtils';
import { StatusError } from '../errors';
import { calculateUsage, equals, evaluatorFor, mask, parseResourceList, podChargesCompute, resourceListJson, type GroupResource } from '../quota';
import type { Store } from '../registry/generic/store';
import type { StorageEvent } from '../storage/interface';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

/** --resource-quota-sync-period's default. */
export const resourceQuotaResyncMs = 5 * 60_000;

const registryRoot = '/registry/';

/** spec.hard's names, or [] for an unreadable value. */
function hardNamesOf(value: string): string[] {
  try {
    const q = JSON.parse(value) as KubeObject;
    return isObject(q['spec']) && isObject(q['spec']['hard']) ? Object.keys(q['spec']['hard']) : [];
  } catch {
    return [];
  }
}

/** The part of a quota whose change asks for a recount (spec), or undefined for an unreadable value. */
function specText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify((JSON.parse(value) as KubeObject)['spec'] ?? null);
  } catch {
    return undefined;
  }
}

/** The resource quota monitor's update filter: whether an update can lower what the object is charged. */
function releasesUsage(gr: GroupResource, before: string, after: string, now: Date): boolean {
  if (gr.group !== '' || (gr.resource !== 'pods' && gr.resource !== 'services' && gr.resource !== 'persistentvolumeclaims')) return false;
  let old: KubeObject;
  let cur: KubeObject;
  try {
    old = JSON.parse(before) as KubeObject;
    cur = JSON.parse(after) as KubeObject;
  } catch {
    return false;
  }
  const field = (o: KubeObject, part: string, key: string) => (isObject(o[part]) ? (o[part] as Record<string, unknown>)[key] : undefined);
  if (gr.resource === 'pods') return podChargesCompute(old, now) && !podChargesCompute(cur, now);
  if (gr.resource === 'services') return field(old, 'spec', 'type') !== field(cur, 'spec', 'type');
  return JSON.stringify(field(old, 'status', 'allocatedResources') ?? null) !== JSON.stringify(field(cur, 'status', 'allocatedResources') ?? null);
}

export function startResourceQuotaController(deps: NamespaceControllerDeps): RunningController {
  const quotas = deps.storeFor(deps.registry.resourceFor('', 'v1', 'resourcequotas')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  /** namespace -> quota name -> its hard resource names. */
  const byNamespace = new Map<string, Map<string, string[]>>();

  function storeOf(gr: GroupResource): Store | undefined {
    const version = gr.group === '' ? 'v1' : deps.registry.preferredVersion(gr.group);
    const type = version ? deps.registry.resourceFor(gr.group, version, gr.resource) : undefined;
    return type && type.scope === 'Namespaced' && type.verbs.includes('list') ? deps.storeFor(type) : undefined;
  }

  async function sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const kv = await quotas.getKv(namespace, name);
    if (!kv) return;
    const quota = quotas.decode(kv);
    const spec = isObject(quota['spec']) ? quota['spec'] : {};
    const status = isObject(quota['status']) ? quota['status'] : {};
    const hard = parseResourceList(spec['hard']);
    const hardNames = [...hard.keys()];
    // What admission charged stays for resources no evaluator recounts.
    const used = parseResourceList(status['used']);
    const recounted = await calculateUsage(quota, hardNames, async (gr, ns) => (await storeOf(gr)?.list(ns))?.items, deps.clock.now());
    for (const [k, v] of recounted) used.set(k, v);
    const newUsed = mask(used, hardNames);
    const oldHard = parseResourceList(status['hard']);
    const oldUsed = parseResourceList(status['used']);
    // Semantic equality: an absent map equals an empty one.
    if (equals(oldHard, hard) && equals(oldUsed, newUsed) && (isObject(status['hard']) || !hard.size) && (isObject(status['used']) || !newUsed.size)) return;
    try {
      await quotas.update(namespace, name, (cur) => {
        if (!cur) throw objectGone();
        // UpdateStatus with the resourceVersion read: a quota changed since (admission charged it) is recounted.
        cur.metadata.resourceVersion = quota.metadata.resourceVersion;
        // Empty lists are left out, as Go's omitempty does.
        return { ...cur, status: { ...(hard.size ? { hard: resourceListJson(hard) } : {}), ...(newUsed.size ? { used: resourceListJson(newUsed) } : {}) } };
      }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      if (e.code === 409) queue.add(key);
      else if (e.code !== 404) throw e;
    }
  }

  const queue = newWorkQueue('resourcequota-controller', sync);

  /** A quota written: indexed by namespace, and queued when new or its spec changed. */
  function onQuota(e: StorageEvent): void {
    const rest = e.kv.key.slice(quotas.prefix.length);
    const [namespace = '', name = ''] = rest.split('/');
    let inNamespace = byNamespace.get(namespace);
    if (e.type === 'DELETE') {
      inNamespace?.delete(name);
      if (inNamespace && !inNamespace.size) byNamespace.delete(namespace);
      return;
    }
    if (!inNamespace) byNamespace.set(namespace, (inNamespace = new Map()));
    inNamespace.set(name, hardNamesOf(e.kv.value));
    if (!e.prevKv || specText(e.prevKv.value) !== specText(e.kv.value)) queue.add(rest);
  }

  /**
   * Replenishment: a delete, or an update that gives usage back (a pod
   * turning terminal, a Service changing type, a claim's allocation
   * changing), recounts the quotas of its namespace that count its kind.
   * Creates and other updates were charged by admission: recounting them
   * would race with writes admission has charged and not yet stored.
   */
  function onObject(e: StorageEvent): void {
    const parts = e.kv.key.slice(registryRoot.length).split('/');
    // <group>/<resource>/<namespace>/<name>, or core's <resource>/<namespace>/<name>; a namespace without quotas ends it.
    const inNamespace = parts.length === 4 || parts.length === 3 ? byNamespace.get(parts[parts.length - 2]!) : undefined;
    if (!inNamespace) return;
    let gr: GroupResource;
    if (parts.length === 4) gr = { group: parts[0]!, resource: parts[1]! };
    else if (deps.registry.resourceFor('', 'v1', parts[0]!)?.scope === 'Namespaced') gr = { group: '', resource: parts[0]! };
    else return;
    const namespace = parts[parts.length - 2]!;
    if (e.type !== 'DELETE' && !(e.prevKv && releasesUsage(gr, e.prevKv.value, e.kv.value, deps.clock.now()))) return;
    const evaluator = evaluatorFor(gr);
    for (const [name, hardNames] of inNamespace) if (evaluator.matchingResources(hardNames).length) queue.add(`${namespace}/${name}`);
  }

  async function resync(): Promise<void> {
    while (!stopped.signal.aborted) {
      await deps.clock.sleep(resourceQuotaResyncMs, stopped.signal);
      if (stopped.signal.aborted) return;
      for (const [namespace, names] of byNamespace) for (const name of names.keys()) queue.add(`${namespace}/${name}`);
    }
  }

  const started = (async () => {
    const listed = await quotas.list('');
    if (stopped.signal.aborted) return;
    for (const q of listed.items) {
      const ns = q.metadata.namespace ?? '';
      if (!byNamespace.has(ns)) byNamespace.set(ns, new Map());
      byNamespace.get(ns)!.set(q.metadata.name!, isObject(q['spec']) && isObject(q['spec']['hard']) ? Object.keys(q['spec']['hard']) : []);
    }
    unsubscribes.push(await deps.storage.watch(quotas.prefix, listed.revision, onQuota));
    unsubscribes.push(await deps.storage.watch(registryRoot, listed.revision, onObject));
    for (const q of listed.items) queue.add(`${q.metadata.namespace}/${q.metadata.name}`);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
    void resync();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: resourcequota controller start:', e);
  });

  return {
    async idle() {
      await started;
      await queue.idle();
    },
    stop() {
      stopped.abort();
      queue.stop();
      for (const u of unsubscribes) u();
    },
  };
}
