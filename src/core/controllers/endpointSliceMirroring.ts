/**
 * The EndpointSlice mirroring controller (pkg/controller/endpointslicemirroring):
 * for an Endpoints whose Service exists and has no selector (a hand-written
 * "external service"), keeps discovery.k8s.io/v1 EndpointSlices mirroring it,
 * so that readers of slices (kube-proxy, kubectl describe service) see its
 * addresses. Each set of subset ports and address family makes one slice named
 * `<endpoints>-<random>`, owned by the Endpoints, with the Endpoints' labels
 * and annotations (but the trigger time and kubectl's last-applied
 * configuration) and the service-name and managed-by labels; addresses are
 * ready, notReadyAddresses not, at most maxEndpointsPerSubset per subset, and
 * addresses that are not IPs are left out (with a Warning event on the
 * Endpoints for each kind of skip). An Endpoints labelled skip-mirror or
 * holding a leader-election record is not mirrored, and its slices go, as do
 * the slices of a deleted Endpoints or Service and of a Service that gained a
 * selector. Slices managed by anyone else are left alone.
 */
import { jsonEqual } from '../api/equality';
import { isObject, type KubeObject } from '../api/types';
import { isNotFound, newNotFound, StatusError } from '../errors';
import { parseIP } from '../validation/net';
import { ipString } from '../validation/networking/netip';
import { specOf } from './controllerUtils';
import { decodeObject, lastChangeTriggerTimeAnnotation, maxSyncRetries, messageOf } from './endpointAddresses';
import { endpointHash, endpointsEqualBeyondHash, managedByLabel, portMapKey, serviceNameLabel } from './endpointSlice';
import { repackSubsets, type EndpointSubset } from './endpoints';
import { newEventRecorder } from './events';
import { skippedController, watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue, rateLimitedRetries } from './workqueue';

type Obj = Record<string, unknown>;

/** The controller's name in the managed-by label (endpointslicemirroring.ControllerName). */
export const mirroringControllerName = 'endpointslicemirroring-controller.k8s.io';
/** discovery.LabelSkipMirror: an Endpoints someone else mirrors (the apiserver's own `kubernetes`). */
export const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
/** --mirroring-max-endpoints-per-subset's default. */
export const defaultMirroringMaxEndpointsPerSubset = 1000;
/** resourcelock.LeaderElectionRecordAnnotationKey: an Endpoints used as a lock is no service's. */
const leaderElectionAnnotation = 'control-plane.alpha.kubernetes.io/leader';
/** v1.LastAppliedConfigAnnotation. */
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** The controller's rate limiter: 1s doubling per failure, up to 1000s (defaultSyncBackOff, maxSyncBackOff). */
const mirrorSyncBackoffMs = (failures: number): number => Math.min(1000 * 2 ** failures, 1_000_000);

export interface EndpointSliceMirroringOptions {
  /** kube-controller-manager's --mirroring-max-endpoints-per-subset. */
  maxEndpointsPerSubset?: number;
}

type AddressType = 'IPv4' | 'IPv6';

interface Slice extends KubeObject {
  addressType: string;
  endpoints: Obj[] | null;
  ports: Obj[] | null;
}

const listOf = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** shouldMirror: not labelled skip-mirror and not a leader-election lock. */
export const shouldMirror = (ep: KubeObject): boolean =>
  ep.metadata.labels?.[skipMirrorLabel] !== 'true' && !(ep.metadata.annotations && leaderElectionAnnotation in ep.metadata.annotations);

/** A Service's spec.selector as kube's nil check sees it: an empty map is stored as none. */
const hasSelector = (svc: KubeObject): boolean => {
  const s = specOf(svc)['selector'];
  return isObject(s) && Object.keys(s).length > 0;
};

