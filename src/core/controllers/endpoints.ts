/**
 * The Endpoints controller (pkg/controller/endpoint): for each Service with a
 * selector (not ExternalName) keeps an Endpoints object of the same name
 * listing the selected pods that have an IP: ready pods (or all, with
 * publishNotReadyAddresses) under addresses, the others under
 * notReadyAddresses, each service port resolved on the pod (a named
 * targetPort through the containers' ports), packed into subsets as
 * RepackSubsets packs them. The Endpoints carries the Service's labels, the
 * headless label when the Service has no cluster IP, the last-change trigger
 * time and, past 1000 addresses, the over-capacity annotation with the
 * addresses truncated. A sync that would change nothing writes nothing; a
 * deleted Service's Endpoints is deleted, and so, at start, is any Endpoints
 * left without its Service.
 *
 * kubesim has no kubelet: a pod has an IP, a phase and a Ready condition only
 * once someone writes its status.
 */
import { jsonEqual } from '../api/equality';
import { isObject, type KubeObject } from '../api/types';
import { isNotFound, newNotFound, StatusError } from '../errors';
import { isPodReady, labelsInclude, specOf } from './controllerUtils';
import {
  findPort,
  headlessLabel,
  isIPv6,
  isServiceIPSet,
  lastChangeTriggerTimeAnnotation,
  maxSyncRetries,
  podIPsOf,
  serviceSelector,
  servicePortsOf,
  ServiceSelectors,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  syncBackoffMs,
  TriggerTimeTracker,
} from './endpointAddresses';
import { newEventRecorder } from './events';
import { PodLister } from './podLister';
import { watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue, rateLimitedRetries } from './workqueue';

type Obj = Record<string, unknown>;

/** The most addresses an Endpoints holds (maxCapacity); past it the controller truncates. */
export const maxEndpointsCapacity = 1000;
/** v1.EndpointsOverCapacity. */
export const overCapacityAnnotation = 'endpoints.kubernetes.io/over-capacity';
/** resourcelock.LeaderElectionRecordAnnotationKey: an Endpoints lock, which has no Service and must stay. */
const leaderElectionAnnotation = 'control-plane.alpha.kubernetes.io/leader';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  /** Always set by the controller; a hand-written Endpoints (mirrored by endpointSliceMirroring.ts) may have none. */
  targetRef?: { kind: 'Pod'; namespace: string; name: string; uid: string; resourceVersion?: string };
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/**
 * podToEndpointAddressForService: the pod's IP of the Service's first IP
 * family. kube always sets nodeName, even empty; an empty one fails the
 * Endpoints' validation, and kubesim's pods often have no node, so it is
 * left out then.
 */
function podToEndpointAddress(svc: KubeObject, pod: KubeObject): EndpointAddress | undefined {
  const families = specOf(svc)['ipFamilies'];
  const clusterIP = specOf(svc)['clusterIP'];
  const ips = podIPsOf(pod);
  let v6: boolean;
  if (Array.isArray(families) && families.length) v6 = families[0] === 'IPv6';
  else if (typeof clusterIP === 'string' && clusterIP && clusterIP !== 'None') v6 = isIPv6(clusterIP);
  else v6 = isIPv6(ips[0] ?? '');
  const ip = ips.find((i) => isIPv6(i) === v6);
  if (!ip) return undefined;
  const nodeName = specOf(pod)['nodeName'];
  return {
    ip,
    ...(typeof nodeName === 'string' && nodeName ? { nodeName } : {}),
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! },
  };
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** LessEndpointAddress: by IP, then by the target's uid. */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return compareStrings(a.ip, b.ip) || compareStrings(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
}

const portKey = (p: EndpointPort): string => JSON.stringify([p.name ?? '', p.port, p.protocol, p.appProtocol ?? null]);

