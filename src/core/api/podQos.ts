/** A pod's QoS class, from its containers' resources. */
import { isObject, type KubeObject } from './types';

/** ComputePodQOS over the regular containers' cpu and memory requests and limits (pkg/apis/core/helper/qos). */
export function qosClass(pod: KubeObject): string {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'] : [];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = isObject(c) && isObject(c['resources']) ? c['resources'] : {};
    const req = isObject(res['requests']) ? res['requests'] : {};
    const lim = isObject(res['limits']) ? res['limits'] : {};
    if (!any && (hasKeys(req) || hasKeys(lim))) any = true;
    for (const r of ['cpu', 'memory']) if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
  }
  return !any ? 'BestEffort' : guaranteed ? 'Guaranteed' : 'Burstable';
}

function hasKeys(o: Record<string, unknown>): boolean {
  for (const _ in o) return true;
  return false;
}
