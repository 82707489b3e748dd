/**
 * The ReplicaSet controller (pkg/controller/replicaset): keeps as many
 * active pods as spec.replicas, created from spec.template with the
 * ReplicaSet as their controller, adopts matching orphans and releases
 * pods whose labels stop matching (ClaimPods), and reports
 * replicas, readyReplicas and availableReplicas in status.
 *
 * The same manager runs ReplicationControllers (pkg/controller/replication
 * converts them to ReplicaSets): a ReplicaKind says what differs, the store,
 * the kind, the selector (a label map there) and the event component.
 *
 * Without simulated nodes the pods it creates stay Pending and unbound (so
 * scaling down removes them at once) and count as ready only when someone
 * writes a Ready condition into their status.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelector, type LabelSelectorObject, type SelectorError } from '../selectors';
import type { Store } from '../registry/generic/store';
import {
  compareActivePods,
  controllerKeyOf,
  controllerRefOf,
  isPodActive,
  isPodAvailable,
  isPodReady,
  labelsInclude,
  newControllerRef,
  podFromTemplate,
  specOf,
  statusOf,
} from './controllerUtils';
import type { StorageEvent } from '../storage/interface';
import type { NamespaceControllerDeps } from './namespace';
import { skippedController, watchInto, type RunningController } from './informer';
import { newEventRecorder } from './events';
import { newWorkQueue } from './workqueue';
import { realClock } from '../util/clock';

/** At most this many pods are created or deleted in one sync (burstReplicas). */
const burstReplicas = 500;

const ignoreGone = (e: unknown) => {
  // Deleted, changed or refused meanwhile (a terminating namespace): the next event brings the work back.
  if (e instanceof StatusError && (e.code === 404 || e.code === 409 || e.code === 403)) return;
  throw e;
};

/** A create admission refused (a quota, a LimitRange), as opposed to a terminating namespace's refusal. */
function refusedByAdmission(e: unknown): e is StatusError {
  return e instanceof StatusError && e.code === 403 && !e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}

/** The rate limiter's backoff for a ReplicaSet whose creates keep failing: 5ms doubling up to 1000s, on the real clock. */
const failureBackoffMs = (failures: number): number => Math.min(5 * 2 ** failures, 1_000_000);

/** What tells a ReplicaSet and a ReplicationController apart for the manager that runs both. */
export interface ReplicaKind {
  kind: 'ReplicaSet' | 'ReplicationController';
  /** The controller's name: its work queue and its events' component. */
  queueName: string;
  eventComponent: string;
  /** Its store; undefined when its API is switched off (--runtime-config), which skips the controller. */
  store(deps: NamespaceControllerDeps): Store | undefined;
  /** The pods it selects: a LabelSelector, or a ReplicationController's label map (SelectorFromSet). */
  selectorOf(obj: KubeObject): LabelSelector | SelectorError;
}

const replicaSetKind: ReplicaKind = {
  kind: 'ReplicaSet',
  queueName: 'replicaset-controller',
  eventComponent: 'replicaset-controller',
  store: (deps) => {
    const type = deps.registry.resourceFor('apps', 'v1', 'replicasets');
    return type && deps.storeFor(type);
  },
  selectorOf: (rs) => labelSelectorFromObject(specOf(rs)['selector'] as LabelSelectorObject | undefined),
};

export const startReplicaSetController = (deps: NamespaceControllerDeps): RunningController => startReplicaManager(deps, replicaSetKind);

