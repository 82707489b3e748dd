/**
 * Resource kinds as a client knows them after discovery, and the REST paths
 * built from them (/api/v1/namespaces/{ns}/configmaps, /apis/apps/v1/deployments).
 */

export interface ResourceKind {
  /** '' for the core (legacy) group. */
  group: string;
  version: string;
  /** The plural resource name used in paths, e.g. 'configmaps'. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
}

export interface GroupVersion {
  group: string;
  version: string;
}

/** Splits an apiVersion: 'v1' is the core group, 'apps/v1' is group 'apps'. */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function apiVersionOf(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** A stable string identity for a resource, e.g. '/v1/configmaps' or 'apps/v1/deployments'. */
export function resourceKey(kind: Pick<ResourceKind, 'group' | 'version' | 'resource'>): string {
  return `${kind.group}/${kind.version}/${kind.resource}`;
}

function groupVersionPrefix(gv: GroupVersion): string {
  return gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

/**
 * The collection path. For a namespaced resource, `namespace` undefined means
 * across all namespaces; cluster-scoped resources ignore it.
 */
export function collectionPath(kind: ResourceKind, namespace?: string): string {
  const prefix = groupVersionPrefix(kind);
  if (kind.namespaced && namespace !== undefined) {
    return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${kind.resource}`;
  }
  return `${prefix}/${kind.resource}`;
}

export function objectPath(kind: ResourceKind, namespace: string | undefined, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

/** Used when discovery is unavailable: the kinds a first lesson needs. */
export const COMMON_KINDS: readonly ResourceKind[] = [
  core('namespaces', 'Namespace', false),
  core('configmaps', 'ConfigMap', true),
  core('secrets', 'Secret', true),
  core('serviceaccounts', 'ServiceAccount', true),
  core('pods', 'Pod', true),
  core('services', 'Service', true),
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: STANDARD_VERBS() },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true, verbs: STANDARD_VERBS() },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, verbs: STANDARD_VERBS() },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, verbs: STANDARD_VERBS() },
];

function STANDARD_VERBS(): string[] {
  return ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
}

function core(resource: string, kind: string, namespaced: boolean): ResourceKind {
  return { group: '', version: 'v1', resource, kind, namespaced, verbs: STANDARD_VERBS() };
}
