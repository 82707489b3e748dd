/**
 * The node lifecycle controller (pkg/controller/nodelifecycle): every 5s
 * (nodeMonitorPeriod) on the server clock it looks at each Node's last
 * heartbeat, its Lease's renewTime or its Ready condition's
 * lastHeartbeatTime, whichever is later. A node silent for longer than the
 * grace period (50s; 60s for one that never reported) gets its conditions set
 * to Unknown ("Kubelet stopped posting node status."), its pods' Ready
 * condition set False and a `NodeNotReady` event. From the conditions and
 * spec.unschedulable it keeps the taints the scheduler and the taint
 * eviction controller read: `node.kubernetes.io/not-ready` and
 * `node.kubernetes.io/unreachable` (NoSchedule, and NoExecute with
 * timeAdded), `node.kubernetes.io/unschedulable` (NoSchedule), the pressure
 * taints; a node that reports Ready again loses them.
 *
 * kubesim runs it with simulated nodes (whose kubelets can be stopped) or
 * when `--controllers` names it; otherwise hand-made Nodes, which no kubelet
 * backs, would all turn Unknown.
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { newEventRecorder } from './events';
import type { RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { objectGone, specOf, statusOf } from './controllerUtils';
import { realClock } from '../util/clock';
import { jsonEqual } from '../api/equality';

type Obj = Record<string, unknown>;

export const nodeMonitorPeriodMs = 5_000;
export const nodeMonitorGracePeriodMs = 50_000;
export const nodeStartupGracePeriodMs = 60_000;
/** Real time given to heartbeats that fell due in the same clock jump as a health check. */
const heartbeatTurnMs = 50;

/** The conditions the controller turns Unknown when the kubelet goes silent. */
const watchedConditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** The NoSchedule taint each condition status means (TaintNodesByCondition). */
function noScheduleTaints(node: KubeObject): string[] {
  const keys: string[] = [];
  for (const c of objectsOf(statusOf(node)['conditions'])) {
    if (c['type'] === 'Ready' && c['status'] === 'False') keys.push('node.kubernetes.io/not-ready');
    if (c['type'] === 'Ready' && c['status'] === 'Unknown') keys.push('node.kubernetes.io/unreachable');
    if (c['type'] === 'MemoryPressure' && c['status'] === 'True') keys.push('node.kubernetes.io/memory-pressure');
    if (c['type'] === 'DiskPressure' && c['status'] === 'True') keys.push('node.kubernetes.io/disk-pressure');
    if (c['type'] === 'PIDPressure' && c['status'] === 'True') keys.push('node.kubernetes.io/pid-pressure');
  }
  if (specOf(node)['unschedulable'] === true) keys.push('node.kubernetes.io/unschedulable');
  return keys;
}

/** The NoExecute taint of a not-ready or unreachable node (TaintBasedEvictions). */
function noExecuteTaint(node: KubeObject): string | undefined {
  const ready = objectsOf(statusOf(node)['conditions']).find((c) => c['type'] === 'Ready');
  if (ready?.['status'] === 'False') return 'node.kubernetes.io/not-ready';
  if (ready?.['status'] === 'Unknown') return 'node.kubernetes.io/unreachable';
  return undefined;
}

/** The controller's taint keys: others' taints are left as they are. */
const managedKeys = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/unschedulable',
  'node.kubernetes.io/memory-pressure',
  'node.kubernetes.io/disk-pressure',
  'node.kubernetes.io/pid-pressure',
]);

/** The node's taints with the controller's part brought in line with its conditions; existing ones kept as they are (timeAdded too). */
export function reconciledTaints(node: KubeObject, now: Date): Obj[] {
  const current = objectsOf(specOf(node)['taints']);
  const wanted = [
    ...noScheduleTaints(node).map((key) => ({ key, effect: 'NoSchedule' })),
    ...(noExecuteTaint(node) ? [{ key: noExecuteTaint(node)!, effect: 'NoExecute' }] : []),
  ];
  const keep = current.filter((t) => !managedKeys.has(String(t['key'])) || wanted.some((w) => w.key === t['key'] && w.effect === t['effect']));
  const added = wanted
    .filter((w) => !current.some((t) => t['key'] === w.key && t['effect'] === w.effect))
    .map((w) => (w.effect === 'NoExecute' ? { ...w, timeAdded: formatTime(now) } : w));
  return [...keep, ...added];
}

