/**
 * What the Endpoints and EndpointSlice controllers share (k8s.io/endpointslice/util
 * and pkg/api/v1/pod): which pods of a Service's selector belong in its
 * endpoints, the port a service port reaches on a pod, a pod's hostname, the
 * last-change trigger time, and which Services a pod's change concerns.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import type { StorageEvent } from '../storage/interface';
import { isPodReady, labelsInclude, specOf, statusOf } from './controllerUtils';

type Obj = Record<string, unknown>;

/** v1.EndpointsLastChangeTriggerTime: when the change the endpoints reflect happened. */
export const lastChangeTriggerTimeAnnotation = 'endpoints.kubernetes.io/last-change-trigger-time';
/** v1.IsHeadlessService: on the Endpoints and EndpointSlices of a Service without a cluster IP. */
export const headlessLabel = 'service.kubernetes.io/headless';

/**
 * The Service's selector, undefined for none: an empty map is none too, as
 * kube-apiserver's protobuf storage reads `selector: {}` back as nil.
 */
export function serviceSelector(svc: KubeObject): Record<string, string> | undefined {
  const selector = specOf(svc)['selector'];
  if (!isObject(selector) || Object.keys(selector).length === 0) return undefined;
  return selector as Record<string, string>;
}

/** helper.IsServiceIPSet: a cluster IP that is neither None nor empty. */
export function isServiceIPSet(svc: KubeObject): boolean {
  const ip = specOf(svc)['clusterIP'];
  return typeof ip === 'string' && ip !== '' && ip !== 'None';
}

/** The pod's IPs: status.podIPs, or status.podIP alone (the v1 conversion fills podIPs from it). */
export function podIPsOf(pod: KubeObject): string[] {
  const ips = statusOf(pod)['podIPs'];
  if (Array.isArray(ips) && ips.length) return ips.filter(isObject).map((p) => String(p['ip'] ?? '')).filter(Boolean);
  const ip = statusOf(pod)['podIP'];
  return typeof ip === 'string' && ip ? [ip] : [];
}

export const isIPv6 = (ip: string): boolean => ip.includes(':');

/** ShouldPodBeInEndpoints: not finished, has an IP, and not terminating unless asked for. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  const phase = statusOf(pod)['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!podIPsOf(pod).length) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** ShouldSetHostname: the pod names a hostname and the Service as its subdomain. */
export function shouldSetHostname(pod: KubeObject, svc: KubeObject): boolean {
  const spec = specOf(pod);
  return typeof spec['hostname'] === 'string' && spec['hostname'] !== '' && spec['subdomain'] === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace;
}

const protocolOf = (port: Obj): string => (typeof port['protocol'] === 'string' ? port['protocol'] : 'TCP');

/**
 * podutil.FindPort: a numeric targetPort as it is; a named one looked up
 * among the containers' ports (then sidecars', init containers that always
 * restart) with the service port's protocol. Undefined when none matches.
 */
export function findPort(pod: KubeObject, servicePort: Obj): number | undefined {
  const target = servicePort['targetPort'] ?? servicePort['port'];
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const spec = specOf(pod);
  const containers = Array.isArray(spec['containers']) ? (spec['containers'] as unknown[]).filter(isObject) : [];
  const sidecars = (Array.isArray(spec['initContainers']) ? (spec['initContainers'] as unknown[]).filter(isObject) : []).filter((c) => c['restartPolicy'] === 'Always');
  for (const container of [...containers, ...sidecars]) {
    const ports = Array.isArray(container['ports']) ? (container['ports'] as unknown[]).filter(isObject) : [];
    for (const port of ports) {
      if (port['name'] === target && protocolOf(port) === protocolOf(servicePort)) return Number(port['containerPort']);
    }
  }
  return undefined;
}

/** The service ports, in spec order. */
export function servicePortsOf(svc: KubeObject): Obj[] {
  const ports = specOf(svc)['ports'];
  return Array.isArray(ports) ? (ports as unknown[]).filter(isObject) : [];
}

/** Whether a value differs between two pods, compared as JSON. */
const differs = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) !== JSON.stringify(b ?? null);

/**
 * podEndpointsChanged: whether the change may move the pod's endpoints
 * (deletion, readiness, IPs), and whether it may move which Services select
 * it (labels, hostname, subdomain).
 */
export function podEndpointsChanged(old: KubeObject, cur: KubeObject): { podChanged: boolean; labelsChanged: boolean } {
  const labelsChanged = differs(old.metadata.labels, cur.metadata.labels)
    || specOf(old)['hostname'] !== specOf(cur)['hostname'] || specOf(old)['subdomain'] !== specOf(cur)['subdomain'];
  const podChanged = old.metadata.deletionTimestamp !== cur.metadata.deletionTimestamp
    || isPodReady(old) !== isPodReady(cur)
    || differs(podIPsOf(old), podIPsOf(cur))
    // kube counts on the node being set before the IP, and on a finished pod turning unready; a status
    // written by hand may do either in any order, so a node or phase change counts too.
    || specOf(old)['nodeName'] !== specOf(cur)['nodeName']
    || statusOf(old)['phase'] !== statusOf(cur)['phase'];
  return { podChanged, labelsChanged };
}