/** NewBaseController: the ReplicaSet logic over the kind given. */
export function startReplicaManager(deps: NamespaceControllerDeps, kind: ReplicaKind): RunningController {
  const store = kind.store(deps);
  if (!store) return skippedController;
  const replicaSets: Store = store;
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const recorder = newEventRecorder(deps, kind.eventComponent);

  async function podsOf(rs: KubeObject, selector: { matches(l: Record<string, string> | undefined): boolean }): Promise<KubeObject[]> {
    const namespace = rs.metadata.namespace!;
    const listed = await pods.list(namespace);
    const owned: KubeObject[] = [];
    for (const pod of listed.items) {
      const ref = controllerRefOf(pod);
      if (ref) {
        if (ref.uid !== rs.metadata.uid) continue;
        if (selector.matches(pod.metadata.labels) || rs.metadata.deletionTimestamp) {
          owned.push(pod);
          continue;
        }
        // Release: a pod whose labels stopped matching is no longer this ReplicaSet's.
        try {
          await pods.update(namespace, pod.metadata.name!, (cur) => {
            if (!cur || cur.metadata.uid !== pod.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
            const refs = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== rs.metadata.uid);
            if (refs.length) cur.metadata.ownerReferences = refs;
            else delete cur.metadata.ownerReferences;
            return cur;
          });
        } catch (e) {
          ignoreGone(e);
        }
        continue;
      }
      // Adoption (ClaimPods): an orphan whose labels match becomes this ReplicaSet's, unless either is being deleted.
      if (rs.metadata.deletionTimestamp || pod.metadata.deletionTimestamp || !isPodActive(pod) || !selector.matches(pod.metadata.labels)) continue;
      try {
        const { object } = await pods.update(namespace, pod.metadata.name!, (cur) => {
          if (!cur || controllerRefOf(cur) || cur.metadata.uid !== pod.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'claimed elsewhere' });
          cur.metadata.ownerReferences = [...(cur.metadata.ownerReferences ?? []), newControllerRef(rs)];
          return cur;
        });
        owned.push(object);
      } catch (e) {
        ignoreGone(e);
      }
    }
    return owned;
  }

  /** Creates or deletes pods; the message of a create admission refused, which the status reports (ReplicaFailure). */
  async function manage(rs: KubeObject, active: KubeObject[]): Promise<string | undefined> {
    const namespace = rs.metadata.namespace!;
    const want = Number(specOf(rs)['replicas'] ?? 1);
    const diff = want - active.length;
    const template = isObject(specOf(rs)['template']) ? (specOf(rs)['template'] as Record<string, unknown>) : {};
    if (diff > 0) {
      for (let i = 0; i < Math.min(diff, burstReplicas); i++) {
        const pod = podFromTemplate(template, rs);
        try {
          const created = await pods.create(namespace, pod);
          recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        } catch (e) {
          if (e instanceof StatusError) recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
          if (refusedByAdmission(e)) return e.message;
          ignoreGone(e);
          return undefined;
        }
      }
    } else if (diff < 0) {
      const doomed = [...active].sort(compareActivePods).slice(0, Math.min(-diff, burstReplicas));
      for (const pod of doomed) {
        try {
          await pods.delete(namespace, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
          recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
        } catch (e) {
          if (e instanceof StatusError && e.code !== 404) recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${e.message}`);
          ignoreGone(e);
        }
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // An orphan pod changed (`namespace/`): every ReplicaSet of its namespace looks whether to adopt it.
    if (!name) {
      for (const rs of (await replicaSets.list(namespace)).items) queue.add(`${namespace}/${rs.metadata.name}`);
      return;
    }
    const kv = await replicaSets.getKv(namespace, name);
    if (!kv) return;
    const rs = replicaSets.decode(kv);
    const selector = kind.selectorOf(rs);
    if (isSelectorError(selector)) return;
    let active = (await podsOf(rs, selector)).filter(isPodActive);
    let failure: string | undefined;
    if (!rs.metadata.deletionTimestamp) {
      failure = await manage(rs, active);
      active = (await podsOf(rs, selector)).filter(isPodActive);
    }
    const tlabels = (isObject(specOf(rs)['template']) && isObject((specOf(rs)['template'] as Record<string, unknown>)['metadata'])
      ? ((specOf(rs)['template'] as { metadata: KubeObject['metadata'] }).metadata.labels)
      : undefined);
    const minReadySeconds = Number(specOf(rs)['minReadySeconds'] ?? 0);
    const now = deps.clock.now();
    const status: Record<string, unknown> = { replicas: active.length };
    const fully = active.filter((p) => labelsInclude(p.metadata.labels, tlabels)).length;
    const ready = active.filter(isPodReady).length;
    const available = active.filter((p) => isPodAvailable(p, minReadySeconds, now)).length;
    if (fully) status['fullyLabeledReplicas'] = fully;
    if (ready) status['readyReplicas'] = ready;
    if (available) status['availableReplicas'] = available;
    if (rs.metadata.generation) status['observedGeneration'] = rs.metadata.generation;
    // calculateStatus: a refused create sets ReplicaFailure (once), a sync without one removes it.
    let conditions = Array.isArray(statusOf(rs)['conditions']) ? (statusOf(rs)['conditions'] as unknown[]).filter(isObject) : [];
    const failed = conditions.some((c) => c['type'] === 'ReplicaFailure');
    if (failure && !failed) conditions = [...conditions, { type: 'ReplicaFailure', status: 'True', lastTransitionTime: formatTime(now), reason: 'FailedCreate', message: failure }];
    else if (!failure && failed) conditions = conditions.filter((c) => c['type'] !== 'ReplicaFailure');
    if (conditions.length) status['conditions'] = conditions;
    // A refused create is tried again with backoff (the queue's AddRateLimited): the quota may have room by then.
    if (failure) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      void realClock.sleep(failureBackoffMs(n), stopped.signal).then(() => queue.add(key));
    } else {
      failures.delete(key);
    }
    try {
      await replicaSets.update(namespace, name, (cur) => {
        if (!cur || cur.metadata.uid !== rs.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
        cur['status'] = status;
        return cur;
      }, { subresource: 'status' });
    } catch (e) {
      ignoreGone(e);
    }
    // A pod that turns available after minReadySeconds changes nothing in storage: look again then.
    if (minReadySeconds > 0 && ready > available) {
      void deps.clock.sleep(minReadySeconds * 1000, stopped.signal).then(() => queue.add(key));
    }
  }

  const stopped = new AbortController();
  /** Refused creates in a row, per ReplicaSet key. */
  const failures = new Map<string, number>();
  const queue = newWorkQueue(kind.queueName, sync);
  /** The namespace key of an orphan pod with labels, which some ReplicaSet may adopt. */
  const orphanKey = (e: StorageEvent): string | undefined => {
    if (e.type !== 'PUT' || e.kv.value.includes('"ownerReferences"') || !e.kv.value.includes('"labels"')) return undefined;
    const namespace = e.kv.key.slice(pods.prefix.length).split('/')[0];
    return `${namespace}/`;
  };
  const running = watchInto(deps, queue, replicaSets, [{ store: pods, keysFor: (e) => [controllerKeyOf(e.kv, kind.kind), controllerKeyOf(e.prevKv, kind.kind), orphanKey(e)] }]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
