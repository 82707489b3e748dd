/**
 * The disruption controller (pkg/controller/disruption): keeps each
 * PodDisruptionBudget's status, which the eviction subresource reads before
 * it deletes a pod. For a budget it counts the pods its selector matches in
 * its namespace (policy/v1: `{}` matches all of them, no selector none), the
 * pods expected (the matches for an integer minAvailable; else the scale of
 * their controllers: ReplicationController, Deployment through its
 * ReplicaSet, ReplicaSet, StatefulSet), the healthy ones (Ready, not being
 * deleted, not evicted in the last two minutes) and the healthy ones it needs,
 * and so how many disruptions it allows now, with the DisruptionAllowed
 * condition. Evictions it has not seen deleted yet are kept in disruptedPods
 * for two minutes, then dropped. A pod's change brings back the budgets that
 * select it (before or after the change); a budget selecting no pod records
 * a NoPods event.
 *
 * kubesim has no kubelet: pods count as healthy only when someone writes a
 * Ready condition into their status.
 */
import { jsonEqual } from '../api/equality';
import { formatTime, isObject, type KubeObject, type OwnerReference } from '../api/types';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelector, type LabelSelectorObject, type SelectorError } from '../selectors';
import type { Store } from '../registry/generic/store';
import type { StorageEvent } from '../storage/interface';
import { controllerRefOf, isPodReady, scaledValue, specOf, statusOf } from './controllerUtils';
import { newEventRecorder } from './events';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

/** How long an eviction the controller has not seen deleted keeps its pod out of the healthy count (DeletionTimeout). */
export const deletionTimeoutMs = 2 * 60 * 1000;

type Obj = Record<string, unknown>;

/** The budget's status as the controller computes it, before the condition. */
interface BudgetCounts {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptionsAllowed: number;
  disruptedPods: Record<string, string>;
}

/** apimeta.SetStatusCondition: the condition replaces the one of its type; lastTransitionTime moves only when its status does. */
export function setStatusCondition(conditions: Obj[], condition: Obj, now: string): Obj[] {
  const old = conditions.find((c) => c['type'] === condition['type']);
  const lastTransitionTime = old && old['status'] === condition['status'] && typeof old['lastTransitionTime'] === 'string' ? old['lastTransitionTime'] : now;
  const next = { type: condition['type'], status: condition['status'], observedGeneration: condition['observedGeneration'], lastTransitionTime, reason: condition['reason'], message: condition['message'] ?? '' };
  if (next.observedGeneration === undefined) delete (next as Obj)['observedGeneration'];
  return old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

/** pdbhelper.UpdateDisruptionAllowedCondition. */
export function disruptionAllowedCondition(disruptionsAllowed: number, observedGeneration: number | undefined): Obj {
  return disruptionsAllowed > 0
    ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', observedGeneration }
    : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', observedGeneration };
}

/** The budget's status with the condition kept current, its fields in PodDisruptionBudgetStatus's order. */
export function budgetStatus(old: Obj, counts: BudgetCounts, observedGeneration: number | undefined, now: string): Obj {
  const status: Obj = {};
  if (observedGeneration) status['observedGeneration'] = observedGeneration;
  if (Object.keys(counts.disruptedPods).length) status['disruptedPods'] = counts.disruptedPods;
  status['disruptionsAllowed'] = counts.disruptionsAllowed;
  status['currentHealthy'] = counts.currentHealthy;
  status['desiredHealthy'] = counts.desiredHealthy;
  status['expectedPods'] = counts.expectedPods;
  status['conditions'] = setStatusCondition(conditionsOf(old), disruptionAllowedCondition(counts.disruptionsAllowed, observedGeneration), now);
  return status;
}

const statusOrder = ['observedGeneration', 'disruptedPods', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'conditions'];

/** A budget status with its fields in PodDisruptionBudgetStatus's order (any others after them). */
export function inStatusOrder(status: Obj): Obj {
  const out: Obj = {};
  for (const k of statusOrder) if (status[k] !== undefined) out[k] = status[k];
  for (const k in status) if (!(k in out) && status[k] !== undefined) out[k] = status[k];
  return out;
}

export function conditionsOf(status: Obj): Obj[] {
  return Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]).filter(isObject) : [];
}

