/**
 * What a container sees of its resources, as on a cgroup v2 node: its limits
 * in /sys/fs/cgroup (memory.max, cpu.max, cpu.weight from the request, as
 * the kubelet writes them), while /proc/meminfo, `free` and `nproc` show the
 * whole node, as they do in a real container. The difference is the lesson:
 * a runtime sizing itself from `free` or `nproc` sees 16 GiB and 4 CPUs under
 * a 100Mi, 500m limit.
 */
import { containerLimit, cpuShares } from './containerResources';
import { nodeCapacity, nodeCapacityKiB } from './nodes';

type Obj = Record<string, unknown>;

/** CFS's period, 100ms in µs. */
const cpuPeriod = 100_000n;

/** The container's cgroup files: memory.max, cpu.max and cpu.weight. */
export function cgroupFiles(container: Obj): [path: string, text: string][] {
  const memory = containerLimit(container, 'memory') ?? 'max';
  const cpuNano = containerLimit(container, 'cpu');
  // The quota is the limit's share of each period (MilliCPUToQuota), at least 1ms.
  const share = cpuNano === undefined ? undefined : (cpuNano * cpuPeriod) / 1_000_000_000n;
  const quota = share === undefined ? 'max' : String(share > 1000n ? share : 1000n);
  // cgroup v2's weight from the request's cpu.shares: 1 + (shares - 2) * 9999 / 262142.
  const weight = 1 + Math.floor(((cpuShares(container) - 2) * 9999) / 262142);
  return [
    ['/sys/fs/cgroup/memory.max', `${memory}\n`],
    ['/sys/fs/cgroup/cpu.max', `${quota} ${cpuPeriod}\n`],
    ['/sys/fs/cgroup/cpu.weight', `${weight}\n`],
  ];
}

/** The node's memory in KiB, and what the system holds of it (the kubelet, the runtime, the page cache). */
export const nodeMemoryKiB = nodeCapacityKiB('memory');
const usedKiB = 524_288;
const cacheKiB = 1_048_576;

/** /proc/meminfo's first lines: the node's memory, whatever the container's limit. */
export function meminfo(): string {
  const free = nodeMemoryKiB - usedKiB - cacheKiB;
  const line = (name: string, kib: number) => `${`${name}:`.padEnd(16)}${String(kib).padStart(8)} kB\n`;
  return line('MemTotal', nodeMemoryKiB) + line('MemFree', free) + line('MemAvailable', nodeMemoryKiB - usedKiB) + line('Buffers', 2048) + line('Cached', cacheKiB - 2048) + line('SwapCached', 0) + line('SwapTotal', 0) + line('SwapFree', 0);
}

/** busybox free: the node's memory in KiB (-k), MiB (-m), GiB (-g) or bytes (-b), as /proc/meminfo has it. */
export function freeOutput(unit: 'b' | 'k' | 'm' | 'g'): string {
  const scale = (kib: number) => String(unit === 'b' ? kib * 1024 : unit === 'm' ? Math.floor(kib / 1024) : unit === 'g' ? Math.floor(kib / 1048576) : kib);
  const row = (label: string, cols: (number | string)[]) => `${label.padEnd(7)}${cols.map((c) => (typeof c === 'string' ? c : scale(c)).padStart(12)).join('')}\n`;
  return row('', ['total', 'used', 'free', 'shared', 'buff/cache', 'available']) + row('Mem:', [nodeMemoryKiB, usedKiB, nodeMemoryKiB - usedKiB - cacheKiB, 0, cacheKiB, nodeMemoryKiB - usedKiB]) + row('Swap:', [0, 0, 0]);
}

/** The node's CPUs, which nproc counts whatever the cpu limit (a quota is not an affinity). */
export const nodeCpus = Number(nodeCapacity['cpu']);
