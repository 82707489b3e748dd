/**
 * The ResourceQuota admission plugin
 * (k8s.io/apiserver/pkg/admission/plugin/resourcequota): a create, or an
 * update that can change usage, is checked against every quota of its
 * namespace that covers it (its scopes match, it limits something the
 * object uses). A pod a compute quota covers must say how much it wants;
 * a quota the controller has not counted yet refuses what it covers; a
 * write past a hard limit is refused with kube's message. Admitted usage is
 * charged to the quotas' status.used before the object is stored, with
 * conflict retries (a dry run charges nothing). Writes in one namespace are
 * checked one at a time, as kube's evaluator queues them by namespace.
 */
import { isObject, type KubeObject } from '../api/types';
import { newForbidden, StatusError } from '../errors';
import {
  add,
  equals,
  evaluatorFor,
  isIgnoredResource,
  lessThanOrEqual,
  mask,
  negativeResources,
  parseResourceList,
  prettyPrint,
  quotaMatches,
  removeZeros,
  resourceListJson,
  subtractNonNegative,
  type ResourceList,
} from '../quota';
import type { Store } from '../registry/generic/store';
import type { Storage } from '../storage/interface';
import type { Clock } from '../util/clock';
import type { PluginAttributes } from './attributes';
import { newNamespacedCache } from './namespacedCache';

export interface ResourceQuotaDeps {
  storage: Storage;
  clock: Clock;
  /** The resourcequotas store, written without admission (UpdateStatus). */
  quotas: Store;
}

export interface ResourceQuotaPlugin {
  start(): Promise<void>;
  stop(): void;
  /**
   * Undefined when the write is not one quota charges, or its namespace has
   * no quota; `charged` hears each quota's new usage (for the request's trace).
   */
  validate(attrs: PluginAttributes, charged?: (quota: string, used: string) => void): Promise<void> | undefined;
  /** Whether validate has anything to check, answered at once. */
  applies(attrs: PluginAttributes): boolean;
}

/** How often a conflicting status write is tried again with the quotas read anew (kube: 3). */
const conflictRetries = 3;

interface QuotaState {
  quota: KubeObject;
  hard: ResourceList;
  used: ResourceList;
}

const stateOf = (quota: KubeObject): QuotaState => {
  const status = isObject(quota['status']) ? quota['status'] : {};
  return { quota, hard: parseResourceList(status['hard']), used: parseResourceList(status['used']) };
};