export function startNodeLifecycleController(deps: NamespaceControllerDeps): RunningController {
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const leasesType = deps.registry.resourceFor('coordination.k8s.io', 'v1', 'leases');
  const leases = leasesType ? deps.storeFor(leasesType) : undefined;
  const recorder = newEventRecorder(deps, 'node-controller');
  const stopped = new AbortController();
  let passes = Promise.resolve();

  /** When the node last showed it is alive, in ms; and whether it ever reported. */
  async function lastHeartbeat(node: KubeObject): Promise<{ atMs: number; reported: boolean }> {
    const ready = objectsOf(statusOf(node)['conditions']).find((c) => c['type'] === 'Ready');
    let atMs = ready ? Date.parse(String(ready['lastHeartbeatTime'] ?? '')) : NaN;
    const lease = leases ? await leases.getKv('kube-node-lease', node.metadata.name!) : undefined;
    const renew = lease ? Date.parse(String(specOf(leases!.decode(lease))['renewTime'] ?? '')) : NaN;
    if (!Number.isNaN(renew) && !(renew <= atMs)) atMs = renew;
    if (Number.isNaN(atMs)) return { atMs: Date.parse(node.metadata.creationTimestamp ?? '') || 0, reported: false };
    return { atMs, reported: !!ready };
  }

  /** tryUpdateNodeHealth: the conditions set Unknown once the node has been silent too long; true when it went so now. */
  async function checkHealth(seen: KubeObject): Promise<boolean> {
    const nowDate = deps.clock.now();
    const silent = async (n: KubeObject) => {
      const { atMs, reported } = await lastHeartbeat(n);
      return nowDate.getTime() - atMs > (reported ? nodeMonitorGracePeriodMs : nodeStartupGracePeriodMs);
    };
    if (!(await silent(seen))) return false;
    // A fake clock's jump wakes the kubelets and this controller at once, where real time lets every heartbeat
    // due in between land first: give them that turn before calling the node silent.
    await realClock.sleep(heartbeatTurnMs, stopped.signal);
    const kv = await nodes.getKv('', seen.metadata.name!);
    if (!kv || stopped.signal.aborted) return false;
    const node = nodes.decode(kv);
    if (!(await silent(node))) return false;
    const ready = objectsOf(statusOf(node)['conditions']).find((c) => c['type'] === 'Ready');
    if (ready?.['status'] === 'Unknown') return false;
    const now = formatTime(nowDate);
    await nodes.update('', node.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== node.metadata.uid) throw objectGone();
      const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
      const conditions = objectsOf(status['conditions']);
      for (const type of watchedConditions) {
        const c = conditions.find((x) => x['type'] === type);
        if (!c) {
          conditions.push({ type, status: 'Unknown', lastHeartbeatTime: cur.metadata.creationTimestamp, lastTransitionTime: now, reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' });
        } else if (c['status'] !== 'Unknown') {
          Object.assign(c, { status: 'Unknown', lastTransitionTime: now, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
        }
      }
      status['conditions'] = conditions;
      return cur;
    }, { subresource: 'status' });
    recorder.event({ kind: 'Node', metadata: { name: node.metadata.name, uid: node.metadata.name } } as KubeObject, 'Normal', 'NodeNotReady', `Node ${node.metadata.name} status is now: NodeNotReady`);
    return true;
  }

  /** MarkPodsNotReady: the node's pods are no longer Ready. */
  async function markPodsNotReady(node: KubeObject): Promise<void> {
    const now = formatTime(deps.clock.now());
    for (const pod of (await pods.list('')).items) {
      if (specOf(pod)['nodeName'] !== node.metadata.name) continue;
      const ready = objectsOf(statusOf(pod)['conditions']).find((c) => c['type'] === 'Ready');
      if (ready?.['status'] !== 'True') continue;
      try {
        await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid) throw objectGone();
          const c = objectsOf(statusOf(cur)['conditions']).find((x) => x['type'] === 'Ready');
          if (c) Object.assign(c, { status: 'False', lastTransitionTime: now });
          return cur;
        }, { subresource: 'status' });
        recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (e) {
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      }
    }
  }

  async function reconcileTaints(name: string): Promise<void> {
    const kv = await nodes.getKv('', name);
    if (!kv) return;
    const node = nodes.decode(kv);
    const taints = reconciledTaints(node, deps.clock.now());
    if (jsonEqual(taints, objectsOf(specOf(node)['taints']))) return;
    await nodes.update('', name, (cur) => {
      if (!cur || cur.metadata.uid !== node.metadata.uid) throw objectGone();
      const spec = isObject(cur['spec']) ? cur['spec'] : (cur['spec'] = {});
      const next = reconciledTaints(cur, deps.clock.now());
      if (next.length) spec['taints'] = next;
      else delete spec['taints'];
      return cur;
    });
  }

  /** monitorNodeHealth, then the tainting passes, over every node. */
  async function pass(): Promise<void> {
    for (const node of (await nodes.list('')).items) {
      if (stopped.signal.aborted) return;
      try {
        if (await checkHealth(node)) await markPodsNotReady(node);
        await reconcileTaints(node.metadata.name!);
      } catch (e) {
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      }
    }
  }

  const run = () => {
    passes = passes.then(pass).catch((e) => {
      if (!stopped.signal.aborted) console.error('kubesim: node-lifecycle-controller:', e);
    });
    return passes;
  };
  const unsubscribes: (() => void)[] = [];
  const started = (async () => {
    const listed = await nodes.list('');
    // A node's change (a cordon, a kubelet's report) retaints it at once, as the node informer does.
    unsubscribes.push(await deps.storage.watch(nodes.prefix, listed.revision, (e) => {
      if (e.type === 'PUT') void run();
    }));
    await run();
    while (!stopped.signal.aborted) {
      await deps.clock.sleep(nodeMonitorPeriodMs, stopped.signal);
      if (!stopped.signal.aborted) await run();
    }
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: node-lifecycle-controller:', e);
  });
  void started;
  return {
    idle: () => passes,
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