/**
 * endpoints.RepackSubsets: the ports offered by the same set of addresses
 * (with the same readiness) share one subset; an address not ready on any
 * port is not ready on that port's subset. kube orders ports and subsets by
 * a hash of their Go values; kubesim orders ports by name and number and
 * subsets by their contents, which is as stable.
 */
export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const addressesByKey = new Map<string, EndpointAddress>();
  const readinessByPort = new Map<string, { port?: EndpointPort; ready: Map<string, boolean> }>();
  const map = (addr: EndpointAddress, port: EndpointPort | undefined, ready: boolean) => {
    const key = `${addr.ip}\u0000${addr.targetRef?.uid ?? ''}`;
    if (!addressesByKey.has(key)) addressesByKey.set(key, addr);
    const pk = port ? portKey(port) : '';
    let entry = readinessByPort.get(pk);
    if (!entry) readinessByPort.set(pk, (entry = { port, ready: new Map() }));
    // Not ready on any occurrence wins.
    if (entry.ready.get(key) !== false) entry.ready.set(key, ready);
  };
  for (const ss of subsets) {
    for (const port of ss.ports?.length ? ss.ports : [undefined]) {
      for (const a of ss.addresses ?? []) map(a, port, true);
      for (const a of ss.notReadyAddresses ?? []) map(a, port, false);
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of readinessByPort.values()) {
    const key = [...ready].map(([k, r]) => (r ? `+${k}` : `-${k}`)).sort().join('\n');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ready, ports: [] }));
    if (port) group.ports.push(port);
  }
  const out: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const addresses: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [key, isReady] of ready) (isReady ? addresses : notReady).push(addressesByKey.get(key)!);
    addresses.sort(compareAddresses);
    notReady.sort(compareAddresses);
    ports.sort((a, b) => compareStrings(a.name ?? '', b.name ?? '') || a.port - b.port || compareStrings(a.protocol, b.protocol));
    const ss: EndpointSubset = {};
    if (addresses.length) ss.addresses = addresses;
    if (notReady.length) ss.notReadyAddresses = notReady;
    if (ports.length) ss.ports = ports;
    out.push(ss);
  }
  return out.sort((a, b) => compareStrings(JSON.stringify(a), JSON.stringify(b)));
}

/** The subsets the Service's pods make (the loop of syncService), before repacking. */
export function subsetsFor(svc: KubeObject, pods: KubeObject[]): EndpointSubset[] {
  const publishNotReady = specOf(svc)['publishNotReadyAddresses'] === true;
  const ports = servicePortsOf(svc);
  const subsets: EndpointSubset[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const addr = podToEndpointAddress(svc, pod);
    if (!addr) continue;
    if (shouldSetHostname(pod, svc)) addr.hostname = String(specOf(pod)['hostname']);
    const ready = publishNotReady || isPodReady(pod);
    const subset = (port?: EndpointPort): EndpointSubset => ({ ...(ready ? { addresses: [addr] } : { notReadyAddresses: [addr] }), ...(port ? { ports: [port] } : {}) });
    // A headless Service may have no ports: its addresses stand alone.
    if (!ports.length) {
      if (specOf(svc)['clusterIP'] === 'None') subsets.push(subset());
      continue;
    }
    for (const sp of ports) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      subsets.push(subset({
        ...(typeof sp['name'] === 'string' && sp['name'] ? { name: sp['name'] } : {}),
        port,
        protocol: typeof sp['protocol'] === 'string' ? sp['protocol'] : 'TCP',
        ...(typeof sp['appProtocol'] === 'string' ? { appProtocol: sp['appProtocol'] } : {}),
      }));
    }
  }
  return repackSubsets(subsets);
}

const countAddresses = (subsets: EndpointSubset[]): number => subsets.reduce((n, ss) => n + (ss.addresses?.length ?? 0) + (ss.notReadyAddresses?.length ?? 0), 0);

/**
 * truncateEndpoints: past maxCapacity, keeps ready addresses first and shares
 * what is kept among the subsets in proportion to their sizes. Returns whether it truncated.
 */
