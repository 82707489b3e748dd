/**
 * kube-apiserver's apiVersionPriorities: the groupPriorityMinimum and
 * versionPriority of the APIService autoregistered for each built-in group
 * version. A served group version missing here gets no APIService, as
 * upstream's makeAPIService skips it (apiregistration.k8s.io, which the
 * aggregator serves itself, is one). The group priorities equal the bundle's
 * (registry.json), which orders discovery by them.
 */

export interface APIServicePriority {
  group: number;
  version: number;
}

const table: Record<string, Record<string, APIServicePriority>> = {};
function add(group: number, groupName: string, versions: Record<string, number>): void {
  table[groupName] = Object.fromEntries(Object.entries(versions).map(([v, version]) => [v, { group, version }]));
}

add(18000, '', { v1: 1 });
add(17800, 'apps', { v1: 15 });
add(17750, 'events.k8s.io', { v1: 15, v1beta1: 5 });
add(17700, 'authentication.k8s.io', { v1: 15, v1beta1: 9, v1alpha1: 1 });
add(17600, 'authorization.k8s.io', { v1: 15 });
add(17500, 'autoscaling', { v2: 30, v1: 15, v2beta1: 9, v2beta2: 1 });
add(17400, 'batch', { v1: 15, v1beta1: 9, v2alpha1: 9 });
add(17300, 'certificates.k8s.io', { v1: 15, v1beta1: 9, v1alpha1: 1 });
add(17200, 'networking.k8s.io', { v1: 15, v1beta1: 9 });
add(17100, 'policy', { v1: 15, v1beta1: 9 });
add(17000, 'rbac.authorization.k8s.io', { v1: 15 });
add(16800, 'storage.k8s.io', { v1: 15, v1beta1: 9, v1alpha1: 1 });
add(16700, 'apiextensions.k8s.io', { v1: 15 });
add(16700, 'admissionregistration.k8s.io', { v1: 15, v1beta1: 12, v1alpha1: 9 });
add(16600, 'scheduling.k8s.io', { v1: 15, v1alpha2: 9 });
add(16500, 'coordination.k8s.io', { v1: 15, v1beta1: 13, v1alpha2: 12 });
add(16300, 'node.k8s.io', { v1: 15, v1beta1: 9, v1alpha1: 1 });
add(16200, 'discovery.k8s.io', { v1: 15, v1beta1: 12 });
add(16200, 'resource.k8s.io', { v1: 21, v1beta2: 15, v1beta1: 9, v1alpha3: 1 });
add(16100, 'flowcontrol.apiserver.k8s.io', { v1: 21, v1beta3: 18, v1beta2: 15, v1beta1: 12, v1alpha1: 9 });
add(16000, 'internal.apiserver.k8s.io', { v1alpha1: 9 });
add(15800, 'storagemigration.k8s.io', { v1beta1: 9 });

/** The priorities of a built-in group version's APIService, or undefined when kube-apiserver registers none. */
export function apiServicePriority(group: string, version: string): APIServicePriority | undefined {
  return table[group]?.[version];
}

/** The name of a group version's APIService: `<version>.<group>`, `v1.` for the core group. */
export const apiServiceName = (group: string, version: string): string => `${version}.${group}`;
