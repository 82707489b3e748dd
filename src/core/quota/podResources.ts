/**
 * A pod's effective requests and limits (k8s.io/component-helpers/resource
 * PodRequests / PodLimits): containers add up; an init container counts
 * while it runs, so the pod needs the larger of the two; a sidecar (an init
 * container with restartPolicy Always) keeps running beside everything after it.
 */
import { compareQuantities } from '../api/quantity';
import { isObject, type KubeObject } from '../api/types';
import { add, addQuantity, parseResourceList, type ResourceList } from './resources';

type Obj = Record<string, unknown>;

const containersOf = (spec: Obj, list: string): Obj[] => (Array.isArray(spec[list]) ? (spec[list] as unknown[]).filter(isObject) : []);

/** A container's requests or limits. */
export function containerResources(container: Obj, which: 'requests' | 'limits'): ResourceList {
  const res = container['resources'];
  return parseResourceList(isObject(res) ? res[which] : undefined);
}

/** maxResourceList: into[k] = max(into[k], from[k]). */
function maxInto(into: ResourceList, from: ResourceList): void {
  for (const [k, v] of from) {
    const have = into.get(k);
    if (!have || compareQuantities(v, have) > 0) into.set(k, v);
  }
}

function aggregate(pod: KubeObject, which: 'requests' | 'limits'): ResourceList {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  let total: ResourceList = new Map();
  for (const c of containersOf(spec, 'containers')) total = add(total, containerResources(c, which));
  let sidecars: ResourceList = new Map();
  const initMax: ResourceList = new Map();
  for (const c of containersOf(spec, 'initContainers')) {
    const own = containerResources(c, which);
    if (c['restartPolicy'] === 'Always') {
      total = add(total, own);
      sidecars = add(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      maxInto(initMax, add(own, sidecars));
    }
  }
  maxInto(total, initMax);
  return total;
}

/** PodRequests; with overhead, spec.overhead is added (quota charges it, LimitRanger does not). */
export function podRequests(pod: KubeObject, options: { overhead: boolean }): ResourceList {
  const reqs = aggregate(pod, 'requests');
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  return options.overhead ? add(reqs, parseResourceList(spec['overhead'])) : reqs;
}

/** PodLimits; with overhead, spec.overhead is added to the limits that are set. */
export function podLimits(pod: KubeObject, options: { overhead: boolean }): ResourceList {
  const limits = aggregate(pod, 'limits');
  if (!options.overhead) return limits;
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  for (const [k, v] of parseResourceList(spec['overhead'])) {
    const have = limits.get(k);
    if (have) limits.set(k, addQuantity(have, v));
  }
  return limits;
}
