/**
 * What the Service REST storage allocates around the generic store
 * (pkg/registry/core/service/storage alloc.go): ClusterIPs from the service
 * CIDR and NodePorts (and health-check NodePorts) from the node port range,
 * as transactions that commit when the write is stored and revert when it is
 * not. Allocations are in memory and rebuilt from stored Services at startup
 * (what kube's repair controllers converge to), so they survive restarts;
 * JavaScript's single thread makes each allocation atomic, so concurrent
 * creates never get the same address.
 */
import type { KubeObject } from '../../api/types';
import { goStringSlice, invalid, newInternalError, newInvalid, type FieldError } from '../../errors';
import type { RandomSource } from '../../util/clock';
import { AllocationError, IPAllocator, parseIPv4, parseServiceCIDR, defaultServiceCIDR } from './ipallocator';
import { PortAllocator, parsePortRange, defaultNodePortRange } from './portallocator';
import {
  clusterIPs,
  needsClusterIP,
  needsHealthCheck,
  needsNodePort,
  nodePortOf,
  servicePorts,
  serviceSpec,
  serviceType,
  shouldAllocateNodePorts,
} from './serviceSpec';

export interface ServiceAllocatorOptions {
  /** --service-cluster-ip-range */
  serviceClusterIPRange?: string;
  /** --service-node-port-range */
  serviceNodePortRange?: string;
  random: RandomSource;
}

/** Allocations made for one write: revert undoes them; commit keeps them and performs deferred releases. */
export interface AllocationTransaction {
  commit(): void;
  revert(): void;
}

const serviceKind = { group: '', kind: 'Service' };

class Txn implements AllocationTransaction {
  readonly undo: (() => void)[] = [];
  readonly deferred: (() => void)[] = [];
  commit(): void {
    for (const f of this.deferred) f();
  }
  revert(): void {
    for (const f of this.undo.reverse()) f();
  }
}

function allocationMessage(e: unknown): string {
  if (e instanceof AllocationError) return e.message;
  throw e;
}

export class ServiceAllocator {
  readonly ips: IPAllocator;
  readonly ports: PortAllocator;

  constructor(options: ServiceAllocatorOptions) {
    this.ips = new IPAllocator(parseServiceCIDR(options.serviceClusterIPRange ?? defaultServiceCIDR), options.random);
    this.ports = new PortAllocator(parsePortRange(options.serviceNodePortRange ?? defaultNodePortRange), options.random);
  }

  /** Marks what a stored Service holds (startup). Addresses outside the current ranges are left alone, as the repair loop reports them. */
  restore(svc: KubeObject): void {
    for (const ip of clusterIPs(svc)) if (ip !== 'None' && this.ips.contains(ip) && !this.ips.has(ip)) this.ips.allocate(ip);
    for (const port of this.heldPorts(svc)) if (this.ports.contains(port) && !this.ports.has(port)) this.ports.allocate(port);
  }

  /** Everything a deleted Service held goes back (AfterDelete). */
  release(svc: KubeObject): void {
    for (const ip of clusterIPs(svc)) if (ip !== 'None') this.ips.release(ip);
    for (const port of this.heldPorts(svc)) this.ports.release(port);
  }

  private heldPorts(svc: KubeObject): number[] {
    const out = servicePorts(svc).map(nodePortOf).filter((p) => p !== 0);
    const hc = serviceSpec(svc)['healthCheckNodePort'];
    if (typeof hc === 'number' && hc !== 0) out.push(hc);
    return [...new Set(out)];
  }

  /** allocateCreate: ClusterIPs, then NodePorts, then the health-check NodePort. Throws 422/500 Status errors as kube-apiserver. */
  allocateCreate(svc: KubeObject): AllocationTransaction {
    const txn = new Txn();
    try {
      normalizeClusterIPs(svc, undefined);
      this.initIPFamilyFields(svc);
      if (needsClusterIP(svc)) this.allocClusterIPs(svc, txn);
      if (needsNodePort(svc)) this.initNodePorts(svc, txn);
      if (needsHealthCheck(svc)) this.allocHealthCheckNodePort(svc, txn);
      return txn;
    } catch (e) {
      txn.revert();
      throw e;
    }
  }