/** ObjectReference's fields in Go's order. */
const refFields = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** addressToEndpoint: the address re-stringified as net.IP does (sloppy parse, IPv4-in-IPv6 as IPv4), or none when it is no IP. */
function addressToEndpoint(address: Obj, ready: boolean): { ep: Obj; type: AddressType } | undefined {
  const ip = parseIP(str(address['ip']));
  if (!ip) return undefined;
  const v4 = ip.v4 || (ip.bytes.slice(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff);
  const ep: Obj = { addresses: [ipString(ip.bytes, v4)], conditions: { ready } };
  if (str(address['hostname'])) ep['hostname'] = address['hostname'];
  const ref = address['targetRef'];
  if (isObject(ref)) ep['targetRef'] = Object.fromEntries(refFields.filter((k) => ref[k] !== undefined && ref[k] !== '').map((k) => [k, ref[k]]));
  if (typeof address['nodeName'] === 'string') ep['nodeName'] = address['nodeName'];
  return { ep, type: v4 ? 'IPv4' : 'IPv6' };
}

/** epPortsToEpsPorts: every field carried, the name even when empty. */
const slicePorts = (ports: Obj[]): Obj[] =>
  ports.map((p) => ({ name: str(p['name']), protocol: str(p['protocol']) || 'TCP', port: p['port'], ...(typeof p['appProtocol'] === 'string' ? { appProtocol: p['appProtocol'] } : {}) }));

/** addrTypePortMapKey. */
const groupKey = (type: string, ports: Obj[]): string => `${type}-${portMapKey(ports)}`;

/** The mirrored state one Endpoints asks for: endpoints (by hash) and ports per address type and port set. */
interface Desired {
  groups: Map<string, { type: AddressType; ports: Obj[]; endpoints: Map<string, Obj> }>;
  invalid: number;
  skipped: number;
}

/** The desiredCalc of reconcile: each repacked subset's addresses, then its not-ready ones, up to max per subset. */
function desiredState(ep: KubeObject, max: number): Desired {
  const d: Desired = { groups: new Map(), invalid: 0, skipped: 0 };
  // RepackSubsets canonicalizes them first: an address listed twice is one, not ready if it is not ready anywhere.
  for (const subset of repackSubsets(listOf(ep['subsets']) as EndpointSubset[]) as unknown as Obj[]) {
    const ports = slicePorts(listOf(subset['ports']));
    // initPorts: both families get a group, so a family with no addresses left has its slices deleted.
    for (const type of ['IPv4', 'IPv6'] as const) {
      const key = groupKey(type, ports);
      if (!d.groups.has(key)) d.groups.set(key, { type, ports, endpoints: new Map() });
    }
    const addresses = listOf(subset['addresses']).map((a) => [a, true] as const);
    const notReady = listOf(subset['notReadyAddresses']).map((a) => [a, false] as const);
    let added = 0;
    for (const [address, ready] of [...addresses, ...notReady]) {
      if (added >= max) break;
      const made = addressToEndpoint(address, ready);
      if (!made) {
        d.invalid++;
        continue;
      }
      d.groups.get(groupKey(made.type, ports))!.endpoints.set(endpointHash(made.ep), made.ep);
      added++;
    }
    d.skipped += addresses.length + notReady.length - added;
  }
  return d;
}

/** cloneAndRemoveKeys. */
const without = (m: Record<string, string> | undefined, ...keys: string[]): Record<string, string> =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !keys.includes(k)));

/** newEndpointSlice: owned by the Endpoints (as its controller), its labels and annotations copied. */
function newSlice(ep: KubeObject, type: AddressType, ports: Obj[], endpoints: Obj[], name?: string): Slice {
  const labels = { ...(ep.metadata.labels ?? {}), [serviceNameLabel]: ep.metadata.name!, [managedByLabel]: mirroringControllerName };
  const annotations = without(ep.metadata.annotations, lastChangeTriggerTimeAnnotation, lastAppliedAnnotation);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...(name ? { name } : { generateName: `${ep.metadata.name}-` }),
      namespace: ep.metadata.namespace!,
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: ep.metadata.name!, uid: ep.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    addressType: type,
    // Empty lists are stored as none, as kube-apiserver's protobuf storage stores them.
    endpoints: endpoints.length ? endpoints : null,
    ports: ports.length ? ports : null,
  };
}

interface Changes {
  create: Slice[];
  update: Slice[];
  delete: Slice[];
}

/**
 * reconcileByPortMapping: one slice per group. The first existing slice is
 * kept as it is when its endpoints, labels and annotations already match, or
 * rewritten under its name; the others go.
 */
