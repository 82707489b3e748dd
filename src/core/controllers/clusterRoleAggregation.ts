/**
 * The clusterrole-aggregation controller (pkg/controller/clusterroleaggregation):
 * a ClusterRole with an aggregationRule gets as rules the union of the rules
 * of every other ClusterRole its selectors match (by name order, duplicates
 * dropped), overwriting whatever was written by hand. Fed by a storage watch
 * on ClusterRoles; every change resyncs every aggregated role, which is cheap
 * at the size of a cluster's role set and converges in one pass.
 */
import type { ClusterRole, PolicyRule } from '../auth/rbac/types';
import { trackApply } from '../http/handlers/fieldManagement';
import type { JsonObject } from '../patch';
import type { Store } from '../registry/generic/store';
import { isSelectorError, labelSelectorFromObject } from '../selectors';

export interface ClusterRoleAggregationDeps {
  clusterRoles: Store;
}

export const aggregationFieldManager = 'clusterrole-aggregation-controller';

const sameRule = (a: PolicyRule, b: PolicyRule) => JSON.stringify(a) === JSON.stringify(b);

/** The rules an aggregated role should hold, given all ClusterRoles. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const matched = new Map<string, ClusterRole>();
  for (const sel of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(sel);
    if (isSelectorError(selector)) continue;
    for (const other of all) {
      if (other.metadata.name === role.metadata.name) continue;
      if (selector.matches(other.metadata.labels)) matched.set(other.metadata.name!, other);
    }
  }
  const rules: PolicyRule[] = [];
  for (const name of [...matched.keys()].sort()) {
    for (const rule of matched.get(name)!.rules ?? []) if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
  }
  return rules;
}

export interface ClusterRoleAggregationController {
  /** Resyncs every aggregated role now; resolves when done. */
  sync(): Promise<void>;
  stop(): void;
}

export async function startClusterRoleAggregationController(deps: ClusterRoleAggregationDeps): Promise<ClusterRoleAggregationController> {
  const store = deps.clusterRoles;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function syncOnce(): Promise<void> {
    const all = (await store.list('')).items as ClusterRole[];
    for (const role of all) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, all);
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
      try {
        // A forced server-side apply, as upstream: the controller owns `rules`, so a manifest
        // that also sets them conflicts on its next apply.
        await store.update('', role.metadata.name!, (current) => {
          if (!current) throw new Error('gone');
          const applied = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role.metadata.name! }, rules };
          return trackApply(store.fieldManager(), current, applied as unknown as JsonObject, aggregationFieldManager, true);
        });
      } catch {
        // Deleted or changed meanwhile: that change triggers another pass.
      }
    }
  }

  function sync(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        if (!stopped) await syncOnce();
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const revision = await store.storage.currentRevision();
  await sync();
  const unsubscribe = await store.storage.watch(store.collectionPrefix(''), revision, () => {
    void sync().catch(() => {});
  });
  return {
    sync,
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}