export function truncateSubsets(subsets: EndpointSubset[]): boolean {
  const totalReady = subsets.reduce((n, ss) => n + (ss.addresses?.length ?? 0), 0);
  const totalNotReady = subsets.reduce((n, ss) => n + (ss.notReadyAddresses?.length ?? 0), 0);
  if (totalReady + totalNotReady <= maxEndpointsCapacity) return false;
  const truncateReady = totalReady > maxEndpointsCapacity;
  const max = truncateReady ? maxEndpointsCapacity : maxEndpointsCapacity - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = max;
  for (const ss of subsets) {
    const inSubset = (truncateReady ? ss.addresses : ss.notReadyAddresses)?.length ?? 0;
    const toBeAdded = Math.min(Math.ceil((inSubset / numTotal) * max), canBeAdded);
    if (truncateReady) {
      if (ss.addresses) ss.addresses = ss.addresses.slice(0, toBeAdded);
      delete ss.notReadyAddresses;
      canBeAdded -= ss.addresses?.length ?? 0;
    } else {
      if (ss.notReadyAddresses) ss.notReadyAddresses = ss.notReadyAddresses.slice(0, toBeAdded);
      canBeAdded -= ss.notReadyAddresses?.length ?? 0;
    }
    if (ss.addresses?.length === 0) delete ss.addresses;
    if (ss.notReadyAddresses?.length === 0) delete ss.notReadyAddresses;
  }
  return true;
}

/**
 * The stored subsets as the controller compares them with its own
 * (endpointSubsetsEqualIgnoreResourceVersion): empty lists as none, and the
 * targets' resourceVersions (which older controllers wrote) dropped.
 */
function comparableSubsets(subsets: unknown): unknown {
  if (!Array.isArray(subsets)) return [];
  return subsets.map((ss) => {
    if (!isObject(ss)) return ss;
    let out: Obj | undefined;
    for (const field of ['addresses', 'notReadyAddresses', 'ports']) {
      const list = ss[field];
      if (!Array.isArray(list)) continue;
      if (!list.length) {
        out ??= { ...ss };
        delete out[field];
      } else if (field !== 'ports' && list.some((a) => isObject(a) && isObject(a['targetRef']) && 'resourceVersion' in a['targetRef'])) {
        out ??= { ...ss };
        out[field] = list.map((a) => {
          if (!isObject(a) || !isObject(a['targetRef'])) return a;
          const { resourceVersion: _rv, ...ref } = a['targetRef'];
          return { ...a, targetRef: ref };
        });
      }
    }
    return out ?? ss;
  });
}

/** Labels compared as apiequality.Semantic does: none and empty are equal. */
const labelsEqual = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean => jsonEqual(a ?? {}, b ?? {});

