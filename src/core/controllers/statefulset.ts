/**
 * The StatefulSet controller (pkg/controller/statefulset): pods named
 * `<set>-<ordinal>` from spec.ordinals.start, each with its claims
 * `<template>-<set>-<ordinal>` created first; OrderedReady makes them one at a
 * time, each once its predecessors are Running and Ready (and available
 * after minReadySeconds), and removes them from the highest ordinal down;
 * Parallel does both at once. The template's history is kept in
 * ControllerRevisions `<set>-<hash>`; RollingUpdate replaces pods at other
 * revisions from the highest ordinal down to the partition, one healthy pod
 * at a time, OnDelete only as they are deleted. A Failed or Succeeded pod is
 * deleted and made again. Status carries the counts and revisions that
 * `kubectl rollout status statefulset` reads.
 *
 * kubesim has no scheduler or kubelet: pods stay Pending until a Running
 * phase and Ready condition are written into their status, so an
 * OrderedReady set shows its first pod only until then.
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import type { StorageEvent } from '../storage/interface';
import { realClock } from '../util/clock';
import { claimObjects } from './controllerRefManager';
import { controllerKeyOf, controllerRefOf, newControllerRef, specOf, statusOf, objectGone } from './controllerUtils';
import { newEventRecorder } from './events';
import {
  createControllerRevision,
  equalRevision,
  findEqualRevisions,
  newControllerRevision,
  revisionOf,
  sortControllerRevisions,
  updateControllerRevision,
} from './history';
import { skippedController, watchInto, type RunningController } from './informer';
import { newWorkQueue } from './workqueue';
import type { NamespaceControllerDeps } from './namespace';
import { newStatefulPodControl, StatefulSetSyncError } from './statefulPodControl';
import {
  applyRevision,
  identityMatches,
  inOrdinalRange,
  isCreated,
  isFailed,
  isHealthy,
  isMemberOf,
  isOnDelete,
  isPending,
  isRollingUpdate,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  newVersionedStatefulSetPod,
  ordinalOf,
  partitionOf,
  podRevision,
  replicasOf,
  revisionPatch,
  startOrdinal,
  endOrdinal,
  storageMatches,
  templateOf,
} from './statefulsetUtils';

/** StatefulSetStatus as the controller computes it (conditions are not carried over). */
export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  availableReplicas: number;
}

const resyncPeriodMs = 30_000;

/** The rate limiter's backoff for a set whose sync keeps failing: 5ms doubling up to 1000s, on the real clock. */
const failureBackoffMs = (failures: number): number => Math.min(5 * 2 ** failures, 1_000_000);

/** The status as apps/v1 encodes it: zero counts and empty revisions omitted, except replicas, availableReplicas and collisionCount. */
function encodeStatus(s: StatefulSetStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.observedGeneration) out['observedGeneration'] = s.observedGeneration;
  out['replicas'] = s.replicas;
  if (s.readyReplicas) out['readyReplicas'] = s.readyReplicas;
  if (s.currentReplicas) out['currentReplicas'] = s.currentReplicas;
  if (s.updatedReplicas) out['updatedReplicas'] = s.updatedReplicas;
  if (s.currentRevision) out['currentRevision'] = s.currentRevision;
  if (s.updateRevision) out['updateRevision'] = s.updateRevision;
  out['collisionCount'] = s.collisionCount;
  out['availableReplicas'] = s.availableReplicas;
  return out;
}

