/**
 * The EndpointSlice controller (pkg/controller/endpointslice with the
 * k8s.io/endpointslice reconciler): for each Service with a selector (not
 * ExternalName) keeps discovery.k8s.io/v1 EndpointSlices named
 * `<service>-<random>`, owned by the Service and labelled with its name, the
 * managing controller, the Service's labels and the headless label, one
 * address type per IP family of the Service. Each selected pod with an IP of
 * that family is an endpoint (ready, serving and terminating conditions,
 * hostname, target, node and the Node's zone), grouped by the ports it
 * offers, at most maxEndpointsPerSlice (100) to a slice. A change is placed
 * as the reconciler places it: kept endpoints stay in their slice, changed
 * slices are filled first, then the unchanged slice that ends closest to
 * full, then new slices; a create and a delete together become an update.
 * A Service without endpoints keeps one empty placeholder slice. The
 * garbage collector deletes the slices with their Service.
 *
 * kubesim has no scheduler: a pod with no node is listed without nodeName or
 * zone; a pod naming a Node that does not exist is skipped (unless
 * publishNotReadyAddresses) and the sync retried, as in kube.
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
  messageOf,
  podIPsOf,
  serviceSelector,
  servicePortsOf,
  ServiceSelectors,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  TriggerTimeTracker,
} from './endpointAddresses';
import { newEventRecorder } from './events';
import { PodLister } from './podLister';
import { skippedController, watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue, rateLimitedRetries } from './workqueue';

type Obj = Record<string, unknown>;

/** discovery.LabelServiceName and discovery.LabelManagedBy. */
export const serviceNameLabel = 'kubernetes.io/service-name';
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
/** The controller's name in the managed-by label. */
export const controllerName = 'endpointslice-controller.k8s.io';
/** --max-endpoints-per-slice's default. */
export const defaultMaxEndpointsPerSlice = 100;
/** The controller's own rate limiter (defaultSyncBackOff, maxSyncBackOff): 1s doubling per failure, up to 1000s. */
const sliceSyncBackoffMs = (failures: number): number => Math.min(1000 * 2 ** failures, 1_000_000);
/** v1.LabelTopologyZone. */
const zoneLabel = 'topology.kubernetes.io/zone';

export interface EndpointSliceControllerOptions {
  /** kube-controller-manager's --max-endpoints-per-slice. */
  maxEndpointsPerSlice?: number;
}

type AddressType = 'IPv4' | 'IPv6';

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
  nodeName?: string;
  zone?: string;
}

interface SlicePort {
  name: string;
  protocol: string;
  port: number;
  appProtocol?: string;
}

/** An EndpointSlice as the controller reads and writes it. */
interface Slice extends KubeObject {
  addressType: string;
  endpoints: Obj[] | null;
  ports: Obj[] | null;
}

const endpointsOf = (s: Slice): Obj[] => (Array.isArray(s.endpoints) ? s.endpoints.filter(isObject) : []);
const portsOfSlice = (s: Slice): Obj[] => (Array.isArray(s.ports) ? s.ports.filter(isObject) : []);

/** getAddressTypesForService: the Service's IP families; without any, its cluster IP's, or both for a headless one. */
function addressTypesFor(svc: KubeObject): AddressType[] {
  const families = specOf(svc)['ipFamilies'];
  const types = new Set<AddressType>();
  if (Array.isArray(families)) for (const f of families) if (f === 'IPv4' || f === 'IPv6') types.add(f);
  if (types.size) return [...types];
  const clusterIP = specOf(svc)['clusterIP'];
  if (typeof clusterIP === 'string' && clusterIP && clusterIP !== 'None') return [isIPv6(clusterIP) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** getEndpointPorts: each service port found on the pod, named even when the name is empty. */
function endpointPortsFor(svc: KubeObject, pod: KubeObject): SlicePort[] {
  const ports = servicePortsOf(svc);
  if (!ports.length && specOf(svc)['clusterIP'] === 'None') return [];
  const out: SlicePort[] = [];
  for (const sp of ports) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({
      name: typeof sp['name'] === 'string' ? sp['name'] : '',
      protocol: typeof sp['protocol'] === 'string' ? sp['protocol'] : 'TCP',
      port,
      ...(typeof sp['appProtocol'] === 'string' ? { appProtocol: sp['appProtocol'] } : {}),
    });
  }
  // kube sorts a pod's ports by a hash of their Go values (NewPortMapKey); kubesim by name and number.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0)));
}

/** NewPortMapKey: the group a set of ports makes. */
export const portMapKey = (ports: Obj[]): string => JSON.stringify(ports.map((p) => [p['name'] ?? '', p['protocol'] ?? 'TCP', p['port'] ?? null, p['appProtocol'] ?? null]).sort());

/** podToEndpoint. */
function podToEndpoint(pod: KubeObject, node: KubeObject | undefined, svc: KubeObject, addressType: AddressType): SliceEndpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = specOf(svc)['publishNotReadyAddresses'] === true || (serving && !terminating);
  const ep: SliceEndpoint = {
    addresses: podIPsOf(pod).filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! },
  };
  if (shouldSetHostname(pod, svc)) ep.hostname = String(specOf(pod)['hostname']);
  const nodeName = specOf(pod)['nodeName'];
  if (typeof nodeName === 'string' && nodeName) ep.nodeName = nodeName;
  const zone = node?.metadata.labels?.[zoneLabel];
  if (zone) ep.zone = zone;
  // Go's field order: addresses, conditions, hostname, targetRef, nodeName, zone.
  const { addresses, conditions, hostname, targetRef } = ep;
  return { addresses, conditions, ...(hostname !== undefined ? { hostname } : {}), targetRef, ...(ep.nodeName ? { nodeName: ep.nodeName } : {}), ...(ep.zone ? { zone: ep.zone } : {}) };
}

