/**
 * What a namespace uses of a quota's resources (quota.CalculateUsage and
 * generic.CalculateUsageStats): each kind charged to one of the quota's hard
 * resources is listed, objects outside the quota's scopes skipped, and the
 * rest summed, every tracked resource starting from zero.
 */
import type { KubeObject } from '../api/types';
import { evaluatorFor, groupResourcesFor, scopeSelectorsOf, type GroupResource } from './evaluators';
import { add, zeroQuantity, type ResourceList } from './resources';

/** Lists a kind's objects in a namespace; undefined when the kind is not served. */
export type NamespaceLister = (gr: GroupResource, namespace: string) => Promise<KubeObject[] | undefined>;

export async function calculateUsage(quota: KubeObject, hardNames: string[], list: NamespaceLister, now: Date): Promise<ResourceList> {
  const namespace = quota.metadata.namespace ?? '';
  const scopes = scopeSelectorsOf(quota);
  let used: ResourceList = new Map();
  for (const gr of groupResourcesFor(hardNames)) {
    const evaluator = evaluatorFor(gr);
    const items = await list(gr, namespace);
    if (!items) continue;
    let stats: ResourceList = new Map(evaluator.matchingResources(hardNames).map((n) => [n, { ...zeroQuantity }]));
    for (const item of items) {
      if (scopes.every((s) => evaluator.matchesScope(s, item))) stats = add(stats, evaluator.usage(item, now));
    }
    used = add(used, stats);
  }
  return used;
}