  /** allocateUpdate: new allocations for what the type change needs, deferred releases for what it no longer does. */
  allocateUpdate(svc: KubeObject, old: KubeObject): AllocationTransaction {
    const txn = new Txn();
    try {
      patchAllocatedValues(svc, old);
      normalizeClusterIPs(svc, old);
      this.initIPFamilyFields(svc);
      if (needsClusterIP(svc) && !needsClusterIP(old)) this.allocClusterIPs(svc, txn);
      if (!needsClusterIP(svc) && needsClusterIP(old)) {
        for (const ip of clusterIPs(old)) if (ip !== 'None') txn.deferred.push(() => this.ips.release(ip));
      }
      const oldPorts = servicePorts(old).map(nodePortOf).filter((p) => p !== 0);
      if (needsNodePort(old) && !needsNodePort(svc)) {
        for (const p of oldPorts) txn.deferred.push(() => this.ports.release(p));
      }
      if (needsNodePort(svc)) this.updateNodePorts(svc, oldPorts, txn);
      const oldHC = needsHealthCheck(old) ? Number(serviceSpec(old)['healthCheckNodePort'] ?? 0) : 0;
      if (needsHealthCheck(svc) && !oldHC) this.allocHealthCheckNodePort(svc, txn);
      if (oldHC && !needsHealthCheck(svc)) txn.deferred.push(() => this.ports.release(oldHC));
      return txn;
    } catch (e) {
      txn.revert();
      throw e;
    }
  }

