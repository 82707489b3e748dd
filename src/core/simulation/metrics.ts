/**
 * Simulated resource usage, what metrics-server would scrape from the
 * simulated kubelets: a pod's cpu and memory come from its annotations
 * `kubesim.io/cpu-usage` and `kubesim.io/memory-usage` (a quantity for the
 * whole pod, split over its containers in proportion to their requests), or
 * from what a container's program says it uses (a load generator's
 * `demand`: `stress --vm 1 --vm-bytes 150M`), cpu within the container's
 * limit as CFS throttles it, or default to a small fixed share of each
 * container's requests. A node uses what its running pods use plus a fixed
 * system overhead.
 *
 * Only a Running pod whose containers all run has metrics, as metrics-server
 * drops pods it has no complete sample of.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { formatQuantity, parseQuantity } from '../api/quantity';
import { specOf, statusOf } from '../controllers/controllerUtils';
import { containerArgv } from './containerProcess';
import { imageFor, type ProgramDemand } from './image';
import { recentWorkNano } from './serverLoad';
import { containerLimit, containerRequest, usageUnits } from './containerResources';

/** Pod annotations scripting usage: quantities for the whole pod (`800m`, `200Mi`). */
export const cpuUsageAnnotation = 'kubesim.io/cpu-usage';
export const memoryUsageAnnotation = 'kubesim.io/memory-usage';

/** metrics-server's sampling window, as it reports it. */
export const metricsWindow = '20s';

/** A container's usage: cpu in nanocores, memory in bytes. */
export interface ContainerUsage {
  name: string;
  cpuNano: bigint;
  memoryBytes: bigint;
}

/** What a node uses with no pods: the kubelet, the runtime and the system daemons. */
export const nodeOverhead = { cpuNano: 100_000_000n, memoryBytes: 512n * 1024n * 1024n };

/** Defaults without annotations: a tenth of the requests, or this much when a container requests nothing. */
const idleCpuNano = 1_000_000n;
const idleMemoryBytes = 4n * 1024n * 1024n;

/** What the container's program uses when it is a load of its own: its image's program's demand for its argv. */
function programDemand(container: Record<string, unknown>): ProgramDemand | undefined {
  const image = imageFor(typeof container['image'] === 'string' ? container['image'] : '');
  if (!image.programs.size) return undefined;
  const argv = containerArgv(container, image, new Map());
  const name = argv[0];
  if (!name) return undefined;
  const path = name.startsWith('/') ? name : [...image.programs.keys()].find((p) => p.endsWith(`/${name}`));
  return path ? image.programs.get(path)?.demand?.(argv.slice(1)) : undefined;
}

/** A pod-wide amount shared by the containers in proportion to their requests (evenly when none requests any); the remainder to the first. */
function split(total: bigint, weights: bigint[]): bigint[] {
  const sum = weights.reduce((a, b) => a + b, 0n);
  const shares = sum > 0n ? weights.map((w) => (total * w) / sum) : weights.map(() => total / BigInt(weights.length));
  shares[0] = (shares[0] ?? 0n) + total - shares.reduce((a, b) => a + b, 0n);
  return shares;
}

/** Whether metrics-server would have a sample of the pod: Running on a node, every container running. */
export function hasMetrics(pod: KubeObject): boolean {
  const status = statusOf(pod);
  if (status['phase'] !== 'Running' || !specOf(pod)['nodeName'] || pod.metadata.deletionTimestamp) return false;
  const containers = objectsOf(specOf(pod)['containers']);
  const statuses = objectsOf(status['containerStatuses']);
  return containers.length > 0 && containers.every((c) => {
    const s = statuses.find((x) => x['name'] === c['name']);
    return !!s && isObject(s['state']) && isObject(s['state']['running']);
  });
}

/** The pod's containers' usage; undefined when it has no metrics. */
export function podUsage(pod: KubeObject, now?: number): ContainerUsage[] | undefined {
  if (!hasMetrics(pod)) return undefined;
  const containers = objectsOf(specOf(pod)['containers']);
  const annotations = pod.metadata.annotations ?? {};
  const usage = (resource: 'cpu' | 'memory', annotation: string, idle: bigint): bigint[] => {
    const requests = containers.map((c) => containerRequest(c, resource));
    const q = parseQuantity(annotations[annotation]);
    if (q && q.unscaled >= 0n) return split(usageUnits(q, resource), requests);
    return requests.map((r) => (r > 0n ? r / 10n : idle));
  };
  const cpu = usage('cpu', cpuUsageAnnotation, idleCpuNano);
  const memory = usage('memory', memoryUsageAnnotation, idleMemoryBytes);
  return containers.map((c, i) => {
    const demand = annotations[cpuUsageAnnotation] === undefined || annotations[memoryUsageAnnotation] === undefined ? programDemand(c) : undefined;
    const cpuLimit = containerLimit(c, 'cpu');
    // Without an annotation: the program's own load, or its idle share plus what its server's requests cost lately; CFS holds it to the limit.
    const scripted = annotations[cpuUsageAnnotation] !== undefined;
    const wanted = scripted ? cpu[i]! : (demand?.cpuNano ?? cpu[i]!) + (now === undefined ? 0n : recentWorkNano(pod.metadata.uid ?? '', String(c['name']), now));
    const cpuNano = !scripted && cpuLimit !== undefined && wanted > cpuLimit ? cpuLimit : wanted;
    const memoryBytes = annotations[memoryUsageAnnotation] === undefined && demand?.memoryBytes !== undefined ? demand.memoryBytes : memory[i]!;
    return { name: String(c['name']), cpuNano, memoryBytes };
  });
}

/** A node's usage: its pods' with metrics, plus the overhead. */
export function nodeUsage(nodeName: string, pods: readonly KubeObject[], now?: number): { cpuNano: bigint; memoryBytes: bigint } {
  let { cpuNano, memoryBytes } = nodeOverhead;
  for (const pod of pods) {
    if (specOf(pod)['nodeName'] !== nodeName) continue;
    for (const c of podUsage(pod, now) ?? []) {
      cpuNano += c.cpuNano;
      memoryBytes += c.memoryBytes;
    }
  }
  return { cpuNano, memoryBytes };
}

/** The usage as metrics-server serializes it: cpu a scaled nanocore quantity, memory a binary one (`80m`, `12Mi`). */
export function usageList(u: { cpuNano: bigint; memoryBytes: bigint }): { cpu: string; memory: string } {
  return {
    cpu: formatQuantity({ unscaled: u.cpuNano, scale: -9, format: 'DecimalSI' }),
    memory: formatQuantity({ unscaled: u.memoryBytes, scale: 0, format: 'BinarySI' }),
  };
}