/** A stored value as the watch hands it (a pod, a Service, a slice); undefined when there is none or it is not JSON. */
export function decodeObject(value: string | undefined): KubeObject | undefined {
  if (!value) return undefined;
  try {
    return JSON.parse(value) as KubeObject;
  } catch {
    return undefined;
  }
}

/**
 * The selectors of the Services a controller has synced, by namespace: a
 * pod's change goes to the Services that select it (the service lister's
 * GetServicesToUpdateOnPodChange).
 */
export class ServiceSelectors {
  private readonly byNamespace = new Map<string, Map<string, Record<string, string>>>();

  set(namespace: string, name: string, selector: Record<string, string> | undefined): void {
    let known = this.byNamespace.get(namespace);
    if (!selector) {
      known?.delete(name);
      if (known?.size === 0) this.byNamespace.delete(namespace);
      return;
    }
    if (!known) this.byNamespace.set(namespace, (known = new Map()));
    known.set(name, selector);
  }

  private selecting(namespace: string, labels: Record<string, string> | undefined): Set<string> {
    const keys = new Set<string>();
    for (const [name, selector] of this.byNamespace.get(namespace) ?? []) if (labelsInclude(labels, selector)) keys.add(`${namespace}/${name}`);
    return keys;
  }

  /** GetPodUpdateProjectionKey and GetServicesToUpdate for one pod event read from storage. */
  keysFor(e: StorageEvent, podPrefix: string): string[] {
    const namespace = e.kv.key.slice(podPrefix.length).split('/')[0]!;
    if (!this.byNamespace.has(namespace)) return [];
    const cur = e.type === 'DELETE' ? undefined : decodeObject(e.kv.value);
    const old = e.type === 'DELETE' ? decodeObject(e.kv.value) ?? decodeObject(e.prevKv?.value) : decodeObject(e.prevKv?.value);
    if (!cur || !old) return [...this.selecting(namespace, (cur ?? old)?.metadata?.labels)];
    const { podChanged, labelsChanged } = podEndpointsChanged(old, cur);
    if (!podChanged && !labelsChanged) return [];
    const now = this.selecting(namespace, cur.metadata.labels);
    if (!labelsChanged) return [...now];
    const before = this.selecting(namespace, old.metadata.labels);
    // determineNeededServiceUpdates: the union if the pod changed too, else the symmetric difference.
    if (podChanged) return [...new Set([...now, ...before])];
    return [...now, ...before].filter((k) => !(now.has(k) && before.has(k)));
  }
}

/** The Ready condition's lastTransitionTime (getPodTriggerTime), in ms; undefined without one. */
function podTriggerTime(pod: KubeObject): number | undefined {
  const conditions = statusOf(pod)['conditions'];
  const ready = Array.isArray(conditions) ? (conditions as unknown[]).find((c): c is Obj => isObject(c) && c['type'] === 'Ready') : undefined;
  const at = Date.parse(String(ready?.['lastTransitionTime'] ?? ''));
  return Number.isFinite(at) ? at : undefined;
}

/**
 * TriggerTimeTracker: the time of the earliest change (a pod's readiness
 * transition, the Service's creation) not yet reflected by a sync, which the
 * controllers write as the last-change-trigger-time annotation. The first
 * sync of a Service uses its creation time.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { pods: Map<string, number>; service: number }>();

  /** The trigger time as the annotation spells it, or undefined for none. */
  compute(svc: KubeObject, pods: KubeObject[]): string | undefined {
    const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const state = this.states.get(key);
    let min: number | undefined;
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const at = podTriggerTime(pod);
      if (at === undefined) continue;
      podTimes.set(pod.metadata.name!, at);
      if (at > (state?.pods.get(pod.metadata.name!) ?? -Infinity)) min = Math.min(min ?? Infinity, at);
    }
    const created = Date.parse(svc.metadata.creationTimestamp ?? '');
    const serviceAt = Number.isFinite(created) ? created : 0;
    if (serviceAt > (state?.service ?? -Infinity)) min = Math.min(min ?? Infinity, serviceAt);
    this.states.set(key, { pods: podTimes, service: serviceAt });
    if (!state) return svc.metadata.creationTimestamp ?? undefined;
    return min === undefined ? undefined : formatTime(new Date(min));
  }

  delete(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}

/** kube's workqueue.DefaultControllerRateLimiter backoff: 5ms doubling per failure, up to 1000s. */
/** An error's message, for the controllers' logs and events. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export const syncBackoffMs = (failures: number): number => Math.min(5 * 2 ** failures, 1_000_000);
/** A Service whose sync keeps failing is dropped after this many retries (maxRetries). */
export const maxSyncRetries = 15;