/** hashEndpoint: an endpoint is the same one while its addresses, hostname and target's name are. */
export function endpointHash(ep: Obj): string {
  const ref = isObject(ep['targetRef']) ? ep['targetRef'] : {};
  const addresses = Array.isArray(ep['addresses']) ? [...(ep['addresses'] as string[])].sort() : [];
  return JSON.stringify([addresses, ep['hostname'] ?? '', ref['namespace'] ?? '', ref['name'] ?? '']);
}

/** EndpointsEqualBeyondHash: node, zone, conditions and target (its resourceVersion aside). */
export function endpointsEqualBeyondHash(a: Obj, b: Obj): boolean {
  if (a['nodeName'] !== b['nodeName'] || a['zone'] !== b['zone']) return false;
  const ca = isObject(a['conditions']) ? a['conditions'] : {};
  const cb = isObject(b['conditions']) ? b['conditions'] : {};
  if (ca['ready'] !== cb['ready'] || ca['serving'] !== cb['serving'] || ca['terminating'] !== cb['terminating']) return false;
  const ra = isObject(a['targetRef']) ? a['targetRef'] : undefined;
  const rb = isObject(b['targetRef']) ? b['targetRef'] : undefined;
  if (!ra || !rb) return ra === rb;
  return ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'fieldPath'].every((k) => (ra[k] ?? '') === (rb[k] ?? ''));
}

/** setEndpointSliceLabels: the Service's labels with the reserved ones set, and whether the slice's others differ from them. */
function sliceLabels(slice: KubeObject, svc: KubeObject): { labels: Record<string, string>; changed: boolean } {
  const reserved = (k: string) => k === serviceNameLabel || k === managedByLabel || k === headlessLabel;
  const own = Object.fromEntries(Object.entries(slice.metadata.labels ?? {}).filter(([k]) => !reserved(k)));
  const labels = Object.fromEntries(Object.entries(svc.metadata.labels ?? {}).filter(([k]) => !reserved(k)));
  const changed = !jsonEqual(own, labels);
  if (!isServiceIPSet(svc)) labels[headlessLabel] = '';
  labels[serviceNameLabel] = svc.metadata.name!;
  labels[managedByLabel] = controllerName;
  return { labels, changed };
}

/** ownedBy: the slice names the Service (its uid) as an owner. */
const ownedBy = (slice: KubeObject, svc: KubeObject): boolean => !!slice.metadata.ownerReferences?.some((o) => o.uid === svc.metadata.uid && o.kind === 'Service' && o.apiVersion === 'v1');

/** getEndpointSlicePrefix: `<service>-` unless that is too long a name. */
const slicePrefix = (service: string): string => (service.length + 1 <= 253 ? `${service}-` : service);

/** newEndpointSlice: owned by the Service, labelled, with the group's ports and no endpoints yet. */
function newSlice(svc: KubeObject, addressType: AddressType, ports: SlicePort[]): Slice {
  const slice: Slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: slicePrefix(svc.metadata.name!),
      namespace: svc.metadata.namespace!,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata.name!, uid: svc.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    endpoints: [],
    ports: ports as unknown as Obj[],
  };
  slice.metadata.labels = sliceLabels(slice, svc).labels;
  return slice;
}

