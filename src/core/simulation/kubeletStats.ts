/**
 * What a simulated kubelet's stats provider reports: one sample of its node
 * and of the pods it runs, built from the simulated usage (metrics.ts, the
 * figures metrics.k8s.io serves, so `kubectl top` and the kubelet agree),
 * the Node's capacity, and fixed figures where the simulation has none
 * (disk, network, page cache, pressure). Cumulative counters grow with the
 * time each cgroup has run on the server clock.
 *
 * Rendered as the kubelet renders it: the Summary API (stats/v1alpha1,
 * /stats/summary), the resource metrics (/metrics/resource) and the
 * embedded cAdvisor's metrics (/metrics/cadvisor).
 */
import { formatTime, isObject, objectsOf, type KubeObject } from '../api/types';
import { parseQuantity, quantityMilliValue } from '../api/quantity';
import { qosClass } from '../api/podQos';
import { specOf, statusOf } from '../controllers/controllerUtils';
import { Counter, Gauge, MetricsRegistry } from '../ops/metrics';
import { nodeOverhead, podUsage } from './metrics';
import { containerLimit, cpuShares, usageUnits } from './containerResources';
import { hexOf } from './nodes';
import { normalizedImage } from './kubelet';

type Obj = Record<string, unknown>;

/** Fixed figures of the simulated machine where the simulation models nothing. */
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
/** The OS and the kubelet's own files on the node's disk. */
const systemDiskBytes = 4 * GiB;
const systemDiskInodes = 180_000;
/** ext4's default bytes-per-inode. */
const bytesPerInode = 16 * KiB;
/** A container's writable layer and its (empty) log directory. */
const rootfsBytes = 48 * KiB;
const rootfsInodes = 12;
const logsBytes = 4 * KiB;
/** What a mounted secret, config map or projected volume holds; an emptyDir's directory. */
const tmpfsVolumeBytes = 12 * KiB;
const tmpfsVolumeInodes = 9;
const emptyDirBytes = 4 * KiB;
/** Network traffic of a pod's eth0 (bytes, then bytes per second) and of the node's own daemons. */
const podRx = { base: 1280, perSecond: 1024 };
const podTx = { base: 860, perSecond: 512 };
const nodeRx = { base: 1_800_000, perSecond: 4096 };
const nodeTx = { base: 950_000, perSecond: 2048 };
const pidMax = 4_194_304;
const systemProcesses = 120;

/** A cgroup's usage at the sample time. */
export interface CgroupSample {
  startTime: Date;
  cpuNano: bigint;
  /** Cumulative cpu time since start, ns. */
  cpuSeconds: bigint;
  workingSetBytes: bigint;
  /** Memory limit, when there is one. */
  limitBytes?: bigint;
  /** Share of the time its tasks waited for cpu (cpu use beyond its limit), percent. */
  cpuPressure: number;
}

export interface ContainerSample extends CgroupSample {
  name: string;
  /** The runtime's container id (the hex after containerd://). */
  id: string;
  image: string;
  cpuShares: number;
}

export interface PodSample extends CgroupSample {
  pod: KubeObject;
  cgroup: string;
  containers: ContainerSample[];
}

export interface NodeSample extends CgroupSample {
  node: KubeObject;
  name: string;
  memoryCapacity: bigint;
  cpuCores: number;
  fsCapacity: bigint;
  pods: PodSample[];
  /** What the node's own daemons use (the kubelet, the runtime, the rest). */
  system: { name: string; cpuNano: bigint; memoryBytes: bigint }[];
  now: Date;
}

const time = (d: Date) => formatTime(d);
const elapsedNs = (from: Date, to: Date): bigint => BigInt(Math.max(0, to.getTime() - from.getTime())) * 1_000_000n;
const seconds = (from: Date, to: Date) => Math.max(0, Math.floor((to.getTime() - from.getTime()) / 1000));
const dateOf = (v: unknown, fallback: Date): Date => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? fallback : new Date(t);
};
const bytesOf = (v: unknown): bigint | undefined => {
  const q = parseQuantity(v);
  return q ? usageUnits(q, 'memory') : undefined;
};

