/**
 * kube-scheduler for simulated nodes: binds each pending pod whose
 * schedulerName is `default-scheduler` to a node that passes the default
 * filters (NodeUnschedulable, NodeAffinity with nodeSelector,
 * TaintToleration, NodePorts, NodeResourcesFit, VolumeBinding from
 * volumeBinding.ts), preferring the least
 * requested one (NodeResourcesFit's LeastAllocated score over cpu and
 * memory, counting a container without requests as 100m and 200Mi as the
 * scheduler does), ties going to the first node by name. It binds through
 * pods/binding and records `Scheduled`; a pod no node fits gets
 * `PodScheduled=False` (Unschedulable) with the scheduler's FitError
 * message and a `FailedScheduling` warning, and is tried again when a node
 * or a bound pod changes (or, for volumes, a claim, volume or class). A pod
 * whose claims the chosen node must first get is held there until they are
 * bound, then bound itself. kubesim does not preempt: the message's
 * preemption part says what the scheduler's post-filter would find when no
 * pod of lower priority could make room.
 */
import { compareQuantities, quantityMilliValue, type Quantity } from '../api/quantity';
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { assignPod } from '../registry/core/podBinding';
import { newEventRecorder } from '../controllers/events';
import type { NamespaceControllerDeps } from '../controllers/namespace';
import { watchInto, type RunningController } from '../controllers/informer';
import { newWorkQueue } from '../controllers/workqueue';
import { podRequests } from '../quota/podResources';
import { add, addQuantity, parseResourceList, type ResourceList } from '../quota/resources';
import { specOf, statusOf } from '../controllers/controllerUtils';
import { affinityFits, tolerates } from '../api/nodeAffinity';
import { newVolumeBinding, podClaimNames, type PodVolumes } from './volumeBinding';


/** Why a node does not fit; unresolvable reasons are ones preemption cannot help with. */
interface Misfit {
  reasons: string[];
  unresolvable: boolean;
}

const hostPortsOf = (pod: KubeObject): string[] =>
  [...objectsOf(specOf(pod)['containers']), ...objectsOf(specOf(pod)['initContainers'])].flatMap((c) =>
    objectsOf(c['ports'])
      .filter((p) => typeof p['hostPort'] === 'number' && p['hostPort'] > 0)
      .map((p) => `${p['protocol'] ?? 'TCP'}/${p['hostIP'] || '0.0.0.0'}/${p['hostPort']}`),
  );

/** Two host ports conflict on protocol and port when either listens on every address. */
function portsConflict(a: string, b: string): boolean {
  const [pa, ia, na] = a.split('/');
  const [pb, ib, nb] = b.split('/');
  return pa === pb && na === nb && (ia === ib || ia === '0.0.0.0' || ib === '0.0.0.0');
}

/** The scheduler's non-zero defaults for a container that requests no cpu or memory (scoring only). */
const defaultMilliCPU = 100n;
const defaultMemory = 200n * 1024n * 1024n;

function scoringRequests(pod: KubeObject): { cpu: bigint; memory: bigint } {
  let cpu = 0n;
  let memory = 0n;
  for (const c of objectsOf(specOf(pod)['containers'])) {
    const req = parseResourceList(isObject(c['resources']) ? c['resources']['requests'] : undefined);
    cpu += req.has('cpu') ? quantityMilliValue(req.get('cpu')!) : defaultMilliCPU;
    memory += req.has('memory') ? quantityMilliValue(req.get('memory')!) / 1000n : defaultMemory;
  }
  return { cpu, memory };
}

/** What is already placed on a node. */
interface NodeUsage {
  pods: number;
  requests: ResourceList;
  ports: string[];
  scoring: { cpu: bigint; memory: bigint };
}

