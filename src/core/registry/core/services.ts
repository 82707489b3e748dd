/**
 * Service strategy (pkg/registry/core/service): SetDefaults_Service, the
 * fields a type change leaves behind (dropTypeDependentFields), and the REST
 * storage's allocation hooks around the generic store (beginCreate,
 * beginUpdate, afterDelete) over one ServiceAllocator per server.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import type { ServiceAllocator } from './serviceAllocator';
import { clusterIPs, externallyAccessible, needsClusterIP, needsHealthCheck, needsNodePort, nodePortOf, servicePorts, serviceSpec } from './serviceSpec';

/** SetDefaults_Service: the defaulter decoding runs on every Service written, its status writes included. */
function defaultService(obj: KubeObject): void {
  const spec = serviceSpec(obj);
  if (!spec['sessionAffinity']) spec['sessionAffinity'] = 'None';
  // No affinity has no config: a config left from ClientIP goes rather than being refused.
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const cfg = isObject(spec['sessionAffinityConfig']) ? spec['sessionAffinityConfig'] : (spec['sessionAffinityConfig'] = {});
    const clientIP = isObject(cfg['clientIP']) ? cfg['clientIP'] : (cfg['clientIP'] = {});
    clientIP['timeoutSeconds'] ??= 10800;
  }
  if (!spec['type']) spec['type'] = 'ClusterIP';
  for (const p of servicePorts(obj)) {
    p['protocol'] ??= 'TCP';
    if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '') p['targetPort'] = p['port'];
  }
  // ExternallyAccessible: NodePort, LoadBalancer, or a ClusterIP Service with external IPs.
  if (externallyAccessible(obj) && !spec['externalTrafficPolicy']) spec['externalTrafficPolicy'] = 'Cluster';
  if (spec['type'] !== 'ExternalName') spec['internalTrafficPolicy'] ??= 'Cluster';
  if (spec['type'] === 'LoadBalancer') {
    spec['allocateLoadBalancerNodePorts'] ??= true;
    // A load balancer ingress with an IP and no ipMode is a VIP (LoadBalancerIPMode).
    const lb = isObject(obj['status']) ? obj['status']['loadBalancer'] : undefined;
    const ingress = isObject(lb) ? lb['ingress'] : undefined;
    if (Array.isArray(ingress)) for (const ing of ingress) if (isObject(ing) && ing['ip'] && ing['ipMode'] == null) ing['ipMode'] = 'VIP';
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** dropTypeDependentFields: what was allocated or defaulted for the old type, and left unchanged by the user, goes. */
function dropTypeDependentFields(obj: KubeObject, old: KubeObject): void {
  const spec = serviceSpec(obj);
  const oldSpec = serviceSpec(old);
  if (needsClusterIP(old) && !needsClusterIP(obj)) {
    if (same(spec['clusterIP'], oldSpec['clusterIP']) && same(clusterIPs(obj), clusterIPs(old))) {
      delete spec['clusterIP'];
      delete spec['clusterIPs'];
    }
    if (same(spec['ipFamilies'], oldSpec['ipFamilies'])) delete spec['ipFamilies'];
    if (same(spec['ipFamilyPolicy'], oldSpec['ipFamilyPolicy'])) delete spec['ipFamilyPolicy'];
  }
  if (needsNodePort(old) && !needsNodePort(obj)) {
    const ports = servicePorts(obj);
    const oldPorts = servicePorts(old);
    if (same(ports.map(nodePortOf), oldPorts.map(nodePortOf))) for (const p of ports) delete p.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(obj) && same(spec['healthCheckNodePort'], oldSpec['healthCheckNodePort'])) {
    delete spec['healthCheckNodePort'];
  }
  if (spec['type'] !== 'LoadBalancer') delete spec['allocateLoadBalancerNodePorts'];
  if (externallyAccessible(old) && !externallyAccessible(obj) && same(spec['externalTrafficPolicy'], oldSpec['externalTrafficPolicy'])) {
    delete spec['externalTrafficPolicy'];
  }
}

export const serviceStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultService,
  prepareForCreate(obj) {
    obj['status'] = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old, ctx) {
    if (ctx.subresource === '') dropTypeDependentFields(obj, old);
  },
};

/** The REST storage's hooks over a server's allocator: allocate on create and update, release on delete. */
export function serviceAllocationHooks(allocator: ServiceAllocator): Pick<ResourceStrategy, 'beginCreate' | 'beginUpdate' | 'afterDelete'> {
  const finisher = (txn: { commit(): void; revert(): void }, dryRun: boolean | undefined) => (success: boolean) => {
    if (success && !dryRun) txn.commit();
    else txn.revert();
  };
  return {
    beginCreate: (obj, ctx) => finisher(allocator.allocateCreate(obj), ctx.dryRun),
    beginUpdate: (obj, old, ctx) => finisher(allocator.allocateUpdate(obj, old), ctx.dryRun),
    afterDelete: (obj) => allocator.release(obj),
  };
}

export { ServiceAllocator } from './serviceAllocator';

/** The store calls of bootstrapServices (the generic Store, kept structural to avoid an import cycle). */
interface ServiceStore {
  list(namespace: string): Promise<{ items: KubeObject[] }>;
  getKv(namespace: string, name: string): Promise<unknown>;
  create(namespace: string, obj: KubeObject): Promise<KubeObject>;
}

/**
 * Startup: allocations are rebuilt from the stored Services (so a restart
 * hands out nothing that is in use), then the `kubernetes` Service in
 * default is created with the range's first address, as kube-apiserver's
 * controlplane controller does.
 */
export async function bootstrapServices(store: ServiceStore, allocator: ServiceAllocator, securePort = 6443): Promise<void> {
  for (const svc of (await store.list('')).items) allocator.restore(svc);
  if (await store.getKv('default', 'kubernetes')) return;
  const ip = allocator.ips.firstIP;
  try {
    await store.create('default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }], sessionAffinity: 'None' },
    });
  } catch (e) {
    // Another server over the same storage created it first.
    if (!(e instanceof Error && 'reason' in e && (e as { reason?: string }).reason === 'AlreadyExists')) throw e;
  }
}
