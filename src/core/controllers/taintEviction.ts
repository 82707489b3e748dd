/**
 * The taint eviction controller (pkg/controller/tainteviction): a pod bound
 * to a node with NoExecute taints is deleted at once when it does not
 * tolerate one of them, or when the shortest tolerationSeconds of its
 * matching tolerations has passed since the taint was added (on the server
 * clock); a toleration without tolerationSeconds keeps it forever. Before
 * the delete it gets the DisruptionTarget condition (DeletionByTaintManager)
 * and a `TaintManagerEviction` event; a taint removed in time cancels the
 * eviction. This is how the pods of an unreachable node are evicted after
 * the 300s the DefaultTolerationSeconds admission plugin gives them.
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { newEventRecorder } from './events';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { objectGone, specOf, statusOf } from './controllerUtils';
import { tolerates } from '../api/nodeAffinity';


/**
 * When the pod must go, in ms since the epoch: now for an untolerated NoExecute taint, the taints' time
 * plus the smallest tolerationSeconds, or undefined (tolerated forever, or no NoExecute taint).
 */
export function evictionTime(pod: KubeObject, node: KubeObject, nowMs: number): number | undefined {
  const taints = objectsOf(specOf(node)['taints']).filter((t) => t['effect'] === 'NoExecute');
  if (!taints.length) return undefined;
  const tolerations = objectsOf(specOf(pod)['tolerations']);
  let minSeconds = Infinity;
  let since = 0;
  for (const taint of taints) {
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (!matching.length) return nowMs;
    for (const t of matching) {
      if (typeof t['tolerationSeconds'] === 'number') minSeconds = Math.min(minSeconds, Math.max(0, t['tolerationSeconds']));
    }
    since = Math.max(since, Date.parse(String(taint['timeAdded'] ?? '')) || nowMs);
  }
  return minSeconds === Infinity ? undefined : since + minSeconds * 1000;
}

export function startTaintEvictionController(deps: NamespaceControllerDeps): RunningController {
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const recorder = newEventRecorder(deps, 'taint-eviction-controller');
  const stopped = new AbortController();
  /** Scheduled evictions by pod uid: when, and how to cancel the wait. */
  const scheduled = new Map<string, { atMs: number; cancel: AbortController }>();
  let passes = Promise.resolve();

  async function evict(pod: KubeObject): Promise<void> {
    const name = `${pod.metadata.namespace}/${pod.metadata.name}`;
    recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${name}`);
    try {
      await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== pod.metadata.uid) throw objectGone();
        const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
        const conditions = objectsOf(status['conditions']).filter((c) => c['type'] !== 'DisruptionTarget');
        conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(deps.clock.now()), reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
        status['conditions'] = conditions;
        return cur;
      }, { subresource: 'status' });
      await pods.delete(pod.metadata.namespace!, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  function cancel(pod: KubeObject): void {
    const known = scheduled.get(pod.metadata.uid!);
    if (!known) return;
    known.cancel.abort();
    scheduled.delete(pod.metadata.uid!);
    recorder.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  /** Every bound pod against its node's NoExecute taints. */
  async function pass(): Promise<void> {
    const byName = new Map((await nodes.list('')).items.map((n) => [n.metadata.name!, n]));
    const nowMs = deps.clock.now().getTime();
    for (const pod of (await pods.list('')).items) {
      const node = byName.get(String(specOf(pod)['nodeName'] ?? ''));
      if (!node || pod.metadata.deletionTimestamp || statusOf(pod)['phase'] === 'Succeeded' || statusOf(pod)['phase'] === 'Failed') {
        scheduled.get(pod.metadata.uid!)?.cancel.abort();
        scheduled.delete(pod.metadata.uid!);
        continue;
      }
      const at = evictionTime(pod, node, nowMs);
      if (at === undefined) {
        cancel(pod);
        continue;
      }
      if (at <= nowMs) {
        scheduled.delete(pod.metadata.uid!);
        await evict(pod);
        continue;
      }
      if (scheduled.get(pod.metadata.uid!)?.atMs === at) continue;
      scheduled.get(pod.metadata.uid!)?.cancel.abort();
      const wait = { atMs: at, cancel: new AbortController() };
      scheduled.set(pod.metadata.uid!, wait);
      const both = AbortSignal.any([stopped.signal, wait.cancel.signal]);
      void deps.clock.sleep(at - nowMs, both).then(() => {
        if (!both.aborted) void run();
      });
    }
  }

  const run = () => {
    passes = passes.then(pass).catch((e) => {
      if (!stopped.signal.aborted) console.error('kubesim: taint-eviction-controller:', e);
    });
    return passes;
  };
  const unsubscribes: (() => void)[] = [];
  void (async () => {
    const listed = await nodes.list('');
    if (stopped.signal.aborted) return;
    // A node's taints changed, or a pod was bound: look again (the controller's node and pod informers).
    unsubscribes.push(await deps.storage.watch(nodes.prefix, listed.revision, () => void run()));
    unsubscribes.push(await deps.storage.watch(pods.prefix, listed.revision, (e) => {
      if (e.type === 'PUT' && !e.prevKv?.value.includes('"nodeName"') && e.kv.value.includes('"nodeName"')) void run();
    }));
    await run();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: taint-eviction-controller:', e);
  });
  return {
    idle: () => passes,
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