/** Runs the filters for one node: the reasons it does not fit, or undefined when it fits. */
function filter(pod: KubeObject, node: KubeObject, usage: NodeUsage): Misfit | undefined {
  const tolerations = objectsOf(specOf(pod)['tolerations']);
  const nodeSpec = specOf(node);
  if (nodeSpec['unschedulable'] === true && !tolerations.some((t) => tolerates(t, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }))) {
    return { reasons: ["node(s) were unschedulable"], unresolvable: true };
  }
  if (!affinityFits(pod, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
  const taint = objectsOf(nodeSpec['taints']).find((t) => (t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute') && !tolerations.some((tol) => tolerates(tol, t)));
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint['key']}: ${taint['value'] ?? ''}}`], unresolvable: true };
  const wanted = hostPortsOf(pod);
  if (wanted.some((p) => usage.ports.some((q) => portsConflict(p, q)))) return { reasons: ["node(s) didn't have free ports for the requested pod ports"], unresolvable: false };
  // NodeResourcesFit: every requested resource within what the node has left.
  const allocatable = parseResourceList(isObject(node['status']) ? node['status']['allocatable'] : undefined);
  const reasons: string[] = [];
  const maxPods = allocatable.get('pods');
  if (maxPods && BigInt(usage.pods + 1) * 1000n > quantityMilliValue(maxPods)) reasons.push('Too many pods');
  const requests = podRequests(pod, { overhead: true });
  for (const [name, q] of requests) {
    if (q.unscaled === 0n) continue;
    const have = allocatable.get(name);
    const used = usage.requests.get(name);
    const total = used ? addQuantity(used, q) : q;
    if (!have || compareQuantities(total, have) > 0) reasons.push(`Insufficient ${name}`);
  }
  return reasons.length ? { reasons, unresolvable: false } : undefined;
}

/** LeastAllocated: the mean share of cpu and memory left free after placing the pod, 0-100. */
function score(pod: KubeObject, node: KubeObject, usage: NodeUsage): number {
  const allocatable = parseResourceList(isObject(node['status']) ? node['status']['allocatable'] : undefined);
  const want = scoringRequests(pod);
  const share = (requested: bigint, capacity: Quantity | undefined) => {
    const cap = capacity ? Number(quantityMilliValue(capacity)) : 0;
    return cap <= 0 || Number(requested) > cap ? 0 : ((cap - Number(requested)) * 100) / cap;
  };
  return (share(usage.scoring.cpu + want.cpu, allocatable.get('cpu')) + share((usage.scoring.memory + want.memory) * 1000n, allocatable.get('memory'))) / 2;
}

/** FitError.Error(): a PreFilter's message or the reasons counted over the nodes, sorted, and the post-filter's answer. */
export function fitErrorMessage(nodes: number, misfits: Misfit[], preFilterMessage?: string): string {
  if (nodes === 0) return 'no nodes available to schedule pods';
  const histogram = (list: Misfit[]) => {
    const counts = new Map<string, number>();
    for (const m of list) for (const r of m.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    return [...counts].map(([r, n]) => `${n} ${r}`).sort();
  };
  const preemption = new Map<string, number>();
  for (const m of misfits) {
    const r = m.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod';
    preemption.set(r, (preemption.get(r) ?? 0) + 1);
  }
  const post = [...preemption].map(([r, n]) => `${n} ${r}`).sort();
  const reasons = preFilterMessage ?? histogram(misfits).join(', ');
  return `0/${nodes} nodes are available: ${reasons}. preemption: 0/${nodes} nodes are available: ${post.join(', ')}.`;
}

/** How long PreBind waits for a pod's claims to be bound (VolumeBindingArgs.bindTimeoutSeconds). */
const bindTimeoutMs = 600_000;

const isBound = (pod: KubeObject) => !!specOf(pod)['nodeName'];
const isTerminal = (pod: KubeObject) => statusOf(pod)['phase'] === 'Succeeded' || statusOf(pod)['phase'] === 'Failed';

/** Whether this scheduler places the pod: unbound, not finished or going, ungated, and ours. */
function wantsScheduling(pod: KubeObject): boolean {
  const spec = specOf(pod);
  return !isBound(pod) && !isTerminal(pod) && !pod.metadata.deletionTimestamp && (spec['schedulerName'] ?? 'default-scheduler') === 'default-scheduler' && !(Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length);
}

export function startScheduler(deps: NamespaceControllerDeps): RunningController {
  const podType = deps.registry.resourceFor('', 'v1', 'pods')!;
  const pods = deps.storeFor(podType);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const recorder = newEventRecorder(deps, 'default-scheduler');
  const volumeBinding = newVolumeBinding(deps);
  /** Pods whose volumes are being bound for the node they were given (the binding cycle's wait): counted on that node meanwhile. */
  const assumed = new Map<string, { uid: string; node: string; claims: string[]; deadline: number }>();
  const stopped = new AbortController();
  /** Pods that did not fit: tried again when the cluster changes (the unschedulable queue's move on events). */
  const unschedulable = new Set<string>();
  /** One pod at a time, each placement seeing the bindings before it (the scheduler's assumed pods). */
  let turn: Promise<void> = Promise.resolve();
  const queue = newWorkQueue('scheduler', (key) => (turn = turn.then(() => sync(key), () => sync(key))));

  /** Counts the cluster changes that move parked pods (the queue's moveRequestCycle). */
  let moves = 0;

  function retryUnschedulable(): string[] {
    moves++;
    const keys = [...unschedulable];
    unschedulable.clear();
    return keys;
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    // Parked until a node or a bound pod changes, as the scheduler's unschedulable queue holds it (its own condition write included).
    if (unschedulable.has(key)) return;
    const kv = await pods.getKv(namespace, name);
    if (!kv) return void assumed.delete(key);
    const pod = pods.decode(kv);
    const waiting = assumed.get(key);
    if (waiting && (waiting.uid !== pod.metadata.uid || !wantsScheduling(pod))) assumed.delete(key);
    if (!wantsScheduling(pod)) return;
    const movesAtStart = moves;
    const nodeList = (await nodes.list('')).items.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    if (waiting && assumed.has(key)) return finishBinding(key, pod, nodeList.find((n) => n.metadata.name === waiting.node));
    const usage = new Map<string, NodeUsage>(nodeList.map((n) => [n.metadata.name!, { pods: 0, requests: new Map(), ports: [], scoring: { cpu: 0n, memory: 0n } }]));
    for (const other of (await pods.list('')).items) {
      const assumedOn = assumed.get(`${other.metadata.namespace}/${other.metadata.name}`);
      const u = usage.get(String(specOf(other)['nodeName'] || (assumedOn && assumedOn.uid === other.metadata.uid ? assumedOn.node : '')));
      if (!u || isTerminal(other)) continue;
      u.pods++;
      u.requests = add(u.requests, podRequests(other, { overhead: true }));
      u.ports.push(...hostPortsOf(other));
      const s = scoringRequests(other);
      u.scoring.cpu += s.cpu;
      u.scoring.memory += s.memory;
    }
    const misfits: Misfit[] = [];
    let best: { node: KubeObject; score: number; volumes?: PodVolumes } | undefined;
    // VolumeBinding's PreFilter: a claim missing or unbound (Immediate) rejects every node at once.
    const claims = nodeList.length ? await volumeBinding.preFilter(pod) : undefined;
    const preFilterMessage = typeof claims === 'string' ? claims : undefined;
    for (const node of preFilterMessage ? [] : nodeList) {
      const u = usage.get(node.metadata.name!)!;
      const misfit = filter(pod, node, u);
      if (misfit) {
        misfits.push(misfit);
        continue;
      }
      const volumes = claims && typeof claims === 'object' ? volumeBinding.filter(claims, node) : undefined;
      if (volumes && 'reasons' in volumes) {
        misfits.push({ reasons: volumes.reasons, unresolvable: true });
        continue;
      }
      const s = score(pod, node, u);
      if (!best || s > best.score) best = { node, score: s, ...(volumes ? { volumes } : {}) };
    }
    // A PreFilter rejection stands for every node, none of which preemption could help.
    if (preFilterMessage) misfits.push(...nodeList.map(() => ({ reasons: [], unresolvable: true })));
    if (!best) {
      const message = fitErrorMessage(nodeList.length, misfits, preFilterMessage);
      // A change during this attempt may have made room: try again rather than park (kube's backoff queue).
      if (moves !== movesAtStart) queue.add(key);
      else unschedulable.add(key);
      recorder.event(pod, 'Warning', 'FailedScheduling', message);
      await markUnschedulable(pod, message);
      return;
    }
    const target = best.node.metadata.name!;
    const toBind = best.volumes && best.volumes.staticBindings.length + best.volumes.provisions.length > 0;
    if (!toBind) return bindPod(pod, target);
    // Reserve and PreBind: the node is the pod's while its claims are bound; their changes bring it back.
    assumed.set(key, { uid: pod.metadata.uid!, node: target, claims: podClaimNames(pod).map((c) => c.name), deadline: deps.clock.now().getTime() + bindTimeoutMs });
    void deps.clock.sleep(bindTimeoutMs, stopped.signal).then(() => queue.add(key), () => {});
    try {
      await volumeBinding.preBind(best.volumes!, target);
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      assumed.delete(key);
      return failBinding(key, pod, `running PreBind plugin "VolumeBinding": binding volumes: ${e.message}`);
    }
    queue.add(key);
  }

  /** The end of the binding cycle for a pod whose volumes were being bound: bound, still waiting, or failed. */
  async function finishBinding(key: string, pod: KubeObject, node: KubeObject | undefined): Promise<void> {
    let done = await volumeBinding.allBound(pod, node);
    // The binding cycle polls its claims for bindTimeout, then gives up.
    if (done === false && deps.clock.now().getTime() >= (assumed.get(key)?.deadline ?? 0)) done = 'context deadline exceeded';
    if (done === false) return;
    assumed.delete(key);
    if (typeof done === 'string' || !node) return failBinding(key, pod, `running PreBind plugin "VolumeBinding": binding volumes: ${typeof done === 'string' ? done : 'node is gone'}`);
    await bindPod(pod, node.metadata.name!);
  }

  /** A binding cycle that failed: reported as the scheduler's failure handler reports an error (SchedulerError); tried again on a change. */
  async function failBinding(key: string, pod: KubeObject, message: string): Promise<void> {
    unschedulable.add(key);
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
    }
  }

  /** Pods waiting on a claim: those whose volumes are being bound, and (on any claim change) the unschedulable ones. */
  function podsForClaim(namespace: string, claim: string): string[] {
    const waiting = [...assumed].filter(([k, a]) => k.startsWith(`${namespace}/`) && a.claims.includes(claim)).map(([k]) => k);
    return unschedulable.size ? [...waiting, ...retryUnschedulable()] : waiting;
  }

  /** The PodScheduled condition an unschedulable pod shows (updatePod in the scheduler's failure handler). */
  async function markUnschedulable(pod: KubeObject, message: string, reason = 'Unschedulable'): Promise<void> {
    try {
      await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== pod.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
        const status = isObject(cur['status']) ? cur['status'] : (cur['status'] = {});
        const conditions = objectsOf(status['conditions']);
        const was = conditions.find((c) => c['type'] === 'PodScheduled');
        if (was?.['status'] === 'False' && was['reason'] === reason && was['message'] === message) return cur;
        const next = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: was?.['status'] === 'False' ? was['lastTransitionTime'] : formatTime(deps.clock.now()), reason, message };
        status['conditions'] = was ? conditions.map((c) => (c === was ? next : c)) : [...conditions, next];
        return cur;
      }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
    }
  }

  const running = watchInto(deps, queue, pods, [
    {
      store: nodes,
      // A node added or changed may fit what did not fit before.
      keysFor: () => retryUnschedulable(),
    },
    {
      // VolumeBinding's events: a claim, volume or class added or changed may bind a waiting pod or fit an unschedulable one.
      store: volumeBinding.claims,
      keysFor: (e) => {
        const claim = volumeBinding.claims.decode(e.kv);
        return podsForClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
      },
    },
    { store: volumeBinding.volumes, keysFor: () => (unschedulable.size ? retryUnschedulable() : []) },
    { store: volumeBinding.classes, keysFor: () => (unschedulable.size ? retryUnschedulable() : []) },
    {
      store: pods,
      // A bound pod that finished or went frees its node's room.
      keysFor: (e) => (unschedulable.size && (e.type === 'DELETE' || isTerminal(pods.decode(e.kv))) ? retryUnschedulable() : []),
    },
  ]);
  return {
    idle: () => running.idle(),
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