/** The percentage of time cpu-hungry tasks wait: what use beyond the limit would have needed. */
const pressureOf = (usage: bigint, limit: bigint | undefined): number =>
  limit === undefined || limit <= 0n || usage <= limit ? 0 : Math.round(Number(((usage - limit) * 10000n) / usage)) / 100;

/** The pod's cgroup under the systemd driver, by QoS class. */
export function podCgroup(pod: KubeObject): string {
  const uid = String(pod.metadata.uid ?? '').replace(/-/g, '_');
  const qos = qosClass(pod).toLowerCase();
  return qos === 'guaranteed' ? `/kubepods.slice/kubepods-pod${uid}.slice` : `/kubepods.slice/kubepods-${qos}.slice/kubepods-${qos}-pod${uid}.slice`;
}

/** One sample of a node and its running pods at `now`. */
export function sampleNode(node: KubeObject, pods: readonly KubeObject[], now: Date): NodeSample {
  const name = node.metadata.name!;
  const capacity = isObject(statusOf(node)['capacity']) ? (statusOf(node)['capacity'] as Obj) : {};
  const nodeStart = dateOf(node.metadata.creationTimestamp, now);
  const podSamples: PodSample[] = [];
  for (const pod of pods) {
    if (specOf(pod)['nodeName'] !== name) continue;
    const usage = podUsage(pod, now.getTime());
    if (!usage) continue;
    const podStart = dateOf(statusOf(pod)['startTime'], now);
    const specs = objectsOf(specOf(pod)['containers']);
    const statuses = objectsOf(statusOf(pod)['containerStatuses']);
    const containers = usage.map((u): ContainerSample => {
      const spec = specs.find((c) => c['name'] === u.name) ?? {};
      const status = statuses.find((s) => s['name'] === u.name) ?? {};
      const running = isObject(status['state']) && isObject(status['state']['running']) ? status['state']['running'] : {};
      const startTime = dateOf(running['startedAt'], podStart);
      const cpuLimit = containerLimit(spec, 'cpu');
      return {
        name: u.name,
        id: String(status['containerID'] ?? '').replace(/^[a-z]+:\/\//, '') || hexOf(`${pod.metadata.uid}/${u.name}`, 64),
        image: String(status['image'] ?? normalizedImage(String(spec['image'] ?? ''))),
        startTime,
        cpuNano: u.cpuNano,
        cpuSeconds: (u.cpuNano * elapsedNs(startTime, now)) / 1_000_000_000n,
        workingSetBytes: u.memoryBytes,
        limitBytes: containerLimit(spec, 'memory'),
        cpuPressure: pressureOf(u.cpuNano, cpuLimit),
        cpuShares: cpuShares(spec),
      };
    });
    const sum = (f: (c: ContainerSample) => bigint) => containers.reduce((a, c) => a + f(c), 0n);
    const limits = containers.map((c) => c.limitBytes);
    podSamples.push({
      pod,
      cgroup: podCgroup(pod),
      containers,
      startTime: podStart,
      cpuNano: sum((c) => c.cpuNano),
      cpuSeconds: sum((c) => c.cpuSeconds),
      workingSetBytes: sum((c) => c.workingSetBytes),
      limitBytes: limits.every((l) => l !== undefined) ? limits.reduce((a, l) => a! + l!, 0n) : undefined,
      cpuPressure: Math.max(0, ...containers.map((c) => c.cpuPressure)),
    });
  }
  const overheadSeconds = (nodeOverhead.cpuNano * elapsedNs(nodeStart, now)) / 1_000_000_000n;
  const cpuNano = podSamples.reduce((a, p) => a + p.cpuNano, nodeOverhead.cpuNano);
  const cpuCores = Number(parseQuantity(capacity['cpu']) ? quantityMilliValue(parseQuantity(capacity['cpu'])!) / 1000n : 0n);
  const memoryCapacity = bytesOf(capacity['memory']) ?? 0n;
  return {
    node,
    name,
    now,
    startTime: nodeStart,
    cpuNano,
    cpuSeconds: podSamples.reduce((a, p) => a + p.cpuSeconds, overheadSeconds),
    workingSetBytes: podSamples.reduce((a, p) => a + p.workingSetBytes, nodeOverhead.memoryBytes),
    limitBytes: memoryCapacity,
    cpuPressure: pressureOf(cpuNano, BigInt(cpuCores) * 1_000_000_000n),
    memoryCapacity,
    cpuCores,
    fsCapacity: bytesOf(capacity['ephemeral-storage']) ?? 100n * BigInt(GiB),
    pods: podSamples,
    // The overhead split over the kubelet, the runtime and the other daemons.
    system: [
      { name: 'kubelet', cpuNano: (nodeOverhead.cpuNano * 5n) / 10n, memoryBytes: (nodeOverhead.memoryBytes * 5n) / 16n },
      { name: 'runtime', cpuNano: (nodeOverhead.cpuNano * 3n) / 10n, memoryBytes: (nodeOverhead.memoryBytes * 3n) / 16n },
    ],
  };
}

/** Page cache and rss around a working set, in the proportions an idle workload shows. */
const cacheOf = (ws: bigint) => ws / 8n;
const rssOf = (ws: bigint) => (ws * 7n) / 8n;
/** Pages touched so far: a minor fault each. */
const pageFaultsOf = (ws: bigint) => ws / 4096n;

/** Distinct image sizes on the node's image filesystem (no registry to ask: a stable size per image). */
function imageBytes(sample: NodeSample): bigint {
  const images = new Set(sample.pods.flatMap((p) => p.containers.map((c) => c.image)));
  // The pause image is always there.
  images.add('registry.k8s.io/pause:3.10');
  let total = 0n;
  for (const image of images) total += BigInt(20 * MiB + (parseInt(hexOf(image, 6), 16) % (80 * MiB)));
  return total;
}

const num = (n: bigint) => Number(n);

// ---- /stats/summary ----------------------------------------------------------------------------

function psiData(avg: number, totalMicros: number) {
  return { total: Math.round(totalMicros), avg10: avg, avg60: avg, avg300: avg };
}

/** PSIStats: `full` and `some` for one resource; only cpu contention is simulated. */
function psi(avgSome = 0, since?: Date, now?: Date) {
  const micros = since && now ? ((now.getTime() - since.getTime()) * 1000 * avgSome) / 100 : 0;
  return { full: psiData(0, 0), some: psiData(avgSome, micros) };
}

function cpuStats(s: CgroupSample, now: Date) {
  return { time: time(now), usageNanoCores: num(s.cpuNano), usageCoreNanoSeconds: num(s.cpuSeconds), psi: psi(s.cpuPressure, s.startTime, now) };
}

function memoryStats(s: CgroupSample, now: Date) {
  const ws = s.workingSetBytes;
  return {
    time: time(now),
    ...(s.limitBytes !== undefined ? { availableBytes: num(s.limitBytes > ws ? s.limitBytes - ws : 0n) } : {}),
    usageBytes: num(ws + cacheOf(ws)),
    workingSetBytes: num(ws),
    rssBytes: num(rssOf(ws)),
    pageFaults: num(pageFaultsOf(ws)),
    majorPageFaults: 0,
    psi: psi(),
  };
}

const ioStats = (now: Date) => ({ time: time(now), psi: psi() });

function interfaceStats(rx: { base: number; perSecond: number }, tx: { base: number; perSecond: number }, up: number) {
  return { name: 'eth0', rxBytes: rx.base + rx.perSecond * up, rxErrors: 0, txBytes: tx.base + tx.perSecond * up, txErrors: 0 };
}

function networkStats(iface: ReturnType<typeof interfaceStats>, now: Date) {
  return { time: time(now), ...iface, interfaces: [iface] };
}

interface FsFigures {
  capacity: bigint;
  used: bigint;
  inodesUsed: bigint;
}

/** FsStats of a filesystem (availability of the whole disk, usage of what is measured). */
function fsStats(disk: FsFigures, used: bigint, inodesUsed: bigint, now: Date) {
  const inodes = disk.capacity / BigInt(bytesPerInode);
  return {
    time: time(now),
    availableBytes: num(disk.capacity - disk.used),
    capacityBytes: num(disk.capacity),
    usedBytes: num(used),
    inodesFree: num(inodes - disk.inodesUsed),
    inodes: num(inodes),
    inodesUsed: num(inodesUsed),
  };
}

/** The pod's volumes that have a metrics provider (hostPath has none), as VolumeStats. */
function volumeStats(sample: NodeSample, pod: KubeObject, disk: FsFigures, now: Date) {
  const memoryInodes = sample.memoryCapacity / 8192n;
  const tmpfs = { capacity: sample.memoryCapacity, used: BigInt(tmpfsVolumeBytes), inodesUsed: BigInt(tmpfsVolumeInodes) };
  const out: Obj[] = [];
  for (const v of objectsOf(specOf(pod)['volumes'])) {
    const name = String(v['name']);
    const emptyDir = isObject(v['emptyDir']) ? v['emptyDir'] : undefined;
    if (emptyDir && emptyDir['medium'] !== 'Memory') out.push({ ...fsStats(disk, BigInt(emptyDirBytes), 1n, now), name });
    else if (emptyDir || v['secret'] || v['configMap'] || v['projected'] || v['downwardAPI']) {
      out.push({
        time: time(now),
        availableBytes: num(tmpfs.capacity - tmpfs.used),
        capacityBytes: num(tmpfs.capacity),
        usedBytes: num(tmpfs.used),
        inodesFree: num(memoryInodes - tmpfs.inodesUsed),
        inodes: num(memoryInodes),
        inodesUsed: num(tmpfs.inodesUsed),
        name,
      });
    } else if (isObject(v['persistentVolumeClaim'])) {
      out.push({ ...fsStats(disk, BigInt(emptyDirBytes), 1n, now), name, pvcRef: { name: String(v['persistentVolumeClaim']['claimName']), namespace: pod.metadata.namespace } });
    }
  }
  return out;
}

/** The pod's emptyDir volumes on the node's disk (not in memory): part of its ephemeral storage. */
const diskEmptyDirs = (pod: KubeObject) => objectsOf(specOf(pod)['volumes']).filter((v) => isObject(v['emptyDir']) && v['emptyDir']['medium'] !== 'Memory').length;

/** Usage of the node's disk: the system, the images, the containers' layers and logs, the emptyDirs. */
function diskOf(sample: NodeSample): FsFigures & { images: bigint } {
  const containers = BigInt(sample.pods.reduce((a, p) => a + p.containers.length, 0));
  const images = imageBytes(sample);
  const emptyDirs = BigInt(sample.pods.reduce((a, p) => a + diskEmptyDirs(p.pod), 0));
  return {
    capacity: sample.fsCapacity,
    images,
    used: BigInt(systemDiskBytes) + images + containers * BigInt(rootfsBytes + logsBytes) + emptyDirs * BigInt(emptyDirBytes),
    inodesUsed: BigInt(systemDiskInodes) + containers * BigInt(rootfsInodes + 1),
  };
}

const swapStats = (now: Date) => ({ time: time(now), swapUsageBytes: 0 });

/** The Summary API's answer (stats/v1alpha1 Summary); only cpu and memory with `only_cpu_and_memory=true`. */
export function statsSummary(sample: NodeSample, onlyCpuAndMemory = false): Obj {
  const { now } = sample;
  const disk = diskOf(sample);
  const upNode = seconds(sample.startTime, now);
  const system = sample.system.map((d) => {
    const s: CgroupSample = { startTime: sample.startTime, cpuNano: d.cpuNano, cpuSeconds: (d.cpuNano * elapsedNs(sample.startTime, now)) / 1_000_000_000n, workingSetBytes: d.memoryBytes, cpuPressure: 0 };
    return { name: d.name, startTime: time(sample.startTime), cpu: cpuStats(s, now), memory: memoryStats(s, now) };
  });
  const podsCgroup: CgroupSample = {
    startTime: sample.startTime,
    cpuNano: sample.pods.reduce((a, p) => a + p.cpuNano, 0n),
    cpuSeconds: sample.pods.reduce((a, p) => a + p.cpuSeconds, 0n),
    workingSetBytes: sample.pods.reduce((a, p) => a + p.workingSetBytes, 0n),
    limitBytes: sample.memoryCapacity,
    cpuPressure: 0,
  };
  system.push({ name: 'pods', startTime: time(sample.startTime), cpu: cpuStats(podsCgroup, now), memory: memoryStats(podsCgroup, now) });

  const pods = sample.pods.map((p) => {
    const up = seconds(p.startTime, now);
    const podRef = { name: p.pod.metadata.name, namespace: p.pod.metadata.namespace, uid: p.pod.metadata.uid };
    const containers = p.containers.map((c) =>
      onlyCpuAndMemory
        ? { name: c.name, startTime: time(c.startTime), cpu: cpuStats(c, now), memory: memoryStats(c, now), swap: swapStats(now) }
        : {
            name: c.name,
            startTime: time(c.startTime),
            cpu: cpuStats(c, now),
            memory: memoryStats(c, now),
            io: ioStats(now),
            rootfs: fsStats(disk, BigInt(rootfsBytes), BigInt(rootfsInodes), now),
            logs: fsStats(disk, BigInt(logsBytes), 1n, now),
            swap: swapStats(now),
          },
    );
    if (onlyCpuAndMemory) return { podRef, startTime: time(p.startTime), containers, cpu: cpuStats(p, now), memory: memoryStats(p, now), swap: swapStats(now) };
    const volumes = volumeStats(sample, p.pod, disk, now);
    const emptyDirs = diskEmptyDirs(p.pod);
    const ephemeralUsed = BigInt(p.containers.length * (rootfsBytes + logsBytes) + emptyDirs * emptyDirBytes);
    const ephemeralInodes = BigInt(p.containers.length * (rootfsInodes + 1) + emptyDirs);
    return {
      podRef,
      startTime: time(p.startTime),
      containers,
      cpu: cpuStats(p, now),
      memory: memoryStats(p, now),
      io: ioStats(now),
      network: networkStats(interfaceStats(podRx, podTx, up), now),
      volume: volumes,
      'ephemeral-storage': fsStats(disk, ephemeralUsed, ephemeralInodes, now),
      process_stats: { process_count: p.containers.length },
      swap: swapStats(now),
    };
  });

  const nodeSwap = { time: time(now), swapAvailableBytes: 0, swapUsageBytes: 0 };
  if (onlyCpuAndMemory) {
    return { node: { nodeName: sample.name, systemContainers: system, startTime: time(sample.startTime), cpu: cpuStats(sample, now), memory: memoryStats(sample, now), swap: nodeSwap }, pods };
  }
  const podRxTotal = sample.pods.reduce((a, p) => a + podRx.base + podRx.perSecond * seconds(p.startTime, now), 0);
  const podTxTotal = sample.pods.reduce((a, p) => a + podTx.base + podTx.perSecond * seconds(p.startTime, now), 0);
  const nodeIface = interfaceStats({ base: nodeRx.base + podRxTotal, perSecond: nodeRx.perSecond }, { base: nodeTx.base + podTxTotal, perSecond: nodeTx.perSecond }, upNode);
  const imageFs = fsStats(disk, disk.images, BigInt(Math.floor(Number(disk.images) / (64 * KiB))), now);
  const containerCount = sample.pods.reduce((a, p) => a + p.containers.length, 0);
  return {
    node: {
      nodeName: sample.name,
      systemContainers: system.map((s) => ({ ...s, io: ioStats(now) })),
      startTime: time(sample.startTime),
      cpu: cpuStats(sample, now),
      memory: memoryStats(sample, now),
      io: ioStats(now),
      network: networkStats(nodeIface, now),
      fs: fsStats(disk, disk.used, disk.inodesUsed, now),
      // Images and containers' writable layers share the node's one disk (no split image filesystem).
      runtime: { imageFs, containerFs: imageFs },
      rlimit: { time: time(now), maxpid: pidMax, curproc: systemProcesses + containerCount },
      swap: nodeSwap,
    },
    pods,
  };
}

// ---- /metrics/resource ---------------------------------------------------------------------------

const secondsOf = (ns: bigint) => Number(ns) / 1e9;

/** The resource metrics collector's exposition (pkg/kubelet/metrics/collectors/resource_metrics.go). */
export async function resourceMetrics(sample: NodeSample, kubeletVersion: string): Promise<string> {
  const registry = new MetricsRegistry({ currentVersion: kubeletVersion.replace(/^v/, '') });
  const ts = sample.now.getTime();
  // Const metrics' labels come out sorted by name (client_golang).
  const c3 = ['container', 'namespace', 'pod'];
  const p2 = ['namespace', 'pod'];
  const nodeCpu = registry.register(new Counter({ name: 'node_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the node in core-seconds', stability: 'STABLE' }));
  const nodeMem = registry.register(new Gauge({ name: 'node_memory_working_set_bytes', help: 'Current working set of the node in bytes', stability: 'STABLE' }));
  const nodeSwap = registry.register(new Gauge({ name: 'node_swap_usage_bytes', help: 'Current swap usage of the node in bytes. Reported only on non-windows systems' }));
  const start = registry.register(new Gauge({ name: 'container_start_time_seconds', help: 'Start time of the container since unix epoch in seconds', labels: c3, stability: 'STABLE' }));
  const cCpu = registry.register(new Counter({ name: 'container_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the container in core-seconds', labels: c3, stability: 'STABLE' }));
  const cMem = registry.register(new Gauge({ name: 'container_memory_working_set_bytes', help: 'Current working set of the container in bytes', labels: c3, stability: 'STABLE' }));
  const cSwap = registry.register(new Gauge({ name: 'container_swap_usage_bytes', help: 'Current amount of the container swap usage in bytes. Reported only on non-windows systems', labels: c3 }));
  const pCpu = registry.register(new Counter({ name: 'pod_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed by the pod in core-seconds', labels: p2, stability: 'STABLE' }));
  const pMem = registry.register(new Gauge({ name: 'pod_memory_working_set_bytes', help: 'Current working set of the pod in bytes', labels: p2, stability: 'STABLE' }));
  const pSwap = registry.register(new Gauge({ name: 'pod_swap_usage_bytes', help: 'Current amount of the pod swap usage in bytes. Reported only on non-windows systems', labels: p2 }));
  // scrape_error is the deprecated name (1.29) of resource_scrape_error: hidden three minors on, as component-base hides it.
  const scrapeError = registry.register(new Gauge({ name: 'scrape_error', help: '1 if there was an error while getting container metrics, 0 otherwise', deprecatedVersion: '1.29.0' }));
  const resourceScrapeError = registry.register(new Gauge({ name: 'resource_scrape_error', help: '1 if there was an error while getting container metrics, 0 otherwise', stability: 'STABLE' }));

  nodeCpu.set([], secondsOf(sample.cpuSeconds), ts);
  nodeMem.set([], num(sample.workingSetBytes), ts);
  nodeSwap.set([], 0, ts);
  for (const p of sample.pods) {
    const pod = [p.pod.metadata.namespace!, p.pod.metadata.name!];
    for (const c of p.containers) {
      const labels = [c.name, ...pod];
      start.set(labels, c.startTime.getTime() / 1000);
      cCpu.set(labels, secondsOf(c.cpuSeconds), ts);
      cMem.set(labels, num(c.workingSetBytes), ts);
      cSwap.set(labels, 0, ts);
    }
    pCpu.set(pod, secondsOf(p.cpuSeconds), ts);
    pMem.set(pod, num(p.workingSetBytes), ts);
    pSwap.set(pod, 0, ts);
  }
  scrapeError.set([], 0);
  resourceScrapeError.set([], 0);
  return registry.exposition();
}

// ---- /metrics/cadvisor ---------------------------------------------------------------------------

/** cAdvisor's container labels, as the kubelet names them (client_golang sorts label names). */
const cadvisorLabels = ['container', 'id', 'image', 'name', 'namespace', 'pod'];

/** The embedded cAdvisor's exposition: the root cgroup, each pod's cgroup and each container's. */
export async function cadvisorMetrics(sample: NodeSample): Promise<string> {
  const registry = new MetricsRegistry();
  const raw = { raw: true } as const;
  const counter = (name: string, help: string, extra: string[] = []) => registry.register(new Counter({ name, help, labels: withExtra(extra), ...raw }));
  const gauge = (name: string, help: string, extra: string[] = []) => registry.register(new Gauge({ name, help, labels: withExtra(extra), ...raw }));
  const withExtra = (extra: string[]) => [...cadvisorLabels, ...extra].sort();
  const at = (labels: string[], extra: Record<string, string>) => {
    const all: Record<string, string> = Object.fromEntries(cadvisorLabels.map((l, i) => [l, labels[i]!]));
    Object.assign(all, extra);
    return Object.keys(all).sort().map((k) => all[k]!);
  };
  const cpuTotal = counter('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed in seconds.', ['cpu']);
  const cpuUser = counter('container_cpu_user_seconds_total', 'Cumulative user cpu time consumed in seconds.');
  const cpuSystem = counter('container_cpu_system_seconds_total', 'Cumulative system cpu time consumed in seconds.');
  const memUsage = gauge('container_memory_usage_bytes', 'Current memory usage in bytes, including all memory regardless of when it was accessed');
  const memWs = gauge('container_memory_working_set_bytes', 'Current working set in bytes.');
  const memRss = gauge('container_memory_rss', 'Size of RSS in bytes.');
  const memCache = gauge('container_memory_cache', 'Number of bytes of page cache memory.');
  const memSwap = gauge('container_memory_swap', 'Container swap usage in bytes.');
  const lastSeen = gauge('container_last_seen', 'Last time a container was seen by the exporter');
  const startTime = gauge('container_start_time_seconds', 'Start time of the container since unix epoch in seconds.');
  const cpuShares = gauge('container_spec_cpu_shares', 'CPU share of the container.');
  const memLimit = gauge('container_spec_memory_limit_bytes', 'Memory limit for the container.');
  const rx = counter('container_network_receive_bytes_total', 'Cumulative count of bytes received', ['interface']);
  const tx = counter('container_network_transmit_bytes_total', 'Cumulative count of bytes transmitted', ['interface']);
  const pressure = {
    cpuStalled: counter('container_pressure_cpu_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to CPU congestion.'),
    cpuWaiting: counter('container_pressure_cpu_waiting_seconds_total', 'Total time duration tasks in the container have waited due to CPU congestion.'),
    memoryStalled: counter('container_pressure_memory_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to memory congestion.'),
    memoryWaiting: counter('container_pressure_memory_waiting_seconds_total', 'Total time duration tasks in the container have waited due to memory congestion.'),
    ioStalled: counter('container_pressure_io_stalled_seconds_total', 'Total time duration no tasks in the container could make progress due to IO congestion.'),
    ioWaiting: counter('container_pressure_io_waiting_seconds_total', 'Total time duration tasks in the container have waited due to IO congestion.'),
  };
  const scrapeError = registry.register(new Gauge({ name: 'container_scrape_error', help: '1 if there was an error while getting container metrics, 0 otherwise', ...raw }));
  const machineLabels = ['boot_id', 'machine_id', 'system_uuid'];
  const cores = registry.register(new Gauge({ name: 'machine_cpu_cores', help: 'Number of logical CPU cores.', labels: machineLabels, ...raw }));
  const memoryBytes = registry.register(new Gauge({ name: 'machine_memory_bytes', help: 'Amount of memory installed on the machine.', labels: machineLabels, ...raw }));

  const { now } = sample;
  const ts = now.getTime();
  const nowSeconds = ts / 1000;
  const cgroup = (labels: string[], s: CgroupSample, shares: number, network?: { up: number; rx: typeof podRx; tx: typeof podTx }) => {
    const cpu = secondsOf(s.cpuSeconds);
    cpuTotal.set(at(labels, { cpu: 'total' }), cpu, ts);
    // User and system time in the proportions a mostly user-space workload shows.
    cpuUser.set(labels, Math.round(cpu * 0.8 * 1e6) / 1e6, ts);
    cpuSystem.set(labels, Math.round(cpu * 0.2 * 1e6) / 1e6, ts);
    const ws = s.workingSetBytes;
    memUsage.set(labels, num(ws + cacheOf(ws)), ts);
    memWs.set(labels, num(ws), ts);
    memRss.set(labels, num(rssOf(ws)), ts);
    memCache.set(labels, num(cacheOf(ws)), ts);
    memSwap.set(labels, 0, ts);
    lastSeen.set(labels, Math.floor(nowSeconds), ts);
    startTime.set(labels, s.startTime.getTime() / 1000);
    cpuShares.set(labels, shares);
    memLimit.set(labels, s.limitBytes !== undefined && s.limitBytes !== sample.memoryCapacity ? num(s.limitBytes) : 0);
    const waited = (s.cpuPressure / 100) * ((ts - s.startTime.getTime()) / 1000);
    pressure.cpuWaiting.set(labels, Math.max(0, Math.round(waited * 1e6) / 1e6), ts);
    for (const m of [pressure.cpuStalled, pressure.memoryStalled, pressure.memoryWaiting, pressure.ioStalled, pressure.ioWaiting]) m.set(labels, 0, ts);
    if (network) {
      rx.set(at(labels, { interface: 'eth0' }), network.rx.base + network.rx.perSecond * network.up, ts);
      tx.set(at(labels, { interface: 'eth0' }), network.tx.base + network.tx.perSecond * network.up, ts);
    }
  };
  cgroup(['', '/', '', '', '', ''], sample, 1024, { up: seconds(sample.startTime, now), rx: nodeRx, tx: nodeTx });
  for (const p of sample.pods) {
    const ns = p.pod.metadata.namespace!;
    const pod = p.pod.metadata.name!;
    const shares = p.containers.reduce((a, c) => a + c.cpuShares, 0);
    cgroup(['', p.cgroup, '', '', ns, pod], p, shares, { up: seconds(p.startTime, now), rx: podRx, tx: podTx });
    for (const c of p.containers) cgroup([c.name, `${p.cgroup}/cri-containerd-${c.id}.scope`, c.image, c.id, ns, pod], c, c.cpuShares);
  }
  scrapeError.set([], 0);
  const status = statusOf(sample.node);
  const info = isObject(status['nodeInfo']) ? status['nodeInfo'] : {};
  const machine = [String(info['bootID'] ?? ''), String(info['machineID'] ?? ''), String(info['systemUUID'] ?? '')];
  cores.set(machine, sample.cpuCores);
  memoryBytes.set(machine, num(sample.memoryCapacity));
  return registry.exposition();
}
