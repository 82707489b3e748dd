/**
 * kube-scheduler for simulated nodes: binds each pending pod whose
 * schedulerName is `default-scheduler`, one at a time, to the best node of
 * those the default profile's filters pass (profile.ts: NodeUnschedulable,
 * TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, VolumeBinding
 * from volumeBinding.ts, PodTopologySpread, InterPodAffinity), by the
 * profile's weighted scores, ties going to the first node by name; a pod
 * nominated to a node is tried there first. It reads the cluster from its
 * cache (schedulerCache.ts), binds through pods/binding and records
 * `Scheduled`. A pod no node fits gets `PodScheduled=False` (Unschedulable)
 * with the FitError message and a `FailedScheduling` warning; before that
 * DefaultPreemption (preemption.ts) may pick a node and victims of lower
 * priority: each gets the DisruptionTarget condition, is deleted and gets a
 * `Preempted` event, and the pod gets status.nominatedNodeName. A parked pod
 * is tried again (higher priority first) when a node changes in what the
 * filters read, a bound pod goes (or, for pods rejected by InterPodAffinity
 * or PodTopologySpread, is bound or relabelled), the pod itself changes, for
 * volumes a claim, volume or class changes, or after five minutes parked. A
 * pod whose claims the chosen node must first get is held there until they
 * are bound.
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/equality';
import { StatusError } from '../errors';
import { assignPod } from '../registry/core/podBinding';
import { newEventRecorder } from '../controllers/events';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import type { RunningController } from '../controllers/informer';
import { newWorkQueue } from '../controllers/workqueue';
import { isPodTerminal, objectGone, specOf, statusOf } from '../controllers/controllerUtils';
import { newVolumeBinding, podClaimNames, type PodVolumes } from './volumeBinding';
import { newPodInfo, type NodeInfo } from './nodeInfo';
import { newCycle, runFiltersWithNominated, scoreNodes, type Misfit } from './profile';
import { findCandidates, ineligibleReason, notHelpfulReason, pickOneNode, type Candidate } from './preemption';
import { newSchedulerCache, type PodChange } from './schedulerCache';
import { errReasonAffinityRulesNotMatch, errReasonAntiAffinityRulesNotMatch, errReasonExistingAntiAffinityRulesNotMatch } from './interPodAffinity';
import { errReasonConstraintsNotMatch, errReasonNodeLabelNotMatch } from './podTopologySpread';

export type { Misfit } from './profile';

/** The reasons count over the nodes, sorted ("2 Insufficient cpu, 1 node(s) ..."); nodes without a reason count as `absent`. */
function histogram(nodes: number, misfits: Misfit[], absent?: string): string {
  const counts = new Map<string, number>();
  for (const m of misfits) for (const r of m.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  if (absent && misfits.length < nodes) counts.set(absent, (counts.get(absent) ?? 0) + nodes - misfits.length);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/**
 * FitError.Error(): "0/N nodes are available:", then a PreFilter's message or the filters' reasons counted over
 * the nodes, sorted, then the post-filter's message (preemption's), each ending in a full stop.
 */
export function fitErrorMessage(nodes: number, misfits: Misfit[], options: { preFilterMessage?: string; postFilterMessage?: string } = {}): string {
  if (nodes === 0) return 'no nodes available to schedule pods';
  let message = `0/${nodes} nodes are available:`;
  const reasons = options.preFilterMessage ?? histogram(nodes, misfits);
  if (reasons) message += ` ${reasons}.`;
  if (options.postFilterMessage) message += ` ${options.postFilterMessage}.`;
  return message;
}

/** Preemption's FitError when no node has victims: each dry-run reason, the nodes it never tried counted as not helpful. */
export const preemptionMessage = (nodes: number, statuses: Misfit[]): string => `preemption: 0/${nodes} nodes are available: ${histogram(nodes, statuses, notHelpfulReason)}`;

/** How long PreBind waits for a pod's claims to be bound (VolumeBindingArgs.bindTimeoutSeconds). */
const bindTimeoutMs = 600_000;

const isBound = (pod: KubeObject) => !!specOf(pod)['nodeName'];

/** Whether this scheduler places the pod: unbound, not finished or going, ungated, and ours. */
function wantsScheduling(pod: KubeObject): boolean {
  const spec = specOf(pod);
  return !isBound(pod) && !isPodTerminal(pod) && !pod.metadata.deletionTimestamp && (spec['schedulerName'] ?? 'default-scheduler') === 'default-scheduler' && !(Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length);
}

/** A pod in the unschedulable queue. */
interface Parked {
  /** Whether other pods' placement may fit it (InterPodAffinity or PodTopologySpread rejected it). */
  podDependent: boolean;
  /** Its labels and spec when judged: an update of the pod itself moves it. */
  judged: string;
  priority: number;
  sinceMs: number;
}

/** podMaxInUnschedulablePodsDuration: a pod parked this long is tried again anyway (flushUnschedulablePodsLeftover, every 30s). */
const maxUnschedulableMs = 300_000;
const flushEveryMs = 30_000;

/**
 * What of a node the filters read (nodeSchedulingPropertiesChange): labels, unschedulable, taints, allocatable and
 * the conditions' statuses; a status report that only renews heartbeats moves nothing.
 */
const schedulingProperties = (node: KubeObject): string =>
  JSON.stringify([node.metadata.labels ?? {}, specOf(node)['unschedulable'] ?? false, specOf(node)['taints'] ?? [], statusOf(node)['allocatable'] ?? {}, objectsOf(statusOf(node)['conditions']).map((c) => [c['type'], c['status']])]);

/** Reasons of the plugins whose verdict other pods' placement changes (InterPodAffinity, PodTopologySpread). */
const podDependentReasons = new Set([errReasonAffinityRulesNotMatch, errReasonAntiAffinityRulesNotMatch, errReasonExistingAntiAffinityRulesNotMatch, errReasonConstraintsNotMatch, errReasonNodeLabelNotMatch]);

export function startScheduler(deps: NamespaceControllerDeps): RunningController {
  const podType = deps.registry.resourceFor('', 'v1', 'pods')!;
  const pods = deps.storeFor(podType);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const recorder = newEventRecorder(deps, 'default-scheduler');
  const volumeBinding = newVolumeBinding(deps);
  /** Pods whose volumes are being bound for the node they were given (the binding cycle's wait); the cache counts them there meanwhile. */
  const waitingOnVolumes = new Map<string, { uid: string; node: string; claims: string[]; deadline: number }>();
  const stopped = new AbortController();
  /**
   * Pods that did not fit, parked until the cluster changes (the unschedulable queue): whether other pods' placement
   * may fit them, and what of the pod was judged (its labels and spec), so that an update of the pod itself moves it.
   */
  const unschedulable = new Map<string, Parked>();
  const judgedOf = (pod: KubeObject) => JSON.stringify([pod.metadata.labels ?? {}, pod['spec'] ?? {}]);
  const park = (key: string, pod: KubeObject, podDependent: boolean) =>
    unschedulable.set(key, { podDependent, judged: judgedOf(pod), priority: typeof specOf(pod)['priority'] === 'number' ? (specOf(pod)['priority'] as number) : 0, sinceMs: deps.clock.now().getTime() });
  /** One pod at a time, each placement seeing the bindings before it (the cache's assumed pods). */
  let turn: Promise<void> = Promise.resolve();
  const queue = newWorkQueue('scheduler', (key) => (turn = turn.then(() => sync(key), () => sync(key))));

  /**
   * Counts the cluster changes that move parked pods (the queue's moveRequestCycle): any of them, and those that
   * only move pods rejected by affinity or spreading. A pod that fails while one it would be moved by came is tried
   * again rather than parked.
   */
  const moves = { all: 0, podDependent: 0 };

  /** Moves parked pods back to the queue (every one, or those other pods' placement may help), higher priority first as PrioritySort orders the active queue. */
  function retryUnschedulable(onlyPodDependent = false, parkedBeforeMs = Infinity): string[] {
    // The periodic flush is no cluster change.
    if (parkedBeforeMs === Infinity) moves[onlyPodDependent ? 'podDependent' : 'all']++;
    const moved = [...unschedulable].filter(([, parked]) => (!onlyPodDependent || parked.podDependent) && parked.sinceMs < parkedBeforeMs);
    moved.sort(([, a], [, b]) => b.priority - a.priority);
    for (const [k] of moved) unschedulable.delete(k);
    return moved.map(([k]) => k);
  }

  const retry = (onlyPodDependent = false) => {
    for (const key of retryUnschedulable(onlyPodDependent)) queue.add(key);
  };

  function onPodChange(c: PodChange): void {
    // A parked pod that went, or whose labels or spec changed (a toleration added, say), is tried again now.
    const parked = unschedulable.get(c.key);
    if (parked && (!c.pod || judgedOf(c.pod) !== parked.judged)) unschedulable.delete(c.key);
    if ((c.pod && wantsScheduling(c.pod)) || !c.pod || waitingOnVolumes.has(c.key)) queue.add(c.key);
    const pod = c.pod;
    // A bound pod that finished or went frees its node's room.
    if (c.old && (!pod || isPodTerminal(pod))) return retry();
    if (!pod || !isBound(pod) || isPodTerminal(pod)) return;
    // A pod bound, relabelled or terminating changes what affinity and spreading see.
    if (!c.old || !isBound(c.old) || !jsonEqual(c.old.metadata.labels ?? {}, pod.metadata.labels ?? {}) || (!c.old.metadata.deletionTimestamp && pod.metadata.deletionTimestamp)) retry(true);
  }

  const cache = newSchedulerCache(deps, pods, nodes, {
    pod: onPodChange,
    // A node added, or changed in what the filters read, may fit what did not fit before.
    node: (old, node) => {
      if (!old || !node || schedulingProperties(old) !== schedulingProperties(node)) retry();
    },
  });

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // Parked until the cluster changes, as the scheduler's unschedulable queue holds it (its own condition write included).
    if (unschedulable.has(key)) return;
    const kv = await pods.getKv(namespace, name);
    if (!kv) {
      waitingOnVolumes.delete(key);
      cache.forget(key);
      return;
    }
    const pod = pods.decode(kv);
    const waiting = waitingOnVolumes.get(key);
    if (waiting && (waiting.uid !== pod.metadata.uid || !wantsScheduling(pod))) {
      waitingOnVolumes.delete(key);
      if (!isBound(pod)) cache.forget(key);
    }
    if (!wantsScheduling(pod)) return;
    const movesAtStart = { ...moves };
    if (waiting && waitingOnVolumes.has(key)) return finishBinding(key, pod, cache.snapshot().byName.get(waiting.node)?.node);
    // VolumeBinding's PreFilter: a claim missing or unbound (Immediate) rejects every node at once.
    const claims = cache.snapshot().nodes.length ? await volumeBinding.preFilter(pod) : undefined;
    const preFilterMessage = typeof claims === 'string' ? claims : undefined;
    // From here the cycle runs on the cache without waiting, so it sees one state of the cluster.
    const snapshot = cache.snapshot();
    const decisions = new Map<string, PodVolumes>();
    const volumes = claims && typeof claims === 'object'
      ? (node: NodeInfo): Misfit | undefined => {
          const r = volumeBinding.filter(claims, node.node);
          if ('reasons' in r) return { reasons: r.reasons, unresolvable: true };
          decisions.set(node.name, r);
          return undefined;
        }
      : undefined;
    const cycle = newCycle(newPodInfo(pod), snapshot, cache.spreadSelectors, cache.nominated, deps.clock.now().getTime(), volumes);
    const misfits = new Map<string, Misfit>();
    let target: string | undefined;
    if (!preFilterMessage) {
      // evaluateNominatedNode: a pod that preempted for a node tries it first.
      const nominatedNode = snapshot.byName.get(String(statusOf(pod)['nominatedNodeName'] ?? ''));
      if (nominatedNode && !runFiltersWithNominated(cycle, cycle.state, nominatedNode)) target = nominatedNode.name;
      const feasible: NodeInfo[] = [];
      for (const node of target ? [] : snapshot.nodes) {
        const misfit = runFiltersWithNominated(cycle, cycle.state, node);
        if (misfit) misfits.set(node.name, misfit);
        else feasible.push(node);
      }
      if (feasible.length === 1) target = feasible[0]!.name;
      else if (feasible.length) {
        const scores = scoreNodes(cycle, feasible);
        let best = -Infinity;
        for (const node of feasible) if (scores.get(node.name)! > best) (best = scores.get(node.name)!), (target = node.name);
      }
    } else {
      // A PreFilter rejection stands for every node, none of which preemption could help.
      for (const node of snapshot.nodes) misfits.set(node.name, { reasons: [], unresolvable: true });
    }
    if (!target) return failScheduling(key, pod, snapshot.nodes.length, misfits, preFilterMessage, cycle, movesAtStart);
    const decision = decisions.get(target);
    cache.assume(pod, target);
    const toBind = decision && decision.staticBindings.length + decision.provisions.length > 0;
    if (!toBind) return bindPod(pod, target);
    // Reserve and PreBind: the node is the pod's while its claims are bound; their changes bring it back.
    waitingOnVolumes.set(key, { uid: pod.metadata.uid!, node: target, claims: podClaimNames(pod).map((c) => c.name), deadline: deps.clock.now().getTime() + bindTimeoutMs });
    void deps.clock.sleep(bindTimeoutMs, stopped.signal).then(() => queue.add(key), () => {});
    try {
      await volumeBinding.preBind(decision, target);
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      waitingOnVolumes.delete(key);
      cache.forget(key);
      return failBinding(key, pod, `running PreBind plugin "VolumeBinding": binding volumes: ${e.message}`);
    }
    queue.add(key);
  }

  /** No node fits: DefaultPreemption, then the scheduler's failure handler (event, condition, nomination), and the pod parked. */
  async function failScheduling(key: string, pod: KubeObject, nodeCount: number, misfits: Map<string, Misfit>, preFilterMessage: string | undefined, cycle: ReturnType<typeof newCycle>, movesAtStart: typeof moves): Promise<void> {
    let postFilterMessage: string | undefined;
    /** The nomination to write: a node, '' to clear it, undefined to leave it. */
    let nominate: string | undefined;
    if (nodeCount) {
      const ineligible = ineligibleReason(cycle, misfits.get(String(statusOf(pod)['nominatedNodeName'] ?? '')));
      if (ineligible) postFilterMessage = `preemption: ${ineligible}`;
      else {
        const { candidates, statuses } = findCandidates(cycle, misfits, cache.budgets);
        const best = pickOneNode(candidates, cycle.nowMs);
        if (!best) {
          postFilterMessage = preemptionMessage(nodeCount, [...statuses.values()]);
          nominate = '';
        } else {
          await preempt(pod, best);
          nominate = best.node;
        }
      }
    }
    const message = fitErrorMessage(nodeCount, [...misfits.values()], { ...(preFilterMessage !== undefined ? { preFilterMessage } : {}), ...(postFilterMessage ? { postFilterMessage } : {}) });
    // A change during this attempt that would have moved the pod may have made room: try again rather than park (kube's backoff queue).
    const podDependent = [...misfits.values()].some((m) => m.reasons.some((r) => podDependentReasons.has(r)));
    if (moves.all !== movesAtStart.all || (podDependent && moves.podDependent !== movesAtStart.podDependent)) queue.add(key);
    else park(key, pod, podDependent);
    if (nominate !== undefined) cache.nominate(pod, nominate || undefined);
    recorder.event(pod, 'Warning', 'FailedScheduling', message);
    await markUnschedulable(pod, message, 'Unschedulable', nominate);
  }

  /** prepareCandidate: each victim gets the DisruptionTarget condition, is deleted and gets a Preempted event; lower nominations to the node are cleared. */
  async function preempt(preemptor: KubeObject, candidate: Candidate): Promise<void> {
    const schedulerName = String(specOf(preemptor)['schedulerName'] ?? 'default-scheduler');
    for (const victim of candidate.victims) {
      const { namespace, name, uid } = victim.pod.metadata as { namespace: string; name: string; uid: string };
      try {
        await pods.update(namespace, name, (cur) => {
          if (!cur || cur.metadata.uid !== uid) throw objectGone();
          const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
          const condition = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(deps.clock.now()), reason: 'PreemptionByScheduler', message: `${schedulerName}: preempting to accommodate a higher priority pod` };
          status['conditions'] = [...objectsOf(status['conditions']).filter((c) => c['type'] !== 'DisruptionTarget'), condition];
          return cur;
        }, { subresource: 'status' });
        await pods.delete(namespace, name, { preconditions: { uid } });
      } catch (e) {
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      }
      recorder.event(victim.pod, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata.uid} on node ${candidate.node}`);
    }
    // Lower-priority pods nominated to this node may no longer fit there: their nomination goes.
    const priority = typeof specOf(preemptor)['priority'] === 'number' ? (specOf(preemptor)['priority'] as number) : 0;
    for (const other of cache.nominated(candidate.node)) {
      if (other.priority >= priority || other.pod.metadata.uid === preemptor.metadata.uid) continue;
      cache.nominate(other.pod, undefined);
      await writeStatus(other.pod, (status) => {
        if (!status['nominatedNodeName']) return false;
        delete status['nominatedNodeName'];
        return true;
      });
    }
  }

  /** The end of the binding cycle for a pod whose volumes were being bound: bound, still waiting, or failed. */
  async function finishBinding(key: string, pod: KubeObject, node: KubeObject | undefined): Promise<void> {
    let done = await volumeBinding.allBound(pod, node);
    // The binding cycle polls its claims for bindTimeout, then gives up.
    if (done === false && deps.clock.now().getTime() >= (waitingOnVolumes.get(key)?.deadline ?? 0)) done = 'context deadline exceeded';
    if (done === false) return;
    waitingOnVolumes.delete(key);
    if (typeof done === 'string' || !node) {
      cache.forget(key);
      return failBinding(key, pod, `running PreBind plugin "VolumeBinding": binding volumes: ${typeof done === 'string' ? done : 'node is gone'}`);
    }
    await bindPod(pod, node.metadata.name!);
  }

  /** A binding cycle that failed: reported as the scheduler's failure handler reports an error (SchedulerError); tried again on a change. */
  async function failBinding(key: string, pod: KubeObject, message: string): Promise<void> {
    park(key, pod, false);
    recorder.event(pod, 'Warning', 'FailedScheduling', message);
    await markUnschedulable(pod, message, 'SchedulerError');
  }

  async function bindPod(pod: KubeObject, target: string): Promise<void> {
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    try {
      await assignPod(pods, namespace, { metadata: { name, uid: pod.metadata.uid }, target: { kind: 'Node', name: target } }, deps.clock.now(), { dryRun: false, copyLabels: false });
      recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${target}`);
    } catch (e) {
      // Bound, changed or deleted meanwhile: its next event brings it back if it still waits.
      if (!(e instanceof StatusError)) throw e;
      cache.forget(`${namespace}/${name}`);
    }
  }

  /** Pods waiting on a claim: those whose volumes are being bound, and (on any claim change) the unschedulable ones. */
  function podsForClaim(namespace: string, claim: string): string[] {
    const waiting = [...waitingOnVolumes].filter(([k, a]) => k.startsWith(`${namespace}/`) && a.claims.includes(claim)).map(([k]) => k);
    return [...waiting, ...retryUnschedulable()];
  }

  /** A status write to the pod (as it is now, same uid); change returns false to write nothing. */
  async function writeStatus(pod: KubeObject, change: (status: Record<string, unknown>) => boolean): Promise<void> {
    try {
      await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== pod.metadata.uid) throw objectGone();
        const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
        change(status);
        return cur;
      }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
    }
  }

  /** The PodScheduled condition (and the nomination) an unschedulable pod shows (updatePod in the scheduler's failure handler). */
  async function markUnschedulable(pod: KubeObject, message: string, reason = 'Unschedulable', nominate?: string): Promise<void> {
    await writeStatus(pod, (status) => {
      const conditions = objectsOf(status['conditions']);
      const was = conditions.find((c) => c['type'] === 'PodScheduled');
      const sameCondition = was?.['status'] === 'False' && was['reason'] === reason && was['message'] === message;
      const sameNomination = nominate === undefined || (status['nominatedNodeName'] ?? '') === nominate;
      if (sameCondition && sameNomination) return false;
      if (nominate) status['nominatedNodeName'] = nominate;
      else if (nominate === '') delete status['nominatedNodeName'];
      if (!sameCondition) {
        const next = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: was?.['status'] === 'False' ? was['lastTransitionTime'] : formatTime(deps.clock.now()), reason, message };
        status['conditions'] = was ? conditions.map((c) => (c === was ? next : c)) : [...conditions, next];
      }
      return true;
    });
  }

  async function flushLeftovers(): Promise<void> {
    while (!stopped.signal.aborted) {
      try {
        await deps.clock.sleep(flushEveryMs, stopped.signal);
      } catch {
        return;
      }
      if (unschedulable.size) for (const key of retryUnschedulable(false, deps.clock.now().getTime() - maxUnschedulableMs)) queue.add(key);
    }
  }

  const unsubscribes: (() => void)[] = [];
  const started = (async () => {
    const revision = await cache.start();
    if (stopped.signal.aborted) return;
    const secondary: { prefix: string; keysFor(e: Parameters<Parameters<typeof deps.storage.watch>[2]>[0]): string[] }[] = [
      {
        // VolumeBinding's events: a claim, volume or class added or changed may bind a waiting pod or fit an unschedulable one.
        prefix: volumeBinding.claims.prefix,
        keysFor: (e) => {
          const claim = volumeBinding.claims.decode(e.kv);
          return podsForClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
        },
      },
      { prefix: volumeBinding.volumes.prefix, keysFor: () => retryUnschedulable() },
      { prefix: volumeBinding.classes.prefix, keysFor: () => retryUnschedulable() },
    ];
    for (const s of secondary) {
      unsubscribes.push(await deps.storage.watch(s.prefix, revision, (e) => {
        for (const key of s.keysFor(e)) queue.add(key);
      }));
    }
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
    void flushLeftovers();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: scheduler start:', e);
  });
  return {
    async idle() {
      await started;
      await queue.idle();
    },
    stop() {
      stopped.abort();
      queue.stop();
      cache.stop();
      for (const u of unsubscribes) u();
    },
  };
}