export function startEndpointsController(deps: NamespaceControllerDeps): RunningController {
  const services = deps.storeFor(deps.registry.resourceFor('', 'v1', 'services')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const endpoints = deps.storeFor(deps.registry.resourceFor('', 'v1', 'endpoints')!);
  const recorder = newEventRecorder(deps, 'endpoint-controller');
  const selectors = new ServiceSelectors();
  const podLister = new PodLister(pods);
  const triggers = new TriggerTimeTracker();

  /** syncService; false when a write failed and the Service is to be retried. */
  async function syncService(key: string): Promise<boolean> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await services.getKv(namespace, name);
    if (!kv) {
      selectors.set(namespace, name, undefined);
      // The Service is gone: so is its Endpoints.
      try {
        await endpoints.delete(namespace, name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      triggers.delete(namespace, name);
      return true;
    }
    const svc = services.decode(kv);
    const selector = serviceSelector(svc);
    selectors.set(namespace, name, selector);
    // ExternalName Services get no endpoints; selectorless ones get the user's.
    if (specOf(svc)['type'] === 'ExternalName' || !selector) return true;
    const selected = (await podLister.list(namespace)).filter((p) => labelsInclude(p.metadata.labels, selector));
    const triggerTime = triggers.compute(svc, selected);
    const subsets = subsetsFor(svc, selected);

    const currentKv = await endpoints.getKv(namespace, name);
    const current: KubeObject = currentKv ? endpoints.decode(currentKv) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, ...(svc.metadata.labels ? { labels: svc.metadata.labels } : {}) } };
    const create = !currentKv;
    const { [headlessLabel]: _headless, ...compareLabels } = current.metadata.labels ?? {};
    const annotations = current.metadata.annotations ?? {};
    const currentCount = countAddresses((Array.isArray(current['subsets']) ? current['subsets'] : []) as EndpointSubset[]);
    const capacityAnnotationRight = currentCount <= maxEndpointsCapacity && annotations[overCapacityAnnotation] === undefined;
    if (!create && jsonEqual(comparableSubsets(current['subsets']), subsets) && labelsEqual(compareLabels, svc.metadata.labels) && capacityAnnotationRight) return true;

    const next: KubeObject = structuredClone(current);
    next.metadata.namespace = namespace;
    const nextAnnotations: Record<string, string> = { ...annotations };
    if (triggerTime) nextAnnotations[lastChangeTriggerTimeAnnotation] = triggerTime;
    else delete nextAnnotations[lastChangeTriggerTimeAnnotation];
    if (truncateSubsets(subsets)) nextAnnotations[overCapacityAnnotation] = 'truncated';
    else delete nextAnnotations[overCapacityAnnotation];
    const labels: Record<string, string> = { ...(svc.metadata.labels ?? {}) };
    if (!isServiceIPSet(svc)) labels[headlessLabel] = '';
    else delete labels[headlessLabel];
    if (Object.keys(labels).length) next.metadata.labels = labels;
    else delete next.metadata.labels;
    if (Object.keys(nextAnnotations).length) next.metadata.annotations = nextAnnotations;
    else delete next.metadata.annotations;
    if (subsets.length) next['subsets'] = subsets;
    else delete next['subsets'];

    try {
      if (create) {
        await endpoints.create(namespace, next);
      } else {
        // An Update carrying the resourceVersion read: a change meanwhile is a 409, and the sync runs again.
        await endpoints.update(namespace, name, (cur) => {
          if (!cur) throw newNotFound({ group: '', resource: 'endpoints' }, name);
          return next;
        }, { currentIntact: true });
      }
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      // A terminating namespace refuses every create: nothing to retry.
      if (create && e.code === 403 && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return true;
      if (create) recorder.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${e.message}`);
      else recorder.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${e.message}`);
      return false;
    }
    return true;
  }

  async function sync(key: string): Promise<void> {
    // handleErr: a success forgets the failures, a failure is retried.
    if (await syncService(key)) retries.forget(key);
    else retries.retry(key);
  }

  const stopped = new AbortController();
  const queue = newWorkQueue('endpoint', sync);
  /** handleErr: the queue's AddRateLimited, then the Service dropped after maxRetries. */
  const retries = rateLimitedRetries(queue, syncBackoffMs, maxSyncRetries, stopped.signal);
  const keyOf = (key: string, prefix: string): string => key.slice(prefix.length);
  const running = watchInto(deps, queue, services, [
    {
      store: pods,
      keysFor: (e) => {
        podLister.observe(e);
        return selectors.keysFor(e, pods.prefix);
      },
    },
    // onEndpointsDelete: a deleted Endpoints is made again.
    { store: endpoints, keysFor: (e) => (e.type === 'DELETE' ? [keyOf(e.kv.key, endpoints.prefix)] : []) },
  ]);
  // checkLeftoverEndpoints: an Endpoints whose Service went while the controller was away is deleted.
  const leftovers = endpoints.list('').then((listed) => {
    for (const ep of listed.items) {
      if (ep.metadata.annotations?.[leaderElectionAnnotation] !== undefined) continue;
      queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`);
    }
  });
  return {
    async idle() {
      await leftovers;
      await running.idle();
    },
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
