/** Typed reads of a Service's spec, shared by the strategy, the allocator and validation (pkg/api/service helpers). */
import { isObject, type KubeObject } from '../../api/types';

export interface ServicePortLike extends Record<string, unknown> {
  name?: string;
  protocol?: string;
  port?: number;
  nodePort?: number;
}

export function serviceSpec(svc: KubeObject): Record<string, unknown> {
  if (!isObject(svc['spec'])) svc['spec'] = {};
  return svc['spec'] as Record<string, unknown>;
}

export const serviceType = (svc: KubeObject): string => String(serviceSpec(svc)['type'] ?? '');

export function servicePorts(svc: KubeObject): ServicePortLike[] {
  const ports = serviceSpec(svc)['ports'];
  return Array.isArray(ports) ? (ports.filter(isObject) as ServicePortLike[]) : [];
}

export function clusterIPs(svc: KubeObject): string[] {
  const ips = serviceSpec(svc)['clusterIPs'];
  return Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
}

/** isHeadlessService: exactly one clusterIP, and it is None. */
export function isHeadless(svc: KubeObject): boolean {
  const ips = clusterIPs(svc);
  return ips.length === 1 && ips[0] === 'None';
}

export const needsClusterIP = (svc: KubeObject): boolean => serviceType(svc) !== 'ExternalName';

export const needsNodePort = (svc: KubeObject): boolean => serviceType(svc) === 'NodePort' || serviceType(svc) === 'LoadBalancer';

/** ExternallyAccessible: NodePort, LoadBalancer, or ClusterIP with externalIPs. */
export function externallyAccessible(svc: KubeObject): boolean {
  const ext = serviceSpec(svc)['externalIPs'];
  return needsNodePort(svc) || (serviceType(svc) === 'ClusterIP' && Array.isArray(ext) && ext.length > 0);
}

/** NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local. */
export const needsHealthCheck = (svc: KubeObject): boolean =>
  serviceType(svc) === 'LoadBalancer' && serviceSpec(svc)['externalTrafficPolicy'] === 'Local';

/** shouldAllocateNodePorts: NodePort always, LoadBalancer unless allocateLoadBalancerNodePorts is false. */
export function shouldAllocateNodePorts(svc: KubeObject): boolean {
  if (serviceType(svc) === 'NodePort') return true;
  if (serviceType(svc) === 'LoadBalancer') return serviceSpec(svc)['allocateLoadBalancerNodePorts'] !== false;
  return false;
}

export const nodePortOf = (p: ServicePortLike): number => (typeof p.nodePort === 'number' ? p.nodePort : 0);