  /** initIPFamilyFields on a single-stack IPv4 cluster: families inferred from the IPs, policy defaulted, IPv6 and dual-stack refused. */
  private initIPFamilyFields(svc: KubeObject): void {
    const spec = serviceSpec(svc);
    if (!needsClusterIP(svc)) return;
    const name = svc.metadata.name ?? '';
    const ips = clusterIPs(svc);
    const families = Array.isArray(spec['ipFamilies']) ? [...(spec['ipFamilies'] as string[])] : [];
    const errs: FieldError[] = [];
    ips.forEach((ip, i) => {
      if (ip === 'None' || i < families.length) return;
      if (parseIPv4(ip) === undefined) errs.push({ ...invalid(`spec.clusterIPs[${i}]`, null, 'may not use IPv6 on a cluster which is not configured for it'), valueText: goStringSlice(ips) });
      else families.push('IPv4');
    });
    if (errs.length) throw newInvalid(serviceKind, name, errs);
    const headlessSelectorless = serviceType(svc) === 'ClusterIP' && spec['clusterIP'] === 'None' && !hasSelector(svc);
    if (headlessSelectorless) {
      // The one case that may be dual-stack on any cluster: RequireDualStack by default, and then both families.
      spec['ipFamilyPolicy'] ??= 'RequireDualStack';
      if (!families.length) families.push('IPv4');
      if (families.length < 2 && spec['ipFamilyPolicy'] === 'RequireDualStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
      spec['ipFamilies'] = families;
      return;
    }
    spec['ipFamilyPolicy'] ??= 'SingleStack';
    const policy = spec['ipFamilyPolicy'];
    if (families.length > 1 && policy === 'SingleStack') {
      errs.push({ ...invalid('spec.ipFamilyPolicy', policy, 'when multiple IP families are specified, IP family policy must be RequireDualStack or PreferDualStack') });
    }
    if (policy === 'RequireDualStack') errs.push(invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
    families.forEach((f, i) => {
      if (f === 'IPv6') errs.push(invalid(`spec.ipFamilies[${i}]`, f, `${f} is not configured on this cluster`));
    });
    if (errs.length) throw newInvalid(serviceKind, name, errs);
    // PreferDualStack on a single-stack cluster keeps one family.
    spec['ipFamilies'] = families.length ? families.slice(0, 1) : ['IPv4'];
  }

  private allocClusterIPs(svc: KubeObject, txn: Txn): void {
    const spec = serviceSpec(svc);
    if (spec['clusterIP'] === 'None') {
      spec['clusterIPs'] = ['None'];
      return;
    }
    const requested = clusterIPs(svc);
    const ip = requested[0];
    if (!ip) {
      let next: string;
      try {
        next = this.ips.allocateNext();
      } catch (e) {
        throw newInternalError(`failed to allocate a serviceIP: ${allocationMessage(e)}`);
      }
      txn.undo.push(() => this.ips.release(next));
      spec['clusterIP'] = next;
      spec['clusterIPs'] = [next];
      return;
    }
    try {
      this.ips.allocate(ip);
    } catch (e) {
      const err = { ...invalid('spec.clusterIPs', null, `failed to allocate IP ${ip}: ${allocationMessage(e)}`), valueText: goStringSlice(requested) };
      throw newInvalid(serviceKind, svc.metadata.name ?? '', [err]);
    }
    txn.undo.push(() => this.ips.release(ip));
  }

  private allocPort(port: number, txn: Txn, field: string, svc: KubeObject, prefix = ''): void {
    try {
      this.ports.allocate(port);
    } catch (e) {
      throw newInvalid(serviceKind, svc.metadata.name ?? '', [invalid(field, port, prefix + allocationMessage(e))]);
    }
    txn.undo.push(() => this.ports.release(port));
  }

  private nextPort(txn: Txn): number {
    let port: number;
    try {
      port = this.ports.allocateNext();
    } catch (e) {
      throw newInternalError(`failed to allocate a nodePort: ${allocationMessage(e)}`);
    }
    txn.undo.push(() => this.ports.release(port));
    return port;
  }

  /** initNodePorts: ports sharing a port number (TCP and UDP 53) share one NodePort. */
  private initNodePorts(svc: KubeObject, txn: Txn): void {
    const ports = servicePorts(svc);
    const byPort = new Map<unknown, number>();
    ports.forEach((p, i) => {
      if (nodePortOf(p) === 0 && !shouldAllocateNodePorts(svc)) return;
      const shared = byPort.get(p.port);
      if (shared === undefined) {
        const requested = ports.find((q) => q.port === p.port && nodePortOf(q) !== 0);
        if (requested) {
          const np = nodePortOf(requested);
          this.allocPort(np, txn, `spec.ports[${i}].nodePort`, svc);
          p.nodePort = np;
          byPort.set(p.port, np);
        } else {
          p.nodePort = this.nextPort(txn);
          byPort.set(p.port, p.nodePort);
        }
      } else if (nodePortOf(p) !== shared) {
        if (nodePortOf(p) === 0) p.nodePort = shared;
        else this.allocPort(nodePortOf(p), txn, `spec.ports[${i}].nodePort`, svc);
      }
    });
  }

  private updateNodePorts(svc: KubeObject, oldPorts: number[], txn: Txn): void {
    const taken = new Set<number>();
    servicePorts(svc).forEach((p, i) => {
      if (nodePortOf(p) === 0 && !shouldAllocateNodePorts(svc)) return;
      const np = nodePortOf(p);
      if (np !== 0) {
        if (!oldPorts.includes(np) && !taken.has(np)) {
          this.allocPort(np, txn, `spec.ports[${i}].nodePort`, svc);
          taken.add(np);
        }
      } else {
        p.nodePort = this.nextPort(txn);
      }
    });
    const kept = new Set(servicePorts(svc).map(nodePortOf));
    for (const p of oldPorts) if (!kept.has(p)) txn.deferred.push(() => this.ports.release(p));
  }

  private allocHealthCheckNodePort(svc: KubeObject, txn: Txn): void {
    const spec = serviceSpec(svc);
    const hc = typeof spec['healthCheckNodePort'] === 'number' ? spec['healthCheckNodePort'] : 0;
    if (hc) this.allocPort(hc, txn, 'spec.healthCheckNodePort', svc, `failed to allocate requested HealthCheck NodePort ${hc}: `);
    else spec['healthCheckNodePort'] = this.nextPort(txn);
  }
}

function hasSelector(svc: KubeObject): boolean {
  const sel = serviceSpec(svc)['selector'];
  return !!sel && typeof sel === 'object' && Object.keys(sel).length > 0;
}

/** NormalizeClusterIPs: keep clusterIP and clusterIPs in step with what the user meant to change. */
export function normalizeClusterIPs(svc: KubeObject, old: KubeObject | undefined): void {
  const spec = serviceSpec(svc);
  const ip = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  const ips = clusterIPs(svc);
  if (ip && ips.length === 0) {
    spec['clusterIPs'] = [ip];
    return;
  }
  if (!old) return;
  const oldSpec = serviceSpec(old);
  const oldIPs = clusterIPs(old);
  const sameIPs = oldIPs.length === ips.length && oldIPs.every((v, i) => v === ips[i]);
  if (sameIPs && ip !== (oldSpec['clusterIP'] ?? '')) {
    // The user changed clusterIP and left clusterIPs alone: clusterIPs follows.
    if (!ip) delete spec['clusterIPs'];
    else spec['clusterIPs'] = [ip, ...ips.slice(1)];
  }
}

/** patchAllocatedValues: values a client left out of an update (replace without clusterIP or nodePort) are the allocated ones. */
export function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = serviceSpec(svc);
  const oldSpec = serviceSpec(old);
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!spec['clusterIP'] && oldSpec['clusterIP']) spec['clusterIP'] = oldSpec['clusterIP'];
    if (clusterIPs(svc).length === 0 && clusterIPs(old).length > 0) spec['clusterIPs'] = [...clusterIPs(old)];
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const newUsed = new Set(servicePorts(svc).map(nodePortOf).filter((p) => p !== 0));
    const used = new Set(servicePorts(old).map(nodePortOf).filter((p) => newUsed.has(p)));
    const byName = new Map(servicePorts(old).map((p) => [p.name ?? '', nodePortOf(p)]));
    for (const p of servicePorts(svc)) {
      if (nodePortOf(p) !== 0) continue;
      const oldVal = byName.get(p.name ?? '') ?? 0;
      if (oldVal && !used.has(oldVal)) p.nodePort = oldVal;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !spec['healthCheckNodePort'] && oldSpec['healthCheckNodePort']) {
    spec['healthCheckNodePort'] = oldSpec['healthCheckNodePort'];
  }
}