/** placeholderSliceCompare: an existing slice that is already the placeholder (namespace, labels, the rest empty). */
function isPlaceholder(slice: Slice, placeholder: Slice): boolean {
  return slice.metadata.namespace === placeholder.metadata.namespace && jsonEqual(slice.metadata.labels ?? {}, placeholder.metadata.labels ?? {})
    && slice.addressType === placeholder.addressType && endpointsOf(slice).length === 0 && portsOfSlice(slice).length === 0;
}

/** The plan of one sync: what to create, update and delete. */
interface Changes {
  create: Slice[];
  update: Slice[];
  delete: Slice[];
}

/**
 * reconcileByPortMapping: keeps the desired endpoints already in a slice
 * there (updating those that changed), drops the others, fills the slices
 * being updated first (fullest first), then the unchanged slice that ends
 * closest to full, then new slices.
 */
function reconcileByPortMapping(svc: KubeObject, existing: Slice[], desired: Map<string, SliceEndpoint>, addressType: AddressType, ports: SlicePort[], max: number): Changes {
  const byName = new Map<string, Slice>();
  const unchanged: string[] = [];
  const toUpdate: string[] = [];
  const toDelete: string[] = [];
  for (const slice of existing) {
    const name = slice.metadata.name!;
    byName.set(name, slice);
    const kept: Obj[] = [];
    let updated = false;
    for (const ep of endpointsOf(slice)) {
      const hash = endpointHash(ep);
      const want = desired.get(hash);
      if (!want) continue;
      kept.push(want as unknown as Obj);
      if (!endpointsEqualBeyondHash(want as unknown as Obj, ep)) updated = true;
      desired.delete(hash);
    }
    const { labels, changed } = sliceLabels(slice, svc);
    if (updated || kept.length !== endpointsOf(slice).length) {
      if (!kept.length) toDelete.push(name);
      else {
        byName.set(name, { ...structuredClone(slice), endpoints: kept, metadata: { ...structuredClone(slice.metadata), labels } });
        toUpdate.push(name);
      }
    } else if (changed) {
      byName.set(name, { ...structuredClone(slice), metadata: { ...structuredClone(slice.metadata), labels } });
      toUpdate.push(name);
    } else {
      unchanged.push(name);
    }
  }
  const pop = (): SliceEndpoint => {
    const [hash, ep] = desired.entries().next().value!;
    desired.delete(hash);
    return ep;
  };
  if (desired.size && toUpdate.length) {
    const fullestFirst = toUpdate.map((n) => byName.get(n)!).sort((a, b) => endpointsOf(b).length - endpointsOf(a).length);
    for (const slice of fullestFirst) {
      while (desired.size && endpointsOf(slice).length < max) slice.endpoints = [...endpointsOf(slice), pop() as unknown as Obj];
    }
  }
  const create: Slice[] = [];
  while (desired.size) {
    let fill: Slice | undefined;
    // getSliceToFill: the unchanged slice the rest fits in most tightly.
    if (desired.size < max && unchanged.length) {
      let closest = max;
      for (const name of unchanged) {
        const slice = byName.get(name)!;
        const diff = max - (desired.size + endpointsOf(slice).length);
        if (diff >= 0 && diff < closest) {
          closest = diff;
          fill = slice;
          if (diff === 0) break;
        }
      }
    }
    if (fill) {
      fill = structuredClone(fill);
      byName.set(fill.metadata.name!, fill);
    } else {
      fill = newSlice(svc, addressType, ports);
    }
    while (desired.size && endpointsOf(fill).length < max) fill.endpoints = [...endpointsOf(fill), pop() as unknown as Obj];
    if (fill.metadata.name) {
      if (!toUpdate.includes(fill.metadata.name)) toUpdate.push(fill.metadata.name);
      unchanged.splice(unchanged.indexOf(fill.metadata.name), 1);
    } else {
      create.push(fill);
    }
  }
  return { create, update: toUpdate.map((n) => byName.get(n)!), delete: toDelete.map((n) => byName.get(n)!) };
}

