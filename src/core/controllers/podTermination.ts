/**
 * Graceful pod termination without a kubelet. A bound pod deleted with a
 * grace period stays Terminating until its deletionTimestamp; the kubelet
 * would then stop its containers and delete it with grace period 0. kubesim
 * runs no containers, so this controller sends that final delete when the
 * grace period ends on the server clock (the fake clock makes that happen
 * on demand). It runs under kube-controller-manager's
 * `pod-garbage-collector-controller` name, whose podgc also force-deletes
 * terminating pods no kubelet will finish.
 */
import { isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { isSimulatedNode } from '../simulation/nodes';

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
