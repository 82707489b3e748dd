/** Storage keys, as kube-apiserver lays them out under /registry. */

/** Resources that share storage with another group's resource (one object, two API groups). */
const sharedStorage: Record<string, string> = {
  'events.k8s.io/events': '/events',
};

export function resourcePrefix(group: string, resource: string): string {
  const id = sharedStorage[`${group}/${resource}`] ?? `${group}/${resource}`;
  const [g, r] = id.split('/') as [string, string];
  return g ? `/registry/${g}/${r}/` : `/registry/${r}/`;
}

export function objectKey(prefix: string, namespace: string, name: string): string {
  return namespace ? `${prefix}${namespace}/${name}` : `${prefix}${name}`;
}

export function namespacePrefix(prefix: string, namespace: string): string {
  return namespace ? `${prefix}${namespace}/` : prefix;
}
