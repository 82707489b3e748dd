/**
 * What a container sees of its resources, as on a cgroup v2 node: its limits
 * in /sys/fs/cgroup (memory.max, cpu.max, cpu.weight from the request, as
 * the kubelet writes them), while /proc/meminfo, `free` and `nproc` show the
 * whole node, as they do in a real container. The difference is the lesson:
 * a runtime sizing itself from `free` or `nproc` sees 16 GiB and 4 CPUs under
 * a 100Mi, 500m limit.
 */
import { isObject } from '../api/types';
import { parseQuantity, quantityMilliValue } from '../api/quantity';
import { nodeCapacity } from './nodes';

type Obj = Record<string, unknown>;

const quantity = (container: Obj, kind: 'limits' | 'requests', resource: 'cpu' | 'memory'): bigint | undefined => {
  const list = isObject(container['resources']) ? container['resources'][kind] : undefined;
  const q = parseQuantity(isObject(list) ? list[resource] : undefined);
  return q ? quantityMilliValue(q) : undefined;
};

/** CFS's period, 100ms in µs. */
const cpuPeriod = 100_000n;

/** The container's cgroup files: memory.max, cpu.max and cpu.weight. */
export function cgroupFiles(container: Obj): [path: string, text: string][] {
  const memoryMilli = quantity(container, 'limits', 'memory');
  const memory = memoryMilli === undefined ? 'max' : String((memoryMilli + 999n) / 1000n);
  const cpuLimit = quantity(container, 'limits', 'cpu');
  // The quota is the limit's share of each period (MilliCPUToQuota), at least 1ms.
  const quota = cpuLimit === undefined ? 'max' : String(cpuLimit * cpuPeriod / 1000n > 1000n ? (cpuLimit * cpuPeriod) / 1000n : 1000n);
  // cpu.shares from the request (a limit alone is the request), then cgroup v2's weight: 1 + (shares - 2) * 9999 / 262142.
  const request = quantity(container, 'requests', 'cpu') ?? cpuLimit ?? 0n;
  const shares = request * 1024n / 1000n < 2n ? 2n : (request * 1024n) / 1000n;
  const weight = 1n + ((shares - 2n) * 9999n) / 262142n;
  return [
    ['/sys/fs/cgroup/memory.max', `${memory}\n`],
    ['/sys/fs/cgroup/cpu.max', `${quota} ${cpuPeriod}\n`],
    ['/sys/fs/cgroup/cpu.weight', `${weight}\n`],
  ];
}

/** The node's memory in KiB, and what the system holds of it (the kubelet, the runtime, the page cache). */
export const nodeMemoryKiB = Number((quantityMilliValue(parseQuantity(nodeCapacity['memory'])!) / 1000n) / 1024n);
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
