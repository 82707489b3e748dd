/**
 * Unaggregated discovery documents: /api (APIVersions), /apis (APIGroupList),
 * /apis/{group} (APIGroup) and /api/v1, /apis/{group}/{version}
 * (APIResourceList), shaped as kube-apiserver serializes them.
 */
import type { ResourceRegistry, ServedGroup } from '../registry/registry';
import type { ResourceType } from '../registry/types';

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  /** Only when the kind's group differs from the list's group version (e.g. deployments/scale). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export const groupVersionString = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/** GET /api. kube-apiserver omits apiVersion here. */
export function apiVersions(registry: ResourceRegistry, serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: registry.group('')?.versions ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function toAPIGroup(g: ServedGroup): APIGroup {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: groupVersionString(g.name, v), version: v })),
    preferredVersion: { groupVersion: groupVersionString(g.name, g.preferredVersion), version: g.preferredVersion },
  };
}

/** GET /apis: every served named group, in discovery order. */
export function apiGroupList(registry: ResourceRegistry): APIGroupList {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.name !== '')
      .map(toAPIGroup),
  };
}

/** GET /apis/{group}, or undefined when the group is not served. */
export function apiGroup(registry: ResourceRegistry, group: string): APIGroup | undefined {
  if (group === '') return undefined;
  const served = registry.group(group);
  return served ? { kind: 'APIGroup', apiVersion: 'v1', ...toAPIGroup(served) } : undefined;
}

/** The resource and its subresources as APIResource entries (pods, pods/attach, ...). */
export function apiResourcesFor(r: ResourceType): APIResource[] {
  const namespaced = r.scope === 'Namespaced';
  const main: APIResource = { name: r.resource, singularName: r.singular, namespaced, kind: r.kind, verbs: r.verbs };
  if (r.shortNames?.length) main.shortNames = r.shortNames;
  if (r.categories?.length) main.categories = r.categories;
  if (r.storageVersionHash) main.storageVersionHash = r.storageVersionHash;
  const subs = r.subresources.map((s): APIResource => {
    // group and version only for kinds outside this group version; keys in kube's serialization order.
    const foreign = s.kind.group !== r.group || s.kind.version !== r.version;
    return {
      name: `${r.resource}/${s.name}`,
      singularName: '',
      namespaced,
      ...(foreign ? { group: s.kind.group, version: s.kind.version } : {}),
      kind: s.kind.kind,
      verbs: s.verbs,
    };
  });
  return [main, ...subs];
}

/**
 * GET /api/v1 or /apis/{group}/{version}, or undefined when not served.
 * kube-apiserver sets apiVersion on named groups' lists but not on /api/v1's.
 */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): APIResourceList | undefined {
  if (!registry.isServed(group, version)) return undefined;
  const resources = registry.resourcesIn(group, version).flatMap(apiResourcesFor);
  const groupVersion = groupVersionString(group, version);
  return group === ''
    ? { kind: 'APIResourceList', groupVersion, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
