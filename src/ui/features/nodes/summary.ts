/**
 * What the Nodes panel shows, read from Nodes and Pods as kubectl reads them:
 * the node's Ready condition and cordon (`kubectl get nodes` STATUS), its
 * taints, the simulated kubelet's stop annotation, "Allocated resources" as
 * `kubectl describe node` sums them, each pod's STATUS as `kubectl get pods`
 * words it, and why an unscheduled pod waits (its PodScheduled condition).
 */
import { formatQuantity, parseQuantity, quantityMilliValue } from '../../../core/api/quantity';
import type { KubeObject as CoreObject } from '../../../core/api/types';
import { printPod } from '../../../core/printers/pods';
import { add, podRequests, quantityValue, zeroQuantity, type ResourceList } from '../../../core/quota';
import { kubeletStoppedAnnotation, kubeletStoppedValue } from '../../../core/simulation/kubeletAnnotation';
import type { KubeObject } from '../../api';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const asCore = (o: KubeObject): CoreObject => ({ apiVersion: '', kind: '', ...o, metadata: o.metadata ?? {} });

export type Readiness = 'Ready' | 'NotReady' | 'Unknown';

export interface NodeCondition {
  status: Readiness;
  reason: string;
  message: string;
}

export interface NodeSummary {
  name: string;
  ready: NodeCondition;
  /** spec.unschedulable: `kubectl cordon` set it; get nodes shows SchedulingDisabled. */
  cordoned: boolean;
  /** As `kubectl describe node` lists them: `key=value:Effect`. */
  taints: string[];
  kubeletStopped: boolean;
}

/** The Ready condition: True is Ready, False NotReady, Unknown (or none yet) Unknown. */
export function readyCondition(node: KubeObject): NodeCondition {
  const ready = objs(obj(node['status'])['conditions']).find((c) => c['type'] === 'Ready');
  if (!ready) return { status: 'Unknown', reason: '', message: 'the kubelet has not reported a Ready condition' };
  const status: Readiness = ready['status'] === 'True' ? 'Ready' : ready['status'] === 'False' ? 'NotReady' : 'Unknown';
  return { status, reason: str(ready['reason']), message: str(ready['message']) };
}

export function formatTaint(taint: Obj): string {
  const value = str(taint['value']);
  return `${str(taint['key'])}${value ? `=${value}` : ''}:${str(taint['effect'])}`;
}

export function summarizeNode(node: KubeObject): NodeSummary {
  const spec = obj(node['spec']);
  return {
    name: node.metadata?.name ?? '',
    ready: readyCondition(node),
    cordoned: spec['unschedulable'] === true,
    taints: objs(spec['taints']).map(formatTaint),
    kubeletStopped: node.metadata?.annotations?.[kubeletStoppedAnnotation] === kubeletStoppedValue,
  };
}

/** A pod's phase is terminal: it no longer holds its requests on the node. */
export function isTerminal(pod: KubeObject): boolean {
  const phase = obj(pod['status'])['phase'];
  return phase === 'Succeeded' || phase === 'Failed';
}

export interface Allocation {
  resource: 'cpu' | 'memory';
  /** Quantity.String() of the sum of requests, e.g. `250m`, `128Mi`, `0`. */
  requests: string;
  allocatable: string;
  /** Truncated to a whole percent, as describe prints it (0 when nothing is allocatable). */
  percent: number;
}

/**
 * describe node's "Allocated resources": the requests (pod overhead
 * included) of the pods bound to the node that are not Succeeded or Failed,
 * against status.allocatable; cpu compared in millicores, memory in bytes.
 */