export function createResourceQuotaPlugin(deps: ResourceQuotaDeps): ResourceQuotaPlugin {
  const cache = newNamespacedCache(deps.storage, deps.quotas);
  /** The tail of each namespace's evaluations. */
  const tails = new Map<string, Promise<void>>();

  function forbidden(attrs: PluginAttributes, message: string): StatusError {
    return newForbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name || 'Unknown', message);
  }

  /**
   * CheckRequest: the quotas' usage were the write admitted, or a
   * Forbidden. Only quotas whose usage changes are returned changed.
   */
  function checkRequest(quotas: QuotaState[], attrs: PluginAttributes): QuotaState[] {
    const evaluator = evaluatorFor(attrs.resource);
    const obj = attrs.object!;
    const interesting: number[] = [];
    quotas.forEach((q, i) => {
      const hardNames = [...q.hard.keys()];
      if (!quotaMatches(evaluator, q.quota, hardNames, obj)) return;
      const restricted = evaluator.matchingResources(hardNames);
      const missing = evaluator.constraints(restricted, obj);
      if (missing) throw forbidden(attrs, `failed quota: ${q.quota.metadata.name}: ${missing}`);
      if (restricted.some((r) => !q.used.has(r))) throw forbidden(attrs, `status unknown for quota: ${q.quota.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
      interesting.push(i);
    });
    if (!interesting.length) return quotas;
    const now = deps.clock.now();
    const inputUsage = evaluator.usage(obj, now);
    const negative = negativeResources(inputUsage);
    if (negative.length) throw forbidden(attrs, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);
    const deltas = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]));
    if (attrs.operation === 'UPDATE' && attrs.oldObject) {
      // An update is charged what it adds to what the stored object was charged.
      const delta = subtractNonNegative(inputUsage, evaluator.usage(attrs.oldObject, now));
      for (const i of interesting) {
        const q = quotas[i]!;
        if (quotaMatches(evaluator, q.quota, [...q.hard.keys()], attrs.oldObject)) deltas.set(i, delta);
      }
    }
    for (const [i, d] of deltas) {
      const nonZero = removeZeros(d);
      if (nonZero.size) deltas.set(i, nonZero);
      else deltas.delete(i);
    }
    if (!deltas.size) return quotas;
    const out = [...quotas];
    for (const [i, delta] of deltas) {
      const q = quotas[i]!;
      const requested = mask(delta, q.hard.keys());
      const newUsage = add(q.used, requested);
      const { allowed, exceeded } = lessThanOrEqual(mask(newUsage, requested.keys()), q.hard);
      if (!allowed) {
        throw forbidden(attrs, `exceeded quota: ${q.quota.metadata.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(q.used, exceeded))}, limited: ${prettyPrint(mask(q.hard, exceeded))}`);
      }
      out[i] = { ...q, used: newUsage };
    }
    return out;
  }

  /** checkQuotas: charge the changed quotas; a conflict reads them again and checks once more. */
  async function checkQuotas(namespace: string, attrs: PluginAttributes, charged?: (quota: string, used: string) => void): Promise<void> {
    // The cache first, as kube's lister; one gone stale (a write not yet seen) fails the status write with a conflict and is read anew.
    let quotas = cache.list(namespace).sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1)).map(stateOf);
    for (let retries = conflictRetries; ; retries--) {
      const next = checkRequest(quotas, attrs);
      if (attrs.dryRun) {
        next.forEach((q, i) => {
          if (!equals(quotas[i]!.used, q.used)) charged?.(q.quota.metadata.name!, `${prettyPrint(q.used)} (dry run: not written)`);
        });
        return;
      }
      const failed = new Set<string>();
      let lastErr: unknown;
      for (let i = 0; i < next.length; i++) {
        const q = next[i]!;
        if (equals(quotas[i]!.used, q.used)) continue;
        try {
          await deps.quotas.update(namespace, q.quota.metadata.name!, (cur) => {
            if (!cur) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
            cur.metadata.resourceVersion = q.quota.metadata.resourceVersion;
            const status = isObject(cur['status']) ? cur['status'] : {};
            return { ...cur, status: { ...status, used: resourceListJson(q.used) } };
          }, { subresource: 'status' });
          charged?.(q.quota.metadata.name!, prettyPrint(q.used));
        } catch (e) {
          // A quota deleted meanwhile no longer limits anything.
          if (e instanceof StatusError && e.code === 404) continue;
          failed.add(q.quota.metadata.name!);
          lastErr = e;
        }
      }
      if (!failed.size) return;
      if (retries <= 0) throw lastErr;
      quotas = (await deps.quotas.list(namespace)).items.filter((q) => failed.has(q.metadata.name!)).map(stateOf);
    }
  }

  function applies(attrs: PluginAttributes): boolean {
    // Subresources, cluster-scoped kinds (namespaces among them) and ignored kinds are not charged.
    if (attrs.subresource || !attrs.namespace || !attrs.object || isIgnoredResource(attrs.resource)) return false;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return false;
    return evaluatorFor(attrs.resource).handles(attrs.operation) && cache.list(attrs.namespace).length > 0;
  }

  return {
    start: () => cache.start(),
    stop: () => cache.stop(),
    applies,
    validate(attrs, charged) {
      if (!applies(attrs)) return undefined;
      const namespace = attrs.namespace;
      const previous = tails.get(namespace) ?? Promise.resolve();
      const run = previous.then(() => checkQuotas(namespace, attrs, charged));
      const tail = run.then(() => undefined, () => undefined);
      tails.set(namespace, tail);
      return run.finally(() => {
        if (tails.get(namespace) === tail) tails.delete(namespace);
      });
    },
  };
}