export function startEndpointSliceController(deps: NamespaceControllerDeps, options: EndpointSliceControllerOptions = {}): RunningController {
  const max = options.maxEndpointsPerSlice ?? defaultMaxEndpointsPerSlice;
  const services = deps.storeFor(deps.registry.resourceFor('', 'v1', 'services')!);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const nodes = deps.storeFor(deps.registry.resourceFor('', 'v1', 'nodes')!);
  const sliceType = deps.registry.resourceFor('discovery.k8s.io', 'v1', 'endpointslices');
  if (!sliceType) return skippedController;
  const slices = deps.storeFor(sliceType);
  const recorder = newEventRecorder(deps, 'endpoint-slice-controller');
  const selectors = new ServiceSelectors();
  const podLister = new PodLister(pods);
  const triggers = new TriggerTimeTracker();

  /** reconcileByAddressType: the changes for one address type, and the errors met (pods on missing Nodes). */
  async function reconcileByAddressType(svc: KubeObject, selected: KubeObject[], existing: Slice[], addressType: AddressType, errors: string[]): Promise<Changes> {
    const changes: Changes = { create: [], update: [], delete: [] };
    const existingByPorts = new Map<string, Slice[]>();
    for (const slice of existing) {
      if (!ownedBy(slice, svc)) {
        changes.delete.push(slice);
        continue;
      }
      const key = portMapKey(portsOfSlice(slice));
      existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), slice]);
    }
    const desiredByPorts = new Map<string, { ports: SlicePort[]; endpoints: Map<string, SliceEndpoint> }>();
    const publishNotReady = specOf(svc)['publishNotReadyAddresses'] === true;
    const nodeCache = new Map<string, KubeObject | undefined>();
    for (const pod of selected) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const ports = endpointPortsFor(svc, pod);
      const key = portMapKey(ports as unknown as Obj[]);
      let group = desiredByPorts.get(key);
      if (!group) desiredByPorts.set(key, (group = { ports, endpoints: new Map() }));
      const nodeName = String(specOf(pod)['nodeName'] ?? '');
      let node: KubeObject | undefined;
      if (nodeName) {
        if (!nodeCache.has(nodeName)) {
          const kv = await nodes.getKv('', nodeName);
          nodeCache.set(nodeName, kv ? nodes.decode(kv) : undefined);
        }
        node = nodeCache.get(nodeName);
        // A pod on a Node that does not exist is left out, and the Service synced again later.
        if (!node && !publishNotReady) {
          errors.push(`skipping Pod ${pod.metadata.name} for Service ${svc.metadata.namespace}/${svc.metadata.name}: node "${nodeName}" not found`);
          continue;
        }
      }
      const ep = podToEndpoint(pod, node, svc, addressType);
      if (ep.addresses.length) group.endpoints.set(endpointHash(ep as unknown as Obj), ep);
    }
    for (const [key, { ports, endpoints }] of desiredByPorts) {
      const c = reconcileByPortMapping(svc, existingByPorts.get(key) ?? [], endpoints, addressType, ports, max);
      changes.create.push(...c.create);
      changes.update.push(...c.update);
      changes.delete.push(...c.delete);
    }
    for (const [key, stale] of existingByPorts) if (!desiredByPorts.has(key)) changes.delete.push(...stale);
    // No slice would be left: keep (or make) the placeholder.
    if (existing.length === changes.delete.length && !changes.create.length) {
      const placeholder = newSlice(svc, addressType, []);
      if (changes.delete.length === 1 && isPlaceholder(changes.delete[0]!, placeholder)) changes.delete = [];
      else changes.create.push(placeholder);
    }
    return changes;
  }

  const triggerAnnotated = (slice: Slice, triggerTime: string | undefined): Slice => {
    const annotations = { ...(slice.metadata.annotations ?? {}) };
    if (triggerTime) annotations[lastChangeTriggerTimeAnnotation] = triggerTime;
    else delete annotations[lastChangeTriggerTimeAnnotation];
    const metadata = { ...slice.metadata };
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
    // An empty list is stored as none, as kube-apiserver's protobuf storage stores it.
    return { ...slice, metadata, endpoints: endpointsOf(slice).length ? slice.endpoints : null, ports: portsOfSlice(slice).length ? slice.ports : null };
  };

  /** finalize: a create paired with a delete of the same address type becomes an update; then the writes. */
  async function finalize(svc: KubeObject, changes: Changes, triggerTime: string | undefined): Promise<void> {
    const namespace = svc.metadata.namespace!;
    const { create, update, delete: doomed } = changes;
    for (let i = 0; i < doomed.length && create.length; ) {
      const old = doomed[i]!;
      const slice = create[create.length - 1]!;
      if (old.addressType === slice.addressType && ownedBy(old, svc)) {
        slice.metadata.name = old.metadata.name;
        create.pop();
        update.push(slice);
        doomed.splice(i, 1);
      } else {
        i++;
      }
    }
    // A Service being deleted gets no new slices: the garbage collector is taking them.
    if (!svc.metadata.deletionTimestamp) {
      for (const slice of create) {
        try {
          await slices.create(namespace, triggerAnnotated(slice, triggerTime));
        } catch (e) {
          if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          throw new SyncError(`failed to create EndpointSlice for Service ${namespace}/${svc.metadata.name}: ${messageOf(e)}`);
        }
      }
    }
    for (const slice of update) {
      const next = triggerAnnotated(slice, triggerTime);
      try {
        await slices.update(namespace, slice.metadata.name!, (cur) => {
          if (!cur) throw newNotFound({ group: 'discovery.k8s.io', resource: 'endpointslices' }, slice.metadata.name!);
          return next;
        });
      } catch (e) {
        throw new SyncError(`failed to update ${slice.metadata.name} EndpointSlice for Service ${namespace}/${svc.metadata.name}: ${messageOf(e)}`);
      }
    }
    for (const slice of doomed) {
      try {
        await slices.delete(namespace, slice.metadata.name!);
      } catch (e) {
        if (isNotFound(e)) continue;
        throw new SyncError(`failed to delete ${slice.metadata.name} EndpointSlice for Service ${namespace}/${svc.metadata.name}: ${messageOf(e)}`);
      }
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await services.getKv(namespace, name);
    if (!kv) {
      // The garbage collector deletes the slices the Service owned.
      selectors.set(namespace, name, undefined);
      triggers.delete(namespace, name);
      retries.forget(key);
      return;
    }
    const svc = services.decode(kv);
    const selector = serviceSelector(svc);
    selectors.set(namespace, name, selector);
    if (specOf(svc)['type'] === 'ExternalName' || !selector) return;
    const selected = (await podLister.list(namespace)).filter((p) => labelsInclude(p.metadata.labels, selector));
    const mine = (await slices.list(namespace)).items.filter((s) => s.metadata.labels?.[serviceNameLabel] === name && s.metadata.labels?.[managedByLabel] === controllerName && !s.metadata.deletionTimestamp) as Slice[];
    const triggerTime = triggers.compute(svc, selected);
    const errors: string[] = [];
    try {
      // Reconcile: slices of an address type the Service no longer has go.
      const types = addressTypesFor(svc);
      const stale = mine.filter((s) => !types.includes(s.addressType as AddressType));
      for (const type of types) {
        try {
          const changes = await reconcileByAddressType(svc, selected, mine.filter((s) => s.addressType === type), type, errors);
          await finalize(svc, changes, triggerTime);
        } catch (e) {
          if (!(e instanceof SyncError)) throw e;
          errors.push(e.message);
        }
      }
      for (const slice of stale) {
        try {
          await slices.delete(namespace, slice.metadata.name!);
        } catch (e) {
          if (!isNotFound(e)) errors.push(`error deleting ${slice.metadata.name} EndpointSlice for Service ${namespace}/${name}: ${messageOf(e)}`);
        }
      }
    } finally {
      if (errors.length) {
        // utilerrors.NewAggregate's message: one error as it is, several in brackets.
        const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
        recorder.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${namespace}/${name}: ${message}`);
        retries.retry(key);
      } else {
        retries.forget(key);
      }
    }
  }

  const stopped = new AbortController();
  const queue = newWorkQueue('endpoint_slice', sync);
  /** The queue's AddRateLimited, then the Service dropped after maxRetries. */
  const retries = rateLimitedRetries(queue, sliceSyncBackoffMs, maxSyncRetries, stopped.signal);
  /** The Service a managed slice belongs to, before and after the change: a slice changed or deleted by others is put right. */
  const sliceKeys = (e: { kv: { key: string; value: string }; prevKv?: { value: string } }): string[] => {
    const namespace = e.kv.key.slice(slices.prefix.length).split('/')[0]!;
    const keys: string[] = [];
    for (const value of [e.kv.value, e.prevKv?.value]) {
      if (!value) continue;
      try {
        const labels = (JSON.parse(value) as KubeObject).metadata?.labels;
        if (labels?.[managedByLabel] === controllerName && labels[serviceNameLabel]) keys.push(`${namespace}/${labels[serviceNameLabel]}`);
      } catch {
        // Unreadable: nothing to requeue.
      }
    }
    return keys;
  };
  const running = watchInto(deps, queue, services, [
    {
      store: pods,
      keysFor: (e) => {
        podLister.observe(e);
        return selectors.keysFor(e, pods.prefix);
      },
    },
    { store: slices, keysFor: sliceKeys },
  ]);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}

/** A write of the reconciler that failed, with the message kube gives it. */
class SyncError extends Error {}

