/** Service strategy: defaults and allocations (pkg/registry/core/service). */
import { isObject } from '../../api/types';
import type { ResourceStrategy, StrategyContext } from '../generic/strategy';

/** A free-looking address from the default service CIDR 10.96.0.0/12. */
function allocateClusterIP(ctx: StrategyContext): string {
  const b = ctx.random.fill(new Uint8Array(3));
  const offset = ((b[0]! << 16) | (b[1]! << 8) | b[2]!) % ((1 << 20) - 2) + 1;
  const n = (10 << 24) | (96 << 16) | offset;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Service defaults and cluster IP allocation (SetDefaults_Service, the ClusterIP allocator). */
export const serviceStrategy: Partial<ResourceStrategy> = {
  prepareForCreate(obj, ctx) {
    const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
    spec['type'] ??= 'ClusterIP';
    spec['sessionAffinity'] ??= 'None';
    if (spec['type'] !== 'ExternalName') {
      if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = allocateClusterIP(ctx);
      spec['clusterIPs'] ??= [spec['clusterIP']];
      spec['ipFamilies'] ??= ['IPv4'];
      spec['ipFamilyPolicy'] ??= 'SingleStack';
      spec['internalTrafficPolicy'] ??= 'Cluster';
    }
    if (Array.isArray(spec['ports'])) {
      for (const p of spec['ports']) {
        if (!isObject(p)) continue;
        p['protocol'] ??= 'TCP';
        p['targetPort'] ??= p['port'];
      }
    }
    obj['status'] = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    const spec = isObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
    const oldSpec = isObject(old['spec']) ? old['spec'] : {};
    // The allocated address stays with the service.
    if (!spec['clusterIP'] && oldSpec['clusterIP']) spec['clusterIP'] = oldSpec['clusterIP'];
    if (!spec['clusterIPs'] && oldSpec['clusterIPs']) spec['clusterIPs'] = oldSpec['clusterIPs'];
  },
};
