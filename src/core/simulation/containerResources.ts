/**
 * A container's cpu and memory requests and limits in the units its cgroup
 * and usage figures use (nanocores, bytes), and the cpu shares the kubelet
 * derives from the request: what metrics, kubeletStats, the container's view
 * and its cgroup files all read.
 */
import { parseQuantity, quantityMilliValue, type Quantity } from '../api/quantity';
import { isObject } from '../api/types';

type Obj = Record<string, unknown>;

const nanoOf = (q: Quantity): bigint => (q.scale >= -9 ? q.unscaled * 10n ** BigInt(q.scale + 9) : q.unscaled / 10n ** BigInt(-9 - q.scale));
const bytesOf = (q: Quantity): bigint => (quantityMilliValue(q) + 999n) / 1000n;
/** A quantity in its usage unit: nanocores for cpu, bytes (rounded up) for memory. */
export const usageUnits = (q: Quantity, resource: 'cpu' | 'memory'): bigint => (resource === 'cpu' ? nanoOf(q) : bytesOf(q));

const list = (container: Obj, kind: 'requests' | 'limits'): Obj => {
  const resources = isObject(container['resources']) ? container['resources'] : {};
  return isObject(resources[kind]) ? resources[kind] : {};
};

/** A container's request of the resource, in its usage unit; 0 when it requests none. */
export function containerRequest(container: Obj, resource: 'cpu' | 'memory'): bigint {
  // A limit with no request is the request too (the defaulting kube-apiserver applies).
  const q = parseQuantity(list(container, 'requests')[resource] ?? list(container, 'limits')[resource]);
  return q ? usageUnits(q, resource) : 0n;
}

/** A container's limit of the resource in its usage unit, when it has one. */
export function containerLimit(container: Obj, resource: 'cpu' | 'memory'): bigint | undefined {
  const q = parseQuantity(list(container, 'limits')[resource]);
  return q ? usageUnits(q, resource) : undefined;
}

/** cpu.shares from the cpu request, as the kubelet converts milli-cpu (MilliCPUToShares: 2 minimum). */
export function cpuShares(container: Obj): number {
  const milli = Number(containerRequest(container, 'cpu') / 1_000_000n);
  return Math.max(2, Math.floor((milli * 1024) / 1000));
}
