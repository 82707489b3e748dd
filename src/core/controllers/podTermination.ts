/**
 * Graceful pod termination without a kubelet. A bound pod deleted with a
 * grace period stays Terminating until its deletionTimestamp; the kubelet
 * would then stop its containers and delete it with grace period 0. kubesim
 * runs no containers, so this controller sends that final delete when the
 * grace period ends on the server clock (the fake clock makes that happen
 * on demand). It runs under kube-controller-manager's
 * `pod-garbage-collector-controller` name, and does podgc's own work every
 * 20s: pods bound to a node that has been gone for 40s (gcOrphaned) and
 * terminating pods no node was ever given (gcUnscheduledTerminating) are
 * marked Failed (the former with the DisruptionTarget condition,
 * DeletionByPodGC) and deleted with grace period 0, as PodGC writes them.
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { isSimulatedNode } from '../simulation/nodes';
import { objectGone, specOf, statusOf } from './controllerUtils';

/** podgc's gcCheckPeriod and quarantineTime. */
const gcCheckPeriodMs = 20_000;
const quarantineMs = 40_000;

export function startPodTermination(deps: NamespaceControllerDeps): RunningController {
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  /** uid@deletionTimestamp already waited on. */
  const waiting = new Set<string>();

  async function finish(pod: KubeObject): Promise<void> {
    const meta = pod.metadata;
    if (!meta.deletionTimestamp || !meta.deletionGracePeriodSeconds || !isObject(pod['spec']) || !pod['spec']['nodeName']) return;
    const mark = `${meta.uid}@${meta.deletionTimestamp}`;
    if (waiting.has(mark)) return;
    waiting.add(mark);
    try {
      // A simulated node's kubelet ends its own pods (and a stopped one leaves them Terminating, as a dead machine does).
      const node = await nodes.getKv('', String(pod['spec']['nodeName']));
      if (isSimulatedNode(node && nodes.decode(node))) return;
      const ms = Date.parse(meta.deletionTimestamp) - deps.clock.now().getTime();
      if (ms > 0) await deps.clock.sleep(ms, stopped.signal);
      if (stopped.signal.aborted) return;
      await pods.delete(meta.namespace!, meta.name!, { gracePeriodSeconds: 0, preconditions: { uid: meta.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409)) && !stopped.signal.aborted) console.error('kubesim: pod termination:', e);
    } finally {
      waiting.delete(mark);
    }
  }

  // podgc marks the pods it deletes as its own manager would apply them.
  const podgcPods = pods.asManager('PodGC');
  /** Node names seen missing, with when they were first missed. */
  const missingSince = new Map<string, number>();

  /** markFailedAndDeletePodWithCondition: phase Failed (and the condition) unless it already finished, then a delete with grace period 0. */
  async function markFailedAndDelete(pod: KubeObject, condition?: Record<string, unknown>): Promise<void> {
    const { namespace, name, uid } = pod.metadata;
    try {
      const phase = statusOf(pod)['phase'];
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        await podgcPods.update(namespace!, name!, (cur) => {
          if (!cur || cur.metadata.uid !== uid) throw objectGone();
          const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
          status['phase'] = 'Failed';
          if (condition) status['conditions'] = [...objectsOf(status['conditions']).filter((c) => c['type'] !== condition['type']), condition];
          return cur;
        }, { subresource: 'status' });
      }
      await pods.delete(namespace!, name!, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409)) && !stopped.signal.aborted) console.error('kubesim: pod garbage collection:', e);
    }
  }

  async function gc(): Promise<void> {
    const [podList, nodeList] = await Promise.all([pods.list(''), nodes.list('')]);
    const existing = new Set(nodeList.items.map((n) => n.metadata.name));
    const nowDate = deps.clock.now();
    const now = nowDate.getTime();
    for (const name of missingSince.keys()) if (existing.has(name)) missingSince.delete(name);
    const deletedNodes = new Set<string>();
    for (const pod of podList.items) {
      const nodeName = String(specOf(pod)['nodeName'] ?? '');
      if (!nodeName || existing.has(nodeName)) continue;
      const since = missingSince.get(nodeName);
      if (since === undefined) missingSince.set(nodeName, now);
      else if (now - since >= quarantineMs) deletedNodes.add(nodeName);
    }
    const condition = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(nowDate), reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };
    for (const pod of podList.items) {
      const nodeName = String(specOf(pod)['nodeName'] ?? '');
      if (deletedNodes.has(nodeName)) await markFailedAndDelete(pod, condition);
      else if (!nodeName && pod.metadata.deletionTimestamp) await markFailedAndDelete(pod);
    }
  }

  void (async () => {
    for (;;) {
      await deps.clock.sleep(gcCheckPeriodMs, stopped.signal);
      if (stopped.signal.aborted) return;
      try {
        await gc();
      } catch (e) {
        if (!stopped.signal.aborted) console.error('kubesim: pod garbage collection:', e);
      }
    }
  })();

  const started = (async () => {
    const listed = await pods.list('');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(pods.prefix, listed.revision, (e) => {
      if (e.type === 'PUT' && e.kv.value.includes('"deletionTimestamp"')) void finish(pods.decode(e.kv));
    }));
    for (const pod of listed.items) void finish(pod);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: pod termination:', e);
  });

  return {
    // Grace periods still running are not work in progress.
    idle: () => started,
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
