/**
 * API discovery: pure functions from a ResourceRegistry to the documents
 * kube-apiserver serves at /api, /apis, /api/v1, /apis/{group} and
 * /apis/{group}/{version}, in the legacy shapes and in aggregated discovery
 * (apidiscovery.k8s.io/v2 and v2beta1). Negotiation and HTTP wiring are
 * the http layer's (http/handlers/discovery.ts).
 */
import type { ResourceRegistry } from '../registry/registry';
import { aggregatedDiscovery, type AggregatedDiscoveryVersion, type APIGroupDiscoveryList } from './aggregated';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './legacy';

export * from './aggregated';
export * from './legacy';

export interface DiscoveryOptions {
  /** Address clients should use, reported in /api's serverAddressByClientCIDRs (e.g. "10.0.0.1:6443"). */
  serverAddress: string;
}

/**
 * Which document a path names: `root` (/api, /apis: legacy or aggregated),
 * `group` (/apis/{group}: APIGroup) or `groupVersion` (/api/v1,
 * /apis/{group}/{version}: APIResourceList). Kube serves them from different
 * codecs, so the endpoint decides what negotiation offers.
 */
export interface DiscoveryDocument {
  endpoint: 'root' | 'group' | 'groupVersion';
  /** The legacy document (APIVersions, APIGroupList, APIGroup or APIResourceList). */
  legacy(): object;
  /** The aggregated APIGroupDiscoveryList; root documents only. */
  aggregated?: (version: AggregatedDiscoveryVersion) => APIGroupDiscoveryList;
}

/**
 * The discovery document at `path` (URL path without query; a trailing slash
 * is ignored), or undefined for paths that are not discovery documents of a
 * served group or group version (the caller answers 404).
 */
export function discoveryDocument(registry: ResourceRegistry, path: string, options: DiscoveryOptions): DiscoveryDocument | undefined {
  const segments = path.replace(/\/+$/, '').split('/').filter((s) => s !== '');
  const [root, a, b, ...rest] = segments;
  if (rest.length > 0 || (root !== 'api' && root !== 'apis')) return undefined;

  if (a === undefined) {
    return {
      endpoint: 'root',
      legacy: () => (root === 'api' ? apiVersions(registry, options.serverAddress) : apiGroupList(registry)),
      aggregated: (version) => aggregatedDiscovery(registry, root, version),
    };
  }
  if (root === 'api') {
    const list = b === undefined ? apiResourceList(registry, '', a) : undefined;
    return list && { endpoint: 'groupVersion', legacy: () => list };
  }
  if (b === undefined) {
    const group = apiGroup(registry, a);
    return group && { endpoint: 'group', legacy: () => group };
  }
  const list = apiResourceList(registry, a, b);
  return list && { endpoint: 'groupVersion', legacy: () => list };
}
