/**
 * The DaemonSet controller (pkg/controller/daemon): one pod per Node the
 * template may run on (NodeShouldRunDaemonPod: nodeName, nodeSelector,
 * required node affinity, taints against the template's tolerations plus
 * the daemon ones). Each pod is made from the template with the daemon
 * tolerations, the labels `controller-revision-hash` and
 * `pod-template-generation`, and a required node affinity naming its node,
 * through which the scheduler binds it. Pods on nodes that should not run
 * them, extra pods on a node, succeeded pods and failed ones (with a
 * per-node backoff) are deleted. The template's history is kept in
 * ControllerRevisions `<ds>-<hash>`; RollingUpdate replaces old pods within
 * maxUnavailable (deleting first) or maxSurge (creating first), OnDelete
 * only as they are deleted. Status carries what `kubectl get ds` and
 * `kubectl rollout status ds` read.
 */
import { isObject, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/equality';
import { isAlreadyExists, isNotFound, newNotFound, StatusError } from '../errors';
import { labelSelectorFromObject, isSelectorError, type LabelSelector, type LabelSelectorObject } from '../selectors';
import type { StorageEvent } from '../storage/interface';
import { claimObjects } from './controllerRefManager';
import { controllerKeyOf, isPodAvailable, isPodReady, isPodTerminal, newControllerRef, podFromTemplate, specOf, statusOf } from './controllerUtils';
import {
  allowsSurge,
  compareByCreationAndPhase,
  controllerRevisionHashLabel,
  daemonPodTemplate,
  FailedPodsBackoff,
  isPodUpdated,
  nodeShouldRunDaemonPod,
  replaceNodeNameAffinity,
  revisionPatch,
  surgeCount,
  targetNodeName,
  templateGenerationOf,
  templateOf,
  unavailableCount,
} from './daemonsetUtils';
import { computeHash } from './deployment';
import { newEventRecorder } from './events';
import { revisionOf, sortControllerRevisions, updateControllerRevision } from './history';
import { skippedController, watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';
import { realClock } from '../util/clock';

/** At most this many pods are created or deleted in one sync (the controller's burstReplicas). */
const burstReplicas = 250;

/** The rate limiter's backoff for a DaemonSet whose syncs keep failing: 5ms doubling up to 1000s, on the real clock. */
const failureBackoffMs = (failures: number): number => Math.min(5 * 2 ** failures, 1_000_000);

type Selector = LabelSelector;

const byName = (a: KubeObject, b: KubeObject) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);

export function startDaemonSetController(deps: NamespaceControllerDeps): RunningController {
  const dsType = deps.registry.resourceFor('apps', 'v1', 'daemonsets');
  // apps/v1 switched off (--runtime-config): kube-controller-manager skips the controller.
  if (!dsType) return skippedController;
  const daemonSets = deps.storeFor(dsType);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const revisions = deps.storeFor(deps.registry.resourceFor('apps', 'v1', 'controllerrevisions')!);
  const recorder = newEventRecorder(deps, 'daemonset-controller');
  const failedPodsBackoff = new FailedPodsBackoff();
  const stopped = new AbortController();

  /** NodeShouldRunDaemonPod, once per sync for each node (the DaemonSet and Node objects are read afresh each sync). */
  const placements = new WeakMap<KubeObject, WeakMap<KubeObject, ReturnType<typeof nodeShouldRunDaemonPod>>>();
  function placement(node: KubeObject, ds: KubeObject): ReturnType<typeof nodeShouldRunDaemonPod> {
    let byNode = placements.get(ds);
    if (!byNode) placements.set(ds, (byNode = new WeakMap()));
    let result = byNode.get(node);
    if (!result) byNode.set(node, (result = nodeShouldRunDaemonPod(node, ds)));
    return result;
  }

  const enqueueAfter = (key: string, ms: number) => void deps.clock.sleep(ms, stopped.signal).then(() => queue.add(key), () => undefined);

  /** getNodesToDaemonPods: the claimed pods by the node each is meant for (terminal and terminating ones left out unless asked). */
  async function nodesToDaemonPods(ds: KubeObject, selector: Selector, includeDeletedTerminal = false): Promise<Map<string, KubeObject[]>> {
    const listed = await pods.list(ds.metadata.namespace!);
    const claimed = await claimObjects(pods, ds, listed.items, (p) => selector.matches(p.metadata.labels));
    const byNode = new Map<string, KubeObject[]>();
    for (const pod of claimed) {
      if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata.deletionTimestamp) continue;
      const node = targetNodeName(pod);
      if (node === undefined) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    return byNode;
  }

  /** constructHistory: claims the revisions, splits them into the current one (found, deduplicated or created) and the old. */
  async function constructHistory(ds: KubeObject, selector: Selector): Promise<{ cur: KubeObject; old: KubeObject[] }> {
    const listed = await revisions.list(ds.metadata.namespace!);
    const histories = await claimObjects(revisions, ds, listed.items, (r) => selector.matches(r.metadata.labels));
    const patch = revisionPatch(ds);
    const current: KubeObject[] = [];
    const old: KubeObject[] = [];
    for (let history of histories) {
      // The unique label is the revision's name when missing: no hash collision to worry about.
      if (!history.metadata.labels?.[controllerRevisionHashLabel]) {
        const { object } = await revisions.update(history.metadata.namespace!, history.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== history.metadata.uid) throw newNotFound(revisions.gr, history.metadata.name!);
          cur.metadata.labels = { ...cur.metadata.labels, [controllerRevisionHashLabel]: cur.metadata.name! };
          return cur;
        });
        history = object;
      }
      (jsonEqual(history['data'], patch) ? current : old).push(history);
    }
    const next = old.reduce((max, r) => Math.max(max, revisionOf(r)), 0) + 1;
    let cur: KubeObject;
    if (!current.length) cur = await snapshot(ds, next);
    else {
      cur = await dedupCurHistories(ds, current);
      if (revisionOf(cur) < next) cur = await updateControllerRevision(revisions, cur, next);
    }
    return { cur, old };
  }

  /** snapshot: creates the revision `<ds>-<hash>`; a name held by other data raises status.collisionCount and fails the sync. */
  async function snapshot(ds: KubeObject, revision: number): Promise<KubeObject> {
    const collisionCount = statusOf(ds)['collisionCount'] as number | undefined;
    const hash = computeHash(templateOf(ds), collisionCount);
    const name = `${ds.metadata.name}-${hash}`;
    const tlabels = isObject(templateOf(ds)['metadata']) ? (templateOf(ds)['metadata'] as KubeObject['metadata']).labels : undefined;
    const history: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        labels: { ...tlabels, [controllerRevisionHashLabel]: hash },
        ...(ds.metadata.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
        ownerReferences: [newControllerRef(ds)],
      },
      data: revisionPatch(ds),
      revision,
    };
    try {
      return await revisions.create(ds.metadata.namespace!, history);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await revisions.get(ds.metadata.namespace!, name);
      if (jsonEqual(existing['data'], history['data'])) return existing;
      const fresh = await daemonSets.get(ds.metadata.namespace!, ds.metadata.name!);
      if (statusOf(fresh)['collisionCount'] !== collisionCount) {
        throw new Error(`found a stale collision count (${collisionCount ?? 0}, expected ${statusOf(fresh)['collisionCount'] ?? 0}) of DaemonSet "${ds.metadata.name}" while processing; will retry until it is updated`);
      }
      await daemonSets.update(ds.metadata.namespace!, ds.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== ds.metadata.uid) throw newNotFound(daemonSets.gr, ds.metadata.name!);
        const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
        status['collisionCount'] = Number(status['collisionCount'] ?? 0) + 1;
        return cur;
      }, { subresource: 'status' });
      throw e;
    }
  }

  /** dedupCurHistories: keeps the newest of equal revisions, moving the others' pods to its hash before deleting them. */
  async function dedupCurHistories(ds: KubeObject, current: KubeObject[]): Promise<KubeObject> {
    if (current.length === 1) return current[0]!;
    const sorted = sortControllerRevisions([...current]);
    const keep = sorted[sorted.length - 1]!;
    const keepHash = keep.metadata.labels![controllerRevisionHashLabel]!;
    const listed = await pods.list(ds.metadata.namespace!);
    for (const dup of sorted.slice(0, -1)) {
      const dupHash = dup.metadata.labels?.[controllerRevisionHashLabel];
      for (const pod of listed.items) {
        if (pod.metadata.labels?.[controllerRevisionHashLabel] !== dupHash) continue;
        await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid) throw newNotFound(pods.gr, pod.metadata.name!);
          cur.metadata.labels = { ...cur.metadata.labels, [controllerRevisionHashLabel]: keepHash };
          return cur;
        }).catch(ignoreNotFound);
      }
      await revisions.delete(dup.metadata.namespace!, dup.metadata.name!).catch(ignoreNotFound);
    }
    return keep;
  }

  /** cleanupHistory: old revisions beyond revisionHistoryLimit, oldest first, unless a live pod still carries their hash. */
  async function cleanupHistory(ds: KubeObject, selector: Selector, old: KubeObject[]): Promise<void> {
    let toKill = old.length - Number(specOf(ds)['revisionHistoryLimit'] ?? 10);
    if (toKill <= 0) return;
    const live = new Set<string>();
    for (const list of (await nodesToDaemonPods(ds, selector)).values()) {
      for (const pod of list) {
        const hash = pod.metadata.labels?.[controllerRevisionHashLabel];
        if (hash) live.add(hash);
      }
    }
    for (const history of sortControllerRevisions([...old])) {
      if (toKill <= 0) break;
      if (live.has(history.metadata.labels?.[controllerRevisionHashLabel] ?? '')) continue;
      await revisions.delete(history.metadata.namespace!, history.metadata.name!).catch(ignoreNotFound);
      toKill--;
    }
  }

  /** podsShouldBeOnNode: whether the node needs a pod, and which of its pods go. */
  function podsShouldBeOnNode(node: KubeObject, byNode: Map<string, KubeObject[]>, ds: KubeObject, hash: string, key: string): { create: boolean; remove: string[] } {
    const { shouldRun, shouldContinueRunning } = placement(node, ds);
    const nodeName = node.metadata.name!;
    const daemonPods = byNode.get(nodeName);
    const remove: string[] = [];
    if (shouldRun && !daemonPods) return { create: true, remove };
    if (shouldContinueRunning && daemonPods) {
      const running: KubeObject[] = [];
      for (const pod of daemonPods) {
        if (pod.metadata.deletionTimestamp) continue;
        const phase = statusOf(pod)['phase'];
        if (phase === 'Failed') {
          // The kubelet may keep rejecting the pod: replacing it backs off per node.
          const backoffKey = `${ds.metadata.uid}/${nodeName}`;
          const nowMs = deps.clock.now().getTime();
          const wait = failedPodsBackoff.remaining(backoffKey, nowMs);
          if (wait > 0) {
            enqueueAfter(key, wait);
            continue;
          }
          failedPodsBackoff.next(backoffKey, nowMs);
          recorder.event(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${pod.metadata.namespace}/${pod.metadata.name} on node ${nodeName}, will try to kill it`);
          remove.push(pod.metadata.name!);
        } else if (phase === 'Succeeded') {
          remove.push(pod.metadata.name!);
        } else {
          running.push(pod);
        }
      }
      running.sort(compareByCreationAndPhase);
      if (!allowsSurge(ds)) {
        // One pod per node: all but the oldest go.
        for (const pod of running.slice(1)) remove.push(pod.metadata.name!);
        return { create: false, remove };
      }
      if (running.length <= 1) return { create: running.length === 0 && shouldRun, remove };
      // Surging: an old and a new pod may share the node while the new one is not yet available.
      let oldestNew: KubeObject | undefined;
      let oldestOld: KubeObject | undefined;
      for (const pod of running) {
        const isNew = pod.metadata.labels?.[controllerRevisionHashLabel] === hash;
        if (isNew && !oldestNew) oldestNew = pod;
        else if (!isNew && !oldestOld) oldestOld = pod;
        else remove.push(pod.metadata.name!);
      }
      if (oldestNew && oldestOld) {
        const minReadySeconds = Number(specOf(ds)['minReadySeconds'] ?? 0);
        if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReadySeconds, deps.clock.now())) remove.push(oldestOld.metadata.name!);
      }
      return { create: false, remove };
    }
    if (!shouldContinueRunning && daemonPods) {
      for (const pod of daemonPods) if (!pod.metadata.deletionTimestamp) remove.push(pod.metadata.name!);
    }
    return { create: false, remove };
  }

  /** manage: pods created on nodes that need one, deleted where they should not be (and unbound ones meant for nodes gone). */
  async function manage(ds: KubeObject, selector: Selector, nodeList: KubeObject[], hash: string, key: string): Promise<void> {
    const byNode = await nodesToDaemonPods(ds, selector);
    const create: string[] = [];
    const remove: string[] = [];
    for (const node of nodeList) {
      const r = podsShouldBeOnNode(node, byNode, ds, hash, key);
      if (r.create) create.push(node.metadata.name!);
      remove.push(...r.remove);
    }
    // getUnscheduledPodsWithoutNode: a pod still waiting for a node that no longer exists.
    const names = new Set(nodeList.map((n) => n.metadata.name!));
    for (const [node, list] of byNode) {
      if (names.has(node)) continue;
      for (const pod of list) if (!specOf(pod)['nodeName'] && !pod.metadata.deletionTimestamp) remove.push(pod.metadata.name!);
    }
    await syncNodes(ds, remove, create, hash);
  }

  /** syncNodes: creates a pod for each node named, bound to it through node affinity, and deletes the pods named. */
  async function syncNodes(ds: KubeObject, remove: string[], create: string[], hash: string): Promise<void> {
    const namespace = ds.metadata.namespace!;
    const template = daemonPodTemplate(ds, hash);
    let failure: unknown;
    for (const nodeName of create.slice(0, burstReplicas)) {
      const pod = podFromTemplate(template, ds);
      replaceNodeNameAffinity(pod['spec'] as Record<string, unknown>, nodeName);
      try {
        const created = await pods.create(namespace, pod);
        recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
        // A terminating namespace refuses every create: nothing to retry.
        if (!e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) failure ??= e;
        break;
      }
    }
    for (const name of remove.slice(0, burstReplicas)) {
      try {
        await pods.delete(namespace, name);
        recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      } catch (e) {
        if (isNotFound(e)) continue;
        if (!(e instanceof StatusError)) throw e;
        recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${e.message}`);
        failure ??= e;
      }
    }
    if (failure) throw failure;
  }

  /** findUpdatedPodsOnNode: the node's one new and one old pod, or ok false when it has more of either. */
  function updatedPodsOnNode(ds: KubeObject, list: KubeObject[], hash: string): { newPod?: KubeObject; oldPod?: KubeObject; ok: boolean } {
    let newPod: KubeObject | undefined;
    let oldPod: KubeObject | undefined;
    const generation = templateGenerationOf(ds);
    for (const pod of list) {
      if (pod.metadata.deletionTimestamp) continue;
      if (isPodUpdated(pod, hash, generation)) {
        if (newPod) return { ok: false };
        newPod = pod;
      } else {
        if (oldPod) return { ok: false };
        oldPod = pod;
      }
    }
    return { newPod, oldPod, ok: true };
  }

  /** rollingUpdate: old pods replaced within maxUnavailable (delete, then the manage loop creates) or maxSurge (create, then delete). */
  async function rollingUpdate(ds: KubeObject, selector: Selector, nodeList: KubeObject[], hash: string): Promise<void> {
    const byNode = await nodesToDaemonPods(ds, selector);
    // updatedDesiredNodeCounts: every node that should run a pod takes part, with or without one.
    let desired = 0;
    for (const node of nodeList) {
      if (!placement(node, ds).shouldRun) continue;
      desired++;
      if (!byNode.has(node.metadata.name!)) byNode.set(node.metadata.name!, []);
    }
    let maxUnavailable = unavailableCount(ds, desired);
    const maxSurge = surgeCount(ds, desired);
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
    const minReadySeconds = Number(specOf(ds)['minReadySeconds'] ?? 0);
    const now = deps.clock.now();
    const available = (p: KubeObject) => isPodAvailable(p, minReadySeconds, now);
    const entries = [...byNode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

    if (maxSurge === 0) {
      let numUnavailable = 0;
      const allowed: string[] = [];
      const candidates: string[] = [];
      for (const [, list] of entries) {
        const { newPod, oldPod, ok } = updatedPodsOnNode(ds, list, hash);
        if (!ok || (!oldPod && !newPod) || (oldPod && newPod)) {
          numUnavailable++;
        } else if (newPod) {
          if (!available(newPod)) numUnavailable++;
        } else if (oldPod && !available(oldPod)) {
          allowed.push(oldPod.metadata.name!);
          numUnavailable++;
        } else if (oldPod && numUnavailable < maxUnavailable) {
          candidates.push(oldPod.metadata.name!);
        }
      }
      const remaining = Math.min(Math.max(maxUnavailable - numUnavailable, 0), candidates.length);
      await syncNodes(ds, [...allowed, ...candidates.slice(0, remaining)], [], hash);
      return;
    }

    const oldToDelete: string[] = [];
    const shouldNotRunToDelete: KubeObject[] = [];
    const candidateNew: string[] = [];
    const allowedNew: string[] = [];
    let numSurge = 0;
    let numAvailable = 0;
    const nodeByName = new Map(nodeList.map((n) => [n.metadata.name!, n]));
    for (const [nodeName, list] of entries) {
      const { newPod, oldPod, ok } = updatedPodsOnNode(ds, list, hash);
      if (!ok) {
        numSurge++;
        continue;
      }
      if (oldPod ? available(oldPod) : newPod && available(newPod)) numAvailable++;
      if (!oldPod) continue;
      const node = nodeByName.get(nodeName);
      if (!newPod) {
        const shouldRun = node ? placement(node, ds).shouldRun : false;
        if (!available(oldPod)) {
          if (!shouldRun) oldToDelete.push(oldPod.metadata.name!);
          else allowedNew.push(nodeName);
        } else if (!shouldRun) {
          shouldNotRunToDelete.push(oldPod);
        } else if (numSurge < maxSurge) {
          candidateNew.push(nodeName);
        }
        continue;
      }
      if (!available(newPod)) {
        numSurge++;
        continue;
      }
      oldToDelete.push(oldPod.metadata.name!);
    }
    // Pods on nodes no longer wanted go only as pods elsewhere become available.
    const deletable = Math.min(numAvailable - desired, shouldNotRunToDelete.length);
    for (const pod of shouldNotRunToDelete.slice(0, Math.max(deletable, 0))) if (!pod.metadata.deletionTimestamp) oldToDelete.push(pod.metadata.name!);
    const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNew.length);
    await syncNodes(ds, oldToDelete, [...allowedNew, ...candidateNew.slice(0, remainingSurge)], hash);
  }

  /** updateDaemonSetStatus: counts per node that should run a pod, from its oldest pod; written only when it changed. */
  async function updateStatus(ds: KubeObject, selector: Selector, nodeList: KubeObject[], hash: string, key: string): Promise<void> {
    const byNode = await nodesToDaemonPods(ds, selector);
    const minReadySeconds = Number(specOf(ds)['minReadySeconds'] ?? 0);
    const now = deps.clock.now();
    const generation = templateGenerationOf(ds);
    let desired = 0, current = 0, misscheduled = 0, ready = 0, updated = 0, available = 0;
    for (const node of nodeList) {
      const list = byNode.get(node.metadata.name!) ?? [];
      if (placement(node, ds).shouldRun) {
        desired++;
        if (!list.length) continue;
        current++;
        const pod = [...list].sort(compareByCreationAndPhase)[0]!;
        if (isPodReady(pod)) {
          ready++;
          if (isPodAvailable(pod, minReadySeconds, now)) available++;
        }
        if (isPodUpdated(pod, hash, generation)) updated++;
      } else if (list.length) {
        misscheduled++;
      }
    }
    // storeDaemonSetStatus: the four counts always, the others when not zero; collisionCount and conditions carried over.
    const was = statusOf(ds);
    const status: Record<string, unknown> = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
    };
    const observed = ds.metadata.generation ?? Number(was['observedGeneration'] ?? 0);
    if (observed) status['observedGeneration'] = observed;
    if (updated) status['updatedNumberScheduled'] = updated;
    if (available) status['numberAvailable'] = available;
    if (desired - available) status['numberUnavailable'] = desired - available;
    if (was['collisionCount'] !== undefined) status['collisionCount'] = was['collisionCount'];
    if (was['conditions'] !== undefined) status['conditions'] = was['conditions'];
    if (!jsonEqual(status, was)) {
      await daemonSets.update(ds.metadata.namespace!, ds.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== ds.metadata.uid) throw newNotFound(daemonSets.gr, ds.metadata.name!);
        const collisionCount = statusOf(cur)['collisionCount'];
        cur['status'] = { ...status, ...(collisionCount !== undefined ? { collisionCount } : {}) };
        return cur;
      }, { subresource: 'status' }).catch(ignoreNotFound);
    }
    // A pod turning available after minReadySeconds changes nothing in storage: look again then.
    if (minReadySeconds > 0 && ready !== available) enqueueAfter(key, minReadySeconds * 1000);
  }

  async function sync(key: string): Promise<void> {
    // A node changed (`*`) or an orphan pod did (`namespace/`): the DaemonSets that may care look again.
    if (key === '*' || key.endsWith('/')) {
      for (const ds of (await daemonSets.list(key === '*' ? '' : key.slice(0, -1))).items) queue.add(`${ds.metadata.namespace}/${ds.metadata.name}`);
      return;
    }
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await daemonSets.getKv(namespace, name);
    if (!kv) return;
    const ds = daemonSets.decode(kv);
    const selector = labelSelectorFromObject(specOf(ds)['selector'] as LabelSelectorObject | undefined);
    if (isSelectorError(selector)) return;
    if (selector.empty()) {
      recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    // Being deleted: its revisions may already be gone, so its pods are left to the garbage collector.
    if (ds.metadata.deletionTimestamp) return;
    const nodeList = (await nodes.list('')).items.sort(byName);
    const { cur, old } = await constructHistory(ds, selector);
    const hash = cur.metadata.labels?.[controllerRevisionHashLabel] ?? '';
    let failure: unknown;
    try {
      await manage(ds, selector, nodeList, hash, key);
      const strategy = specOf(ds)['updateStrategy'];
      if (isObject(strategy) && strategy['type'] === 'RollingUpdate') await rollingUpdate(ds, selector, nodeList, hash);
      await cleanupHistory(ds, selector, old);
    } catch (e) {
      failure = e;
    }
    await updateStatus(ds, selector, nodeList, hash, key);
    // A refused create or delete (a quota, an admission plugin) is tried again with the queue's rate-limited backoff.
    if (failure instanceof StatusError) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      void realClock.sleep(failureBackoffMs(n), stopped.signal).then(() => queue.add(key), () => undefined);
      return;
    }
    failures.delete(key);
    if (failure) throw failure;
  }

  /** Syncs failed in a row, per DaemonSet key. */
  const failures = new Map<string, number>();

  const queue = newWorkQueue('daemonset-controller', sync);
  /** The namespace key of an orphan pod with labels, which some DaemonSet may adopt. */
  const orphanKey = (e: StorageEvent): string | undefined => {
    if (e.type !== 'PUT' || e.kv.value.includes('"ownerReferences"') || !e.kv.value.includes('"labels"')) return undefined;
    return `${e.kv.key.slice(pods.prefix.length).split('/')[0]}/`;
  };
  /** Whether a node event can change where daemon pods belong: added, deleted, or new labels, spec or condition statuses. */
  const nodeKey = (e: StorageEvent): string | undefined => {
    if (e.type === 'DELETE' || !e.prevKv) return '*';
    const fields = (value: string) => {
      const n = JSON.parse(value) as KubeObject;
      const conditions = Array.isArray(statusOf(n)['conditions']) ? (statusOf(n)['conditions'] as Record<string, unknown>[]).map((c) => `${c['type']}=${c['status']}`) : [];
      return [n.metadata.labels ?? {}, specOf(n), conditions];
    };
    return jsonEqual(fields(e.kv.value), fields(e.prevKv.value)) ? undefined : '*';
  };
  const running = watchInto(deps, queue, daemonSets, [
    { store: pods, keysFor: (e) => [controllerKeyOf(e.kv, 'DaemonSet'), controllerKeyOf(e.prevKv, 'DaemonSet'), orphanKey(e)] },
    { store: nodes, keysFor: (e) => [nodeKey(e)] },
    { store: revisions, keysFor: (e) => [controllerKeyOf(e.kv, 'DaemonSet')] },
  ]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}

function ignoreNotFound(e: unknown): void {
  if (!isNotFound(e)) throw e;
}
