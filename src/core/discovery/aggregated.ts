/**
 * Aggregated discovery (apidiscovery.k8s.io/v2, and v2beta1 for older
 * clients): every group, version and resource of /api or /apis in one
 * APIGroupDiscoveryList.
 *
 * Like kube-apiserver, a responseKind carries a group and version only when
 * the kind lives outside the listing's group version (deployments/scale is
 * autoscaling/v1 Scale); otherwise both are "" and mean "this group version".
 */
import type { ResourceRegistry, ServedGroup } from '../registry/registry';
import type { GroupVersionKind, ResourceType } from '../registry/types';

export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

function responseKind(kind: GroupVersionKind, group: string, version: string, custom?: boolean): GroupVersionKind {
  // apiextensions-apiserver's discovery always names the group and version of custom kinds.
  if (!custom && kind.group === group && kind.version === version) return { group: '', version: '', kind: kind.kind };
  return { group: kind.group, version: kind.version, kind: kind.kind };
}

/** One resource with its subresources, as an APIResourceDiscovery entry. */
export function resourceDiscovery(r: ResourceType): APIResourceDiscovery {
  const entry: APIResourceDiscovery = {
    resource: r.resource,
    responseKind: responseKind({ group: r.group, version: r.version, kind: r.kind }, r.group, r.version, r.custom),
    scope: r.scope,
    singularResource: r.singular,
    verbs: r.verbs,
  };
  if (r.shortNames?.length) entry.shortNames = r.shortNames;
  if (r.categories?.length) entry.categories = r.categories;
  if (r.subresources.length > 0) {
    entry.subresources = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: responseKind(s.kind, r.group, r.version, r.custom),
      verbs: s.verbs,
    }));
  }
  return entry;
}

function groupDiscovery(registry: ResourceRegistry, g: ServedGroup): APIGroupDiscovery {
  return {
    metadata: g.name === '' ? {} : { name: g.name },
    versions: g.versions.map((version) => ({
      version,
      resources: registry.resourcesIn(g.name, version).map(resourceDiscovery),
      freshness: 'Current',
    })),
  };
}

/**
 * The aggregated document for GET /api (`scope` "api": the core group only)
 * or GET /apis (`scope` "apis": every named group, in discovery order).
 */
export function aggregatedDiscovery(
  registry: ResourceRegistry,
  scope: 'api' | 'apis',
  version: AggregatedDiscoveryVersion = 'v2',
): APIGroupDiscoveryList {
  const groups = registry.groups().filter((g) => (scope === 'api' ? g.name === '' : g.name !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => groupDiscovery(registry, g)),
  };
}
