/**
 * kube-apiserver's endpoint reconciler for the `kubernetes` Service
 * (pkg/controlplane/reconcilers with the EndpointsAdapter): the Endpoints
 * `kubernetes` in default lists the API servers' advertise addresses on the
 * secure port, labelled skip-mirror (the server writes the slice itself),
 * and the EndpointSlice of the same name carries the same addresses. Each
 * server adds its own address and, when it shuts down, takes it out again,
 * as the lease reconciler does for its master lease; so several servers over
 * one store list each other. Written as `kube-apiserver`, as on a cluster.
 */
import { jsonEqual } from '../../api/equality';
import { objectsOf, type KubeObject } from '../../api/types';
import type { Store } from '../generic/store';

const serviceName = 'kubernetes';
const namespace = 'default';

export interface KubernetesEndpoint {
  /** --advertise-address. */
  address: string;
  /** The secure port, the `kubernetes` Service's targetPort. */
  port: number;
}

/** The addresses now listed: the Endpoints' first subset, as the reconciler reads it. */
function listedAddresses(endpoints: KubeObject | undefined): string[] {
  const subset = endpoints ? objectsOf(endpoints['subsets'])[0] : undefined;
  return objectsOf(subset?.['addresses']).map((a) => String(a['ip'] ?? '')).filter(Boolean);
}

const endpointsObject = (addresses: string[], port: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: serviceName, namespace, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
  ...(addresses.length ? { subsets: [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }] } : {}),
});

/** endpointSliceFromEndpoints: one slice named as the Endpoints, IPv6 when every address is. */
function sliceObject(endpoints: KubeObject): KubeObject {
  const subset = objectsOf(endpoints['subsets'])[0];
  const addresses = objectsOf(subset?.['addresses']).map((a) => String(a['ip']));
  const ipv6 = addresses.length > 0 && addresses.every((ip) => ip.includes(':'));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: serviceName, namespace, labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: ipv6 ? 'IPv6' : 'IPv4',
    endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ...(subset ? { ports: objectsOf(subset['ports']).map((p) => ({ name: p['name'], port: p['port'], protocol: p['protocol'] })) } : {}),
  };
}

/** The stored object of that name in default, read once; undefined when there is none. */
async function storedObject(store: Store, name: string): Promise<KubeObject | undefined> {
  const kv = await store.getKv(namespace, name);
  return kv ? store.decode(kv) : undefined;
}

/** Writes desired over what is stored when they differ in labels or content (the slice's address type: a new slice). */
async function ensure(store: Store, desired: KubeObject, fields: string[]): Promise<KubeObject> {
  const name = desired.metadata.name!;
  const current = await storedObject(store, name);
  if (!current) return store.create(namespace, desired);
  const same = jsonEqual(current.metadata.labels ?? {}, desired.metadata.labels) && fields.every((f) => jsonEqual(current[f], desired[f]));
  if (same) return current;
  if (desired['addressType'] !== undefined && current['addressType'] !== desired['addressType']) {
    await store.delete(namespace, name);
    return store.create(namespace, desired);
  }
  const { object } = await store.update(namespace, name, (live) => {
    const next = live ?? desired;
    next.metadata.labels = { ...(next.metadata.labels ?? {}), ...desired.metadata.labels };
    for (const f of fields) {
      if (desired[f] === undefined) delete next[f];
      else next[f] = desired[f];
    }
    return next;
  }, { forceAllowCreate: true });
  return object;
}

async function write(endpointsStore: Store, slices: Store | undefined, addresses: string[], port: number): Promise<void> {
  const endpoints = await ensure(endpointsStore, endpointsObject(addresses, port), ['subsets']);
  if (slices) await ensure(slices, sliceObject(endpoints), ['addressType', 'endpoints', 'ports']);
}

/** ReconcileEndpoints: this server's address listed (sorted among the others') on its port. */
export async function reconcileKubernetesEndpoints(endpoints: Store, slices: Store | undefined, self: KubernetesEndpoint): Promise<void> {
  const listed = listedAddresses(await storedObject(endpoints, serviceName));
  // Another port on the stored object (a restart with a new --secure-port): this server's port wins.
  const addresses = [...new Set([...listed, self.address])].sort();
  await write(endpoints, slices, addresses, self.port);
}

/** RemoveEndpoints, on shutdown: this server's address taken out; the objects stay, empty when it was the last. */
export async function removeKubernetesEndpoints(endpoints: Store, slices: Store | undefined, self: KubernetesEndpoint): Promise<void> {
  const current = await storedObject(endpoints, serviceName);
  if (!current) return;
  const listed = listedAddresses(current);
  if (!listed.includes(self.address)) return;
  const port = objectsOf(objectsOf(current['subsets'])[0]?.['ports']).map((p) => p['port']).find((p) => typeof p === 'number') ?? self.port;
  await write(endpoints, slices, listed.filter((a) => a !== self.address), port);
}