function reconcileGroup(ep: KubeObject, existing: Slice[], group: { type: AddressType; ports: Obj[]; endpoints: Map<string, Obj> }, max: number, changes: Changes): void {
  if (!group.endpoints.size) {
    changes.delete.push(...existing);
    return;
  }
  const [first, ...rest] = existing;
  changes.delete.push(...rest);
  if (first) {
    const have = listOf(first.endpoints);
    const same = have.length === group.endpoints.size && have.every((e) => {
      const want = group.endpoints.get(endpointHash(e));
      return want && endpointsEqualBeyondHash(want, e);
    });
    if (same
      && jsonEqual(ep.metadata.labels ?? {}, without(first.metadata.labels, managedByLabel, serviceNameLabel))
      && jsonEqual(without(ep.metadata.annotations, lastChangeTriggerTimeAnnotation, lastAppliedAnnotation), first.metadata.annotations ?? {})) return;
  }
  const slice = newSlice(ep, group.type, group.ports, [...group.endpoints.values()].slice(0, max), first?.metadata.name);
  (first ? changes.update : changes.create).push(slice);
}

/** recycleSlices: a create and a delete of one address type become an update of the slice to delete. */
function recycle(changes: Changes): void {
  for (let i = 0; i < changes.create.length; ) {
    const slice = changes.create[i]!;
    const j = changes.delete.findIndex((d) => d.addressType === slice.addressType);
    if (j < 0) {
      i++;
      continue;
    }
    const [old] = changes.delete.splice(j, 1);
    const { generateName: _generateName, ...metadata } = slice.metadata;
    changes.update.push({ ...slice, metadata: { ...metadata, name: old!.metadata.name } });
    changes.create.splice(i, 1);
  }
}