/** Kinds whose scale counts for a budget (the finders of getExpectedScale): group and resource. */
const scaledKinds: Record<string, [string, string]> = {
  ReplicationController: ['', 'replicationcontrollers'],
  ReplicaSet: ['apps', 'replicasets'],
  Deployment: ['apps', 'deployments'],
  StatefulSet: ['apps', 'statefulsets'],
};

/** Why the expected count cannot be found (a pod without a controller it knows): the budget then allows nothing. */
class SyncFailed extends Error {}

export function startDisruptionController(deps: NamespaceControllerDeps): RunningController {
  const storeOf = (group: string, resource: string): Store | undefined => {
    const type = deps.registry.resourceFor(group, 'v1', resource);
    return type ? deps.storeFor(type) : undefined;
  };
  const budgets = storeOf('policy', 'poddisruptionbudgets')!;
  const pods = storeOf('', 'pods')!;
  // kube-controller-manager's disruption controller reports as "controllermanager".
  const recorder = newEventRecorder(deps, 'controllermanager');

  /** The controller ref names, if it is still that object (same uid), for the kinds the finders of getExpectedScale know. */
  async function controllerOf(namespace: string, ref: OwnerReference): Promise<KubeObject | undefined> {
    const at = scaledKinds[ref.kind];
    const store = at && storeOf(at[0], at[1]);
    const kv = store ? await store.getKv(namespace, ref.name) : undefined;
    const obj = kv ? store!.decode(kv) : undefined;
    return obj?.metadata.uid === ref.uid ? obj : undefined;
  }

  /** The scale of a pod's controller, a Deployment's ReplicaSet counting as its Deployment; undefined when none is found. */
  async function controllerScale(pod: KubeObject): Promise<{ uid: string; scale: number } | undefined> {
    const ref = controllerRefOf(pod);
    // A Deployment is reached through its ReplicaSet only.
    let controller = ref && ref.kind !== 'Deployment' ? await controllerOf(pod.metadata.namespace!, ref) : undefined;
    const above = controller?.kind === 'ReplicaSet' ? controllerRefOf(controller) : undefined;
    if (above?.kind === 'Deployment') controller = await controllerOf(pod.metadata.namespace!, above);
    if (!controller) return undefined;
    const replicas = specOf(controller)['replicas'];
    return { uid: controller.metadata.uid!, scale: typeof replicas === 'number' ? replicas : 1 };
  }

  /** getExpectedScale: the sum of the scales of the matching pods' controllers, each counted once. */
  async function expectedScale(matching: KubeObject[]): Promise<number> {
    const scales = new Map<string, number>();
    for (const pod of matching) {
      // A pod nobody controls is left out (kube records an UnmanagedPods event).
      if (!controllerRefOf(pod)) continue;
      const found = await controllerScale(pod);
      if (!found) throw new SyncFailed(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`);
      scales.set(found.uid, found.scale);
    }
    let total = 0;
    for (const scale of scales.values()) total += scale;
    return total;
  }

  async function counts(pdb: KubeObject, matching: KubeObject[], nowMs: number): Promise<{ counts: BudgetCounts; recheckAt?: number }> {
    const spec = specOf(pdb);
    let expectedPods = 0;
    let desiredHealthy = 0;
    if (spec['maxUnavailable'] !== undefined && spec['maxUnavailable'] !== null) {
      expectedPods = await expectedScale(matching);
      desiredHealthy = Math.max(0, expectedPods - scaledValue(spec['maxUnavailable'], expectedPods, true));
    } else if (typeof spec['minAvailable'] === 'number') {
      desiredHealthy = spec['minAvailable'];
      expectedPods = matching.length;
    } else if (typeof spec['minAvailable'] === 'string') {
      expectedPods = await expectedScale(matching);
      desiredHealthy = scaledValue(spec['minAvailable'], expectedPods, true);
    }
    // buildDisruptedPodMap: evictions not yet seen deleted, for two minutes.
    const recorded = isObject(statusOf(pdb)['disruptedPods']) ? (statusOf(pdb)['disruptedPods'] as Record<string, unknown>) : {};
    const disruptedPods: Record<string, string> = {};
    let recheckAt: number | undefined;
    for (const pod of matching) {
      const at = recorded[pod.metadata.name!];
      if (pod.metadata.deletionTimestamp || typeof at !== 'string') continue;
      const expectedDeletion = Date.parse(at) + deletionTimeoutMs;
      if (expectedDeletion < nowMs) continue;
      disruptedPods[pod.metadata.name!] = at;
      recheckAt = Math.min(recheckAt ?? Infinity, expectedDeletion);
    }
    // countHealthyPods
    let currentHealthy = 0;
    for (const pod of matching) {
      if (pod.metadata.deletionTimestamp || disruptedPods[pod.metadata.name!] !== undefined) continue;
      if (isPodReady(pod)) currentHealthy++;
    }
    // A budget matching no pods yet allows nothing, so its first pods are safe before it is updated.
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    return { counts: { currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed, disruptedPods }, recheckAt };
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await budgets.getKv(namespace, name);
    const known = selectors.get(namespace);
    if (!kv) {
      known?.delete(name);
      if (known?.size === 0) selectors.delete(namespace);
      return;
    }
    const pdb = budgets.decode(kv);
    const selector = labelSelectorFromObject(specOf(pdb)['selector'] as LabelSelectorObject | null | undefined);
    if (known) known.set(name, selector);
    else selectors.set(namespace, new Map([[name, selector]]));
    if (pdb.metadata.deletionTimestamp) return;
    const now = deps.clock.now();
    const generation = pdb.metadata.generation;
    let status: Obj;
    let recheckAt: number | undefined;
    try {
      if (isSelectorError(selector)) throw new SyncFailed(selector.message);
      const matching = (await pods.list(namespace)).items.filter((p) => selector.matches(p.metadata.labels));
      if (!matching.length) recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
      const computed = await counts(pdb, matching, now.getTime());
      recheckAt = computed.recheckAt;
      status = budgetStatus(statusOf(pdb), computed.counts, generation, formatTime(now));
    } catch (e) {
      if (!(e instanceof SyncFailed)) throw e;
      // failSafe: nothing may be disrupted; the rest of the status stays as it was.
      const old = statusOf(pdb);
      const observed = typeof old['observedGeneration'] === 'number' ? old['observedGeneration'] : undefined;
      const conditions = conditionsOf(old);
      status = inStatusOrder({
        ...old,
        disruptionsAllowed: 0,
        currentHealthy: old['currentHealthy'] ?? 0,
        desiredHealthy: old['desiredHealthy'] ?? 0,
        expectedPods: old['expectedPods'] ?? 0,
        conditions: setStatusCondition(conditions, { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: e.message, observedGeneration: observed }, formatTime(now)),
      });
    }
    if (!jsonEqual(status, statusOf(pdb))) {
      try {
        await budgets.update(namespace, name, (cur) => {
          if (!cur || cur.metadata.uid !== pdb.metadata.uid || cur.metadata.resourceVersion !== pdb.metadata.resourceVersion) throw gone;
          cur['status'] = status;
          return cur;
        }, { subresource: 'status' });
      } catch (e) {
        // Changed meanwhile: the change's event brings the budget back.
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      }
    }
    if (recheckAt !== undefined) void deps.clock.sleep(Math.max(0, recheckAt - now.getTime()) + 1000, stopped.signal).then(() => queue.add(key), () => {});
  }

  const gone = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'changed' });
  const stopped = new AbortController();
  const queue = newWorkQueue('disruption', sync);
  /** The budgets of each namespace the controller has seen, with their selectors: a pod's change goes to those selecting it. */
  const selectors = new Map<string, Map<string, LabelSelector | SelectorError>>();
  /** getPdbForPod, for the pod before and after the change. */
  const budgetsSelecting = (e: StorageEvent): string[] => {
    const namespace = e.kv.key.slice(pods.prefix.length).split('/')[0]!;
    const known = selectors.get(namespace);
    if (!known) return [];
    const keys = new Set<string>();
    for (const kv of [e.kv, e.prevKv]) {
      if (!kv?.value) continue;
      let labels: Record<string, string> | undefined;
      try {
        labels = (JSON.parse(kv.value) as KubeObject).metadata?.labels;
      } catch {
        continue;
      }
      for (const [name, selector] of known) if (!isSelectorError(selector) && selector.matches(labels)) keys.add(`${namespace}/${name}`);
    }
    return [...keys];
  };
  const running = watchInto(deps, queue, budgets, [{ store: pods, keysFor: budgetsSelecting }]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
