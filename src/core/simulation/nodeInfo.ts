/**
 * What kube-scheduler knows of pods and nodes (framework.PodInfo and
 * NodeInfo): each pod's requests, host ports, priority and parsed affinity
 * terms, computed once per version of the pod; each node with the pods on
 * it and what they request in all (the requests as NodeResourcesFit counts
 * them, and with the 100m / 200Mi a container without cpu or memory
 * requests counts as for scoring). Preemption works on copies with pods
 * taken out.
 */
import { quantityMilliValue } from '../api/quantity';
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { specOf, statusOf } from '../controllers/controllerUtils';
import { podRequests } from '../quota/podResources';
import { parseResourceList } from '../quota/resources';
import { podAffinityTermsOf, type PodAffinityTerms } from './interPodAffinity';

/** Resource amounts in milli-units (cpu in millicores, memory in thousandths of a byte), as bigints. */
export type Amounts = Map<string, bigint>;

export interface PodInfo {
  pod: KubeObject;
  /** namespace/name */
  key: string;
  namespace: string;
  labels: Record<string, string>;
  /** spec.priority (0 when unset, as corev1helpers.PodPriority reads it). */
  priority: number;
  /** PodRequests with overhead, zero amounts left out. */
  requests: Amounts;
  /** The cpu (milli) and memory (bytes) the scoring counts: a container without a request as 100m and 200Mi. */
  nonZero: { cpu: bigint; memory: bigint };
  /** protocol/hostIP/hostPort of each host port. */
  ports: string[];
  affinity: PodAffinityTerms;
  /** status.startTime in ms (for MoreImportantPod); a pod not started yet counts as starting now. */
  startTime: number | undefined;
}

export interface NodeInfo {
  node: KubeObject;
  name: string;
  labels: Record<string, string>;
  allocatable: Amounts;
  pods: PodInfo[];
  requested: Amounts;
  nonZero: { cpu: bigint; memory: bigint };
}

/** The scheduler's non-zero defaults for a container that requests no cpu or memory (schedutil.DefaultMilliCPURequest, DefaultMemoryRequest). */
const defaultMilliCPU = 100n;
const defaultMemory = 200n * 1024n * 1024n;

function amountsOf(value: unknown): Amounts {
  const out: Amounts = new Map();
  for (const [k, q] of parseResourceList(value)) out.set(k, quantityMilliValue(q));
  return out;
}

const hostPortsOf = (pod: KubeObject): string[] =>
  [...objectsOf(specOf(pod)['containers']), ...objectsOf(specOf(pod)['initContainers'])].flatMap((c) =>
    objectsOf(c['ports'])
      .filter((p) => typeof p['hostPort'] === 'number' && p['hostPort'] > 0)
      .map((p) => `${p['protocol'] ?? 'TCP'}/${p['hostIP'] || '0.0.0.0'}/${p['hostPort']}`),
  );

/** Two host ports conflict on protocol and port when either listens on every address. */
export function portsConflict(a: string, b: string): boolean {
  const [pa, ia, na] = a.split('/');
  const [pb, ib, nb] = b.split('/');
  return pa === pb && na === nb && (ia === ib || ia === '0.0.0.0' || ib === '0.0.0.0');
}

/** The cpu and memory a pod counts for in scoring: each container's request, or the defaults (plus the largest init container's, and overhead). */
function nonZeroRequests(pod: KubeObject): { cpu: bigint; memory: bigint } {
  const spec = specOf(pod);
  const one = (c: Record<string, unknown>) => {
    const req = amountsOf(isObject(c['resources']) ? c['resources']['requests'] : undefined);
    return { cpu: req.get('cpu') ?? defaultMilliCPU, memory: req.has('memory') ? req.get('memory')! / 1000n : defaultMemory };
  };
  let cpu = 0n;
  let memory = 0n;
  for (const c of objectsOf(spec['containers'])) {
    const r = one(c);
    cpu += r.cpu;
    memory += r.memory;
  }
  for (const c of objectsOf(spec['initContainers'])) {
    if (c['restartPolicy'] === 'Always') continue;
    const r = one(c);
    if (r.cpu > cpu) cpu = r.cpu;
    if (r.memory > memory) memory = r.memory;
  }
  const overhead = amountsOf(spec['overhead']);
  return { cpu: cpu + (overhead.get('cpu') ?? 0n), memory: memory + (overhead.get('memory') ?? 0n) / 1000n };
}

export function newPodInfo(pod: KubeObject): PodInfo {
  const requests: Amounts = new Map();
  for (const [k, q] of podRequests(pod, { overhead: true })) {
    const v = quantityMilliValue(q);
    if (v !== 0n) requests.set(k, v);
  }
  const started = Date.parse(String(statusOf(pod)['startTime'] ?? ''));
  return {
    pod,
    key: `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`,
    namespace: pod.metadata.namespace ?? '',
    labels: pod.metadata.labels ?? {},
    priority: typeof specOf(pod)['priority'] === 'number' ? (specOf(pod)['priority'] as number) : 0,
    requests,
    nonZero: nonZeroRequests(pod),
    ports: hostPortsOf(pod),
    affinity: podAffinityTermsOf(pod),
    startTime: Number.isNaN(started) ? undefined : started,
  };
}

export function newNodeInfo(node: KubeObject): NodeInfo {
  return {
    node,
    name: node.metadata.name ?? '',
    labels: node.metadata.labels ?? {},
    allocatable: amountsOf(statusOf(node)['allocatable']),
    pods: [],
    requested: new Map(),
    nonZero: { cpu: 0n, memory: 0n },
  };
}

function addAmounts(into: Amounts, from: Amounts, sign: 1n | -1n): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0n) + sign * v);
}

export function addPod(info: NodeInfo, pod: PodInfo): void {
  info.pods.push(pod);
  addAmounts(info.requested, pod.requests, 1n);
  info.nonZero.cpu += pod.nonZero.cpu;
  info.nonZero.memory += pod.nonZero.memory;
}

export function removePod(info: NodeInfo, key: string): PodInfo | undefined {
  const i = info.pods.findIndex((p) => p.key === key);
  if (i < 0) return undefined;
  const [pod] = info.pods.splice(i, 1) as [PodInfo];
  addAmounts(info.requested, pod.requests, -1n);
  info.nonZero.cpu -= pod.nonZero.cpu;
  info.nonZero.memory -= pod.nonZero.memory;
  return pod;
}

/** NodeInfo.Snapshot: a copy whose pods can be taken out and put back (the PodInfos are shared). */
export function cloneNodeInfo(info: NodeInfo): NodeInfo {
  return { ...info, pods: [...info.pods], requested: new Map(info.requested), nonZero: { ...info.nonZero } };
}

/** util.MoreImportantPod: higher priority first, then the one that started earlier. */
export function moreImportant(a: PodInfo, b: PodInfo, nowMs: number): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  return (a.startTime ?? nowMs) < (b.startTime ?? nowMs);
}

/** The cluster as one scheduling cycle sees it: every node (by name) with its pods. */
export interface Snapshot {
  nodes: NodeInfo[];
  byName: Map<string, NodeInfo>;
  /** Namespace labels by name, for namespaceSelector terms. */
  namespaceLabels(namespace: string): Record<string, string> | undefined;
}