export function allocatedResources(node: KubeObject, pods: readonly KubeObject[]): Allocation[] {
  const name = node.metadata?.name;
  let total: ResourceList = new Map();
  for (const pod of pods) {
    if (obj(pod['spec'])['nodeName'] !== name || isTerminal(pod)) continue;
    total = add(total, podRequests(asCore(pod), { overhead: true }));
  }
  const allocatable = obj(obj(node['status'])['allocatable']);
  return (['cpu', 'memory'] as const).map((resource) => {
    const requested = total.get(resource) ?? zeroQuantity;
    const capacity = parseQuantity(allocatable[resource]) ?? zeroQuantity;
    const value = resource === 'cpu' ? quantityMilliValue : quantityValue;
    return { resource, requests: formatQuantity(requested), allocatable: formatQuantity(capacity), percent: fraction(value(requested), value(capacity)) };
  });
}

function fraction(part: bigint, whole: bigint): number {
  return whole > 0n ? Math.trunc((Number(part) / Number(whole)) * 100) : 0;
}

/** How a pod's state is coloured: running and ready, on its way, done, in trouble, or going away. */
export type PodTone = 'ok' | 'pending' | 'done' | 'bad' | 'warn';

export interface PodSummary {
  namespace: string;
  name: string;
  /** `kubectl get pods` STATUS: the phase, or a reason such as ContainerCreating or CrashLoopBackOff. */
  status: string;
  /** READY: ready containers / containers. */
  ready: string;
  tone: PodTone;
}

const PENDING_STATES = new Set(['Pending', 'ContainerCreating', 'PodInitializing', 'SchedulingGated']);
const DONE_STATES = new Set(['Completed', 'Succeeded']);

export function summarizePod(pod: KubeObject, now = new Date()): PodSummary {
  const cells = printPod(asCore(pod), { now }).cells;
  const ready = String(cells[1] ?? '');
  const status = String(cells[2] ?? '');
  const [up, of] = ready.split('/');
  let tone: PodTone;
  if (status === 'Running') tone = up === of ? 'ok' : 'warn';
  else if (PENDING_STATES.has(status) || /^Init:\d+\/\d+$/.test(status)) tone = 'pending';
  else if (DONE_STATES.has(status)) tone = 'done';
  else if (status === 'Terminating' || status === 'Unknown' || status === 'NotReady') tone = 'warn';
  else tone = 'bad';
  return { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', status, ready, tone };
}

export interface PendingPod extends PodSummary {
  /** PodScheduled's reason (Unschedulable, SchedulingGated); empty before the scheduler has tried. */
  reason: string;
  /** The scheduler's FitError, e.g. `0/2 nodes are available: 2 Insufficient cpu. ...`. */
  message: string;
  /** status.nominatedNodeName: preemption chose this node and is making room on it. */
  nominatedNodeName: string;
}

/** A pod no node holds yet: what the scheduler last said about it. */
export function summarizePending(pod: KubeObject, now = new Date()): PendingPod {
  const status = obj(pod['status']);
  const scheduled = objs(status['conditions']).find((c) => c['type'] === 'PodScheduled');
  return {
    ...summarizePod(pod, now),
    reason: scheduled?.['status'] === 'False' ? str(scheduled['reason']) : '',
    message: scheduled?.['status'] === 'False' ? str(scheduled['message']) : '',
    nominatedNodeName: str(status['nominatedNodeName']),
  };
}

export interface Placement {
  /** Pods by spec.nodeName, each list sorted by namespace and name. */
  byNode: Map<string, KubeObject[]>;
  /** Pods with no node that may still be scheduled (not Succeeded or Failed). */
  pending: KubeObject[];
}

/** Where the pods are: bound ones under their node, the rest waiting. */
export function placePods(pods: readonly KubeObject[]): Placement {
  const byNode = new Map<string, KubeObject[]>();
  const pending: KubeObject[] = [];
  for (const pod of [...pods].sort(byNamespacedName)) {
    const node = str(obj(pod['spec'])['nodeName']);
    if (node) {
      const on = byNode.get(node);
      if (on) on.push(pod);
      else byNode.set(node, [pod]);
    } else if (!isTerminal(pod)) pending.push(pod);
  }
  return { byNode, pending };
}

function byNamespacedName(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