export function startStatefulSetController(deps: NamespaceControllerDeps): RunningController {
  const setType = deps.registry.resourceFor('apps', 'v1', 'statefulsets');
  if (!setType) return skippedController;
  const sets = deps.storeFor(setType);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const claims = deps.storeFor(deps.registry.resourceFor('', 'v1', 'persistentvolumeclaims')!);
  const revisionStore = deps.storeFor(deps.registry.resourceFor('apps', 'v1', 'controllerrevisions')!);
  const recorder = newEventRecorder(deps, 'statefulset-controller');
  const podControl = newStatefulPodControl(pods, claims, recorder);
  const stopped = new AbortController();
  /** Syncs failed in a row, per set key. */
  const failures = new Map<string, number>();
  /** minReadySeconds re-syncs already scheduled. */
  const scheduled = new Set<string>();

  /** ListRevisions: the namespace's revisions the selector matches that the set controls or nobody does. */
  async function listRevisions(set: KubeObject, selector: { matches(l: Record<string, string> | undefined): boolean }): Promise<KubeObject[]> {
    const listed = await revisionStore.list(set.metadata.namespace!);
    return listed.items.filter((r) => selector.matches(r.metadata.labels) && (controllerRefOf(r)?.uid ?? set.metadata.uid) === set.metadata.uid);
  }

  /** adoptOrphanRevisions: revisions the set selects and nobody controls become its own. */
  async function adoptOrphanRevisions(set: KubeObject, revisions: KubeObject[]): Promise<void> {
    const orphans = revisions.filter((r) => !controllerRefOf(r));
    if (!orphans.length) return;
    if (set.metadata.deletionTimestamp) throw new StatefulSetSyncError(`can't adopt ControllerRevisions for ${set.metadata.name}: ${set.metadata.namespace}/${set.metadata.name} has just been deleted`);
    for (const r of orphans) {
      await revisionStore.update(r.metadata.namespace!, r.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== r.metadata.uid || controllerRefOf(cur)) throw objectGone();
        cur.metadata.ownerReferences = [...(cur.metadata.ownerReferences ?? []), newControllerRef(set)];
        return cur;
      });
    }
  }

  /** getStatefulSetRevisions: the current revision, and the update revision found, rolled back to, or created. */
  async function statefulSetRevisions(set: KubeObject, revisions: KubeObject[]): Promise<{ current: KubeObject; update: KubeObject; collisionCount: number }> {
    const collision = { count: Number(statusOf(set)['collisionCount'] ?? 0) };
    const next = revisions.length ? revisionOf(revisions[revisions.length - 1]!) + 1 : 1;
    const tlabels = (isObject(templateOf(set)['metadata']) ? (templateOf(set)['metadata'] as KubeObject['metadata']).labels : undefined);
    let update = newControllerRevision(set, tlabels, revisionPatch(set), next, collision.count);
    if (set.metadata.annotations && Object.keys(set.metadata.annotations).length) update.metadata.annotations = { ...set.metadata.annotations };
    const equal = findEqualRevisions(revisions, update);
    if (equal.length && equalRevision(revisions[revisions.length - 1], equal[equal.length - 1])) {
      // The template has not changed since the latest revision.
      update = revisions[revisions.length - 1]!;
    } else if (equal.length) {
      // A template seen before: that revision becomes the newest again (a rollback).
      update = await updateControllerRevision(revisionStore, equal[equal.length - 1]!, revisionOf(update));
    } else {
      update = await createControllerRevision(revisionStore, set, update, collision);
    }
    const current = revisions.find((r) => r.metadata.name === statusOf(set)['currentRevision']) ?? update;
    return { current, update, collisionCount: collision.count };
  }

  /** updateStatus / computeReplicaStatus over the given pod lists. */
  function countPods(status: StatefulSetStatus, set: KubeObject, current: KubeObject, update: KubeObject, ...lists: (KubeObject | undefined)[][]): void {
    const minReadySeconds = Number(specOf(set)['minReadySeconds'] ?? 0);
    const now = deps.clock.now();
    Object.assign(status, { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 });
    for (const list of lists) {
      for (const pod of list) {
        if (!pod) continue;
        if (isCreated(pod)) status.replicas++;
        if (isRunningAndReady(pod)) {
          status.readyReplicas++;
          if (isRunningAndAvailable(pod, minReadySeconds, now)) status.availableReplicas++;
        }
        if (isCreated(pod) && !isTerminating(pod)) {
          if (podRevision(pod) === current.metadata.name) status.currentReplicas++;
          if (podRevision(pod) === update.metadata.name) status.updatedReplicas++;
        }
      }
    }
  }

  /**
   * updateStatefulSet: creates, fixes and deletes pods toward the spec and returns the status; an
   * error met on the way is returned beside the status, which is written all the same.
   */
  async function updateStatefulSetPods(set: KubeObject, current: KubeObject, update: KubeObject, collisionCount: number, claimed: KubeObject[]): Promise<{ status: StatefulSetStatus; error?: unknown }> {
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata.generation ?? 0,
      replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0,
      currentRevision: current.metadata.name!,
      updateRevision: update.metadata.name!,
      collisionCount,
    };
    countPods(status, set, current, update, claimed);
    const start = startOrdinal(set);
    const replicas: KubeObject[] = new Array(replicasOf(set));
    const condemned: KubeObject[] = [];
    for (const pod of claimed) {
      if (inOrdinalRange(pod, set)) replicas[ordinalOf(pod) - start] = pod;
      else if (ordinalOf(pod) >= 0) condemned.push(pod);
    }
    for (let ord = start; ord <= endOrdinal(set); ord++) {
      replicas[ord - start] ??= newVersionedStatefulSetPod(currentSet, updateSet, current.metadata.name!, update.metadata.name!, ord);
    }
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    // The first unhealthy pod: among the replicas in ascending order, else among the condemned from the lowest.
    const firstUnhealthy = replicas.find((p) => !isHealthy(p)) ?? [...condemned].reverse().find((p) => !isHealthy(p));
    if (set.metadata.deletionTimestamp) return { status };

    const monotonic = specOf(set)['podManagementPolicy'] !== 'Parallel';
    const minReadySeconds = Number(specOf(set)['minReadySeconds'] ?? 0);
    const finish = (error?: unknown) => {
      countPods(status, set, current, update, replicas, condemned);
      return { status, error };
    };

    /** runForAll: in order, stopping where fn says so when monotonic; otherwise every one, stopping at an error. */
    const runForAll = async (list: KubeObject[], fn: (i: number) => Promise<boolean>): Promise<boolean> => {
      for (let i = 0; i < list.length; i++) if ((await fn(i)) && monotonic) return true;
      return false;
    };

    /** processReplica: true when a monotonic set can go no further this sync. */
    const processReplica = async (i: number): Promise<boolean> => {
      let pod = replicas[i]!;
      if (isFailed(pod) || isSucceeded(pod)) {
        if (isFailed(pod)) recorder.event(set, 'Warning', 'RecreatingFailedPod', `StatefulSet ${set.metadata.namespace}/${set.metadata.name} is recreating failed Pod ${pod.metadata.name}`);
        else recorder.event(set, 'Normal', 'RecreatingTerminatedPod', `StatefulSet ${set.metadata.namespace}/${set.metadata.name} is recreating terminated Pod ${pod.metadata.name}`);
        await podControl.deleteStatefulPod(set, pod);
        pod = replicas[i] = newVersionedStatefulSetPod(currentSet, updateSet, current.metadata.name!, update.metadata.name!, i + start);
      }
      if (!isCreated(pod)) {
        // A claim still owned by an earlier pod of this name waits for the garbage collector.
        if (await podControl.podClaimIsStale(set, pod)) return true;
        await podControl.createStatefulPod(set, pod);
        return monotonic;
      }
      if (isPending(pod)) await podControl.createMissingPersistentVolumeClaims(set, pod);
      if (isTerminating(pod) && monotonic) return true;
      if (!isRunningAndReady(pod) && monotonic) return true;
      if (!isRunningAndAvailable(pod, minReadySeconds, deps.clock.now()) && monotonic) return true;
      let retentionMatch = true;
      try {
        retentionMatch = await podControl.claimsMatchRetentionPolicy(updateSet, pod);
      } catch {
        // A pod not fully updated yet counts as matching.
      }
      if (identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch) return false;
      await podControl.updateStatefulPod(updateSet, structuredClone(pod));
      return false;
    };

    /** processCondemned: deletes the condemned pod if a monotonic set may (healthy, or the first unhealthy one). */
    const processCondemned = async (i: number): Promise<boolean> => {
      const pod = condemned[i]!;
      if (isTerminating(pod)) return monotonic;
      if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthy) return true;
      if (!isRunningAndAvailable(pod, minReadySeconds, deps.clock.now()) && monotonic && pod !== firstUnhealthy) return true;
      await podControl.deleteStatefulPod(set, pod);
      return true;
    };

    try {
      if (await runForAll(replicas, processReplica)) return finish();
      // The claims of condemned pods get the owners the scale-down policy asks for, before the pods go.
      const fixClaims = async (i: number): Promise<boolean> => {
        if (!(await podControl.claimsMatchRetentionPolicy(updateSet, condemned[i]!))) await podControl.updatePodClaimForRetentionPolicy(updateSet, condemned[i]!);
        return false;
      };
      if (await runForAll(condemned, fixClaims)) return finish();
      if (await runForAll(condemned, processCondemned)) return finish();
    } catch (e) {
      return finish(e);
    }
    finish();
    if (isOnDelete(set)) return { status };
    // RollingUpdate: the highest ordinal at another revision is deleted (made again at the update revision next sync).
    for (let target = replicas.length - 1; target >= partitionOf(set); target--) {
      const pod = replicas[target]!;
      if (podRevision(pod) !== update.metadata.name && !isTerminating(pod)) {
        try {
          await podControl.deleteStatefulPod(set, pod);
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) return { status, error: e };
        }
        status.currentReplicas--;
        return { status };
      }
      if (!isHealthy(pod)) return { status };
    }
    return { status };
  }

  /** updateStatefulSetStatus: a finished rolling update makes the update revision current; unchanged counts are not written. */
  async function writeStatus(set: KubeObject, status: StatefulSetStatus): Promise<void> {
    const want = replicasOf(set);
    if (isRollingUpdate(set) && status.updatedReplicas === want && status.readyReplicas === want && status.replicas === want) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
    const old = statusOf(set);
    const n = (f: string) => Number(old[f] ?? 0);
    const inconsistent = status.observedGeneration > n('observedGeneration') || status.replicas !== n('replicas')
      || status.currentReplicas !== n('currentReplicas') || status.readyReplicas !== n('readyReplicas')
      || status.updatedReplicas !== n('updatedReplicas') || status.currentRevision !== (old['currentRevision'] ?? '')
      || status.availableReplicas !== n('availableReplicas') || status.updateRevision !== (old['updateRevision'] ?? '');
    if (!inconsistent) return;
    await sets.update(set.metadata.namespace!, set.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== set.metadata.uid) throw objectGone();
      cur['status'] = encodeStatus(status);
      return cur;
    }, { subresource: 'status' });
  }

  /** truncateHistory: revisions neither current, update nor any pod's, beyond revisionHistoryLimit, oldest first. */
  async function truncateHistory(set: KubeObject, claimed: KubeObject[], revisions: KubeObject[], current?: KubeObject, update?: KubeObject): Promise<void> {
    const live = new Set([current?.metadata.name, update?.metadata.name, ...claimed.map(podRevision)]);
    const history = revisions.filter((r) => !live.has(r.metadata.name));
    const limit = Number(specOf(set)['revisionHistoryLimit'] ?? 10);
    for (const r of history.slice(0, Math.max(0, history.length - limit))) {
      try {
        await revisionStore.delete(r.metadata.namespace!, r.metadata.name!);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // An orphan pod changed (`namespace/`): every set of its namespace looks whether to adopt it.
    if (!name) {
      for (const set of (await sets.list(namespace)).items) queue.add(`${namespace}/${set.metadata.name}`);
      return;
    }
    const kv = await sets.getKv(namespace, name);
    if (!kv) return;
    const set = sets.decode(kv);
    const selector = labelSelectorFromObject(specOf(set)['selector'] as LabelSelectorObject | undefined);
    // A selector that does not parse is not retried.
    if (isSelectorError(selector)) return;
    await adoptOrphanRevisions(set, await listRevisions(set, selector));
    const listed = (await pods.list(namespace)).items;
    const claimed = await claimObjects(pods, set, listed, (pod) => selector.matches(pod.metadata.labels) && isMemberOf(set, pod));

    const revisions = sortControllerRevisions(await listRevisions(set, selector));
    let current: KubeObject | undefined;
    let update: KubeObject | undefined;
    let status: StatefulSetStatus | undefined;
    try {
      const found = await statefulSetRevisions(set, revisions);
      ({ current, update } = found);
      const result = await updateStatefulSetPods(set, found.current, found.update, found.collisionCount, claimed);
      status = result.status;
      await writeStatus(set, status);
      if (result.error !== undefined) throw result.error;
    } finally {
      await truncateHistory(set, claimed, revisions, current, update);
    }
    // One more sync once the pods may have become available.
    const minReadySeconds = Number(specOf(set)['minReadySeconds'] ?? 0);
    if (minReadySeconds > 0 && status && status.availableReplicas !== replicasOf(set) && !scheduled.has(key)) {
      scheduled.add(key);
      void deps.clock.sleep(minReadySeconds * 1000, stopped.signal).then(() => {
        scheduled.delete(key);
        queue.add(key);
      });
    }
  }

  const queue = newWorkQueue('statefulset-controller', async (key) => {
    try {
      await sync(key);
      failures.delete(key);
    } catch (e) {
      // Gone or changed underneath: the next event syncs again.
      if (e instanceof StatusError && (e.code === 404 || (e.code === 409 && e.reason !== 'AlreadyExists'))) return;
      if (!(e instanceof StatusError) && !(e instanceof StatefulSetSyncError)) throw e;
      // Refused (a quota, a terminating namespace, a name taken) or reported by an Event: tried again with backoff.
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      void realClock.sleep(failureBackoffMs(n), stopped.signal).then(() => queue.add(key));
    }
  });
  /** The namespace key of an orphan pod with labels, which some set may adopt. */
  const orphanKey = (e: StorageEvent): string | undefined => {
    if (e.type !== 'PUT' || e.kv.value.includes('"ownerReferences"') || !e.kv.value.includes('"labels"')) return undefined;
    return `${e.kv.key.slice(pods.prefix.length).split('/')[0]}/`;
  };
  const running = watchInto(deps, queue, sets, [{ store: pods, keysFor: (e) => [controllerKeyOf(e.kv, 'StatefulSet'), controllerKeyOf(e.prevKv, 'StatefulSet'), orphanKey(e)] }]);
  // statefulSetResyncPeriod: every set is synced again each 30s, which picks up what no pod event announces
  // (a stale claim collected, a claim deleted under a pending pod).
  void (async () => {
    while (!stopped.signal.aborted) {
      await deps.clock.sleep(resyncPeriodMs, stopped.signal);
      if (stopped.signal.aborted) return;
      for (const set of (await sets.list('')).items) queue.add(`${set.metadata.namespace}/${set.metadata.name}`);
    }
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: statefulset-controller resync:', e);
  });
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}