export function startEndpointSliceMirroringController(deps: NamespaceControllerDeps, options: EndpointSliceMirroringOptions = {}): RunningController {
  const max = options.maxEndpointsPerSubset ?? defaultMirroringMaxEndpointsPerSubset;
  const endpointsStore = deps.storeFor(deps.registry.resourceFor('', 'v1', 'endpoints')!);
  const services = deps.storeFor(deps.registry.resourceFor('', 'v1', 'services')!);
  const sliceType = deps.registry.resourceFor('discovery.k8s.io', 'v1', 'endpointslices');
  if (!sliceType) return skippedController;
  const slices = deps.storeFor(sliceType);
  const recorder = newEventRecorder(deps, 'endpoint-slice-mirroring-controller');

  /**
   * endpointSlicesMirroredForService. Most syncs (every Endpoints the endpoints controller writes) find none: only
   * slices whose stored text names this controller are decoded.
   */
  const mirrored = async (namespace: string, name: string): Promise<Slice[]> =>
    (await slices.listKvs(namespace)).kvs
      .filter((kv) => kv.value.includes(mirroringControllerName))
      .map((kv) => slices.decode(kv))
      .filter((s) => s.metadata.labels?.[serviceNameLabel] === name && s.metadata.labels?.[managedByLabel] === mirroringControllerName) as Slice[];

  /** deleteMirroredSlices. */
  async function deleteMirrored(namespace: string, name: string): Promise<void> {
    const doomed = await mirrored(namespace, name);
    const errors: string[] = [];
    for (const slice of doomed) {
      try {
        await slices.delete(namespace, slice.metadata.name!);
      } catch (e) {
        if (!isNotFound(e)) errors.push(messageOf(e));
      }
    }
    if (errors.length) throw new Error(`error(s) deleting ${errors.length}/${doomed.length} EndpointSlices for ${namespace}/${name} Endpoints, including: ${errors[0]}`);
  }

  /** An update writes the controller's slice over the stored one, keeping the system's metadata. */
  const overwrite = (next: Slice) => (cur: KubeObject | undefined): KubeObject => {
    if (!cur) throw newNotFound({ group: 'discovery.k8s.io', resource: 'endpointslices' }, next.metadata.name!);
    const { uid, creationTimestamp, generation, managedFields, deletionTimestamp, deletionGracePeriodSeconds } = cur.metadata;
    const metadata = { ...next.metadata, uid, creationTimestamp, generation, managedFields, deletionTimestamp, deletionGracePeriodSeconds };
    for (const k of Object.keys(metadata) as (keyof typeof metadata)[]) if (metadata[k] === undefined) delete metadata[k];
    return { ...next, metadata };
  };

  /** reconcile and finalize. */
  async function reconcile(ep: KubeObject, existing: Slice[]): Promise<void> {
    const namespace = ep.metadata.namespace!;
    const name = ep.metadata.name!;
    const desired = desiredState(ep, max);
    if (desired.invalid > 0) recorder.event(ep, 'Warning', 'InvalidIPAddress', `Skipped ${desired.invalid} invalid IP addresses when mirroring to EndpointSlices`);
    if (desired.skipped > desired.invalid) recorder.event(ep, 'Warning', 'TooManyAddressesToMirror', `A max of ${max} addresses can be mirrored to EndpointSlices per Endpoints subset. ${desired.skipped} addresses were skipped`);
    const existingByKey = new Map<string, Slice[]>();
    for (const slice of existing) {
      const key = groupKey(slice.addressType, listOf(slice.ports));
      existingByKey.set(key, [...(existingByKey.get(key) ?? []), slice]);
    }
    const changes: Changes = { create: [], update: [], delete: [] };
    for (const [key, group] of desired.groups) reconcileGroup(ep, existingByKey.get(key) ?? [], group, max, changes);
    for (const [key, stale] of existingByKey) if (!desired.groups.has(key)) changes.delete.push(...stale);
    recycle(changes);
    // No new slices for an Endpoints being deleted.
    if (!ep.metadata.deletionTimestamp) {
      for (const slice of changes.create) {
        try {
          await slices.create(namespace, slice);
        } catch (e) {
          if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          throw new Error(`failed to create EndpointSlice for Endpoints ${namespace}/${name}: ${messageOf(e)}`);
        }
      }
    }
    for (const slice of changes.update) {
      try {
        await slices.update(namespace, slice.metadata.name!, overwrite(slice));
      } catch (e) {
        throw new Error(`failed to update ${slice.metadata.name} EndpointSlice for Endpoints ${namespace}/${name}: ${messageOf(e)}`);
      }
    }
    for (const slice of changes.delete) {
      try {
        await slices.delete(namespace, slice.metadata.name!);
      } catch (e) {
        if (!isNotFound(e)) throw new Error(`failed to delete ${slice.metadata.name} EndpointSlice for Endpoints ${namespace}/${name}: ${messageOf(e)}`);
      }
    }
  }

  /** syncEndpoints. */
  async function syncEndpoints(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const epKv = await endpointsStore.getKv(namespace, name);
    const ep = epKv ? endpointsStore.decode(epKv) : undefined;
    const svcKv = ep && shouldMirror(ep) ? await services.getKv(namespace, name) : undefined;
    const svc = svcKv ? services.decode(svcKv) : undefined;
    if (!ep || !svc || hasSelector(svc)) return deleteMirrored(namespace, name);
    await reconcile(ep, await mirrored(namespace, name));
  }

  async function sync(key: string): Promise<void> {
    try {
      await syncEndpoints(key);
      retries.forget(key);
    } catch (e) {
      console.error(`kubesim: endpointslice-mirroring-controller: ${key}: ${messageOf(e)}`);
      retries.retry(key);
    }
  }

  const stopped = new AbortController();
  const queue = newWorkQueue('endpoint_slice_mirroring', sync);
  const retries = rateLimitedRetries(queue, mirrorSyncBackoffMs, maxSyncRetries, stopped.signal);
  const running = watchInto(
    deps,
    queue,
    endpointsStore,
    [
      {
        // onService*: a Service without a selector, added or deleted, or one whose selector came or went.
        store: services,
        keysFor: (e) => {
          const cur = decodeObject(e.kv.value);
          const prev = decodeObject(e.prevKv?.value);
          const key = e.kv.key.slice(services.prefix.length);
          if (e.type === 'DELETE' || !prev) return [(cur ?? prev) && !hasSelector((cur ?? prev)!) ? key : undefined];
          return [cur && hasSelector(cur) !== hasSelector(prev) ? key : undefined];
        },
      },
      {
        // onEndpointSlice*: a mirrored slice changed or deleted by others is put right (a sync that finds it right writes nothing).
        store: slices,
        keysFor: (e) => {
          const namespace = e.kv.key.slice(slices.prefix.length).split('/')[0]!;
          return [decodeObject(e.kv.value), decodeObject(e.prevKv?.value)].map((s) => {
            const labels = s?.metadata?.labels;
            return labels?.[managedByLabel] === mirroringControllerName && labels[serviceNameLabel] ? `${namespace}/${labels[serviceNameLabel]}` : undefined;
          });
        },
      },
    ],
    // onEndpoints*: only Endpoints that are (or were) to be mirrored.
    (e) => [decodeObject(e.kv.value), decodeObject(e.prevKv?.value)].some((ep) => ep?.metadata && shouldMirror(ep)),
  );
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}

