/**
 * kube-apiserver's etcd key layout. The registry keys objects as
 * `/registry/<group>/<resource>/<namespace>/<name>` (src/core/registry/generic/keys.ts);
 * kube-apiserver writes built-in kinds without their group and keeps a few
 * historical names, so `etcdctl get --prefix /registry/` looks the same as on
 * a real cluster:
 *
 *   /registry/apps/deployments/ns/n  ->  <prefix>/deployments/ns/n
 *   /registry/nodes/n                ->  <prefix>/minions/n
 *   /registry/services/ns/n          ->  <prefix>/services/specs/ns/n
 *   /registry/endpoints/ns/n         ->  <prefix>/services/endpoints/ns/n
 *   /registry/replicationcontrollers ->  <prefix>/controllers
 *   /registry/networking.k8s.io/ingresses -> <prefix>/ingress
 *
 * Custom resources, CRDs and APIServices keep their group, as in kube.
 * Every mapping replaces one resource prefix by another, so key order inside
 * a resource is kept; ranges and watches that span several resources (a
 * prefix shorter than one resource) are served from the whole keyspace and
 * filtered, see `EtcdKeyLayout.spanning`.
 */
import { builtinRegistry } from '../../src/core/registry';

/** Storage keys all begin with this; it becomes --etcd-prefix in etcd. */
export const registryRoot = '/registry';

/** Resources whose kube etcd path is not their plain resource name (rest after the root). */
const historicalPaths: ReadonlyArray<readonly [string, string]> = [
  ['/nodes/', '/minions/'],
  ['/services/', '/services/specs/'],
  ['/endpoints/', '/services/endpoints/'],
  ['/replicationcontrollers/', '/controllers/'],
  ['/networking.k8s.io/ingresses/', '/ingress/'],
];

/** Built-in groups kube-apiserver keeps in the path (their registries set the group as resource prefix). */
const groupsKeptInPath = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** Storage resource prefix -> etcd resource prefix, both relative to the roots. */
function builtinRenames(): Array<readonly [string, string]> {
  const renames = new Map<string, string>(historicalPaths);
  const registry = builtinRegistry();
  const resources = registry.allResources();
  // Core resources keep their paths; a grouped resource of the same name (events.k8s.io events) shares it already.
  const taken = new Set([...resources.filter((r) => !r.group).map((r) => `/${r.resource}/`), ...renames.values()]);
  for (const r of resources) {
    if (!r.group || groupsKeptInPath.has(r.group) || !registry.isBuiltinGroup(r.group)) continue;
    const from = `/${r.group}/${r.resource}/`;
    const to = `/${r.resource}/`;
    if (renames.has(from) || taken.has(to)) continue;
    renames.set(from, to);
    taken.add(to);
  }
  return [...renames];
}

let defaultRenames: Array<readonly [string, string]> | undefined;

export class EtcdKeyLayout {
  private readonly toEtcd: Array<readonly [string, string]>;
  /** Reverse map, longest etcd prefix first (`/services/specs/` before `/services/`). */
  private readonly fromEtcd: Array<readonly [string, string]>;

  /**
   * @param prefix  --etcd-prefix, which replaces `root` in etcd keys.
   * @param root    what every storage key begins with ('/registry' for the
   *                registry; '' to keep keys verbatim under the prefix).
   * @param kubeLayout  apply kube-apiserver's path exceptions (off in tests
   *                that use arbitrary keys).
   */
  constructor(
    readonly prefix: string,
    readonly root = registryRoot,
    kubeLayout = true,
  ) {
    const renames = kubeLayout ? (defaultRenames ??= builtinRenames()) : [];
    this.toEtcd = renames;
    this.fromEtcd = renames.map(([s, e]) => [e, s] as const).sort((a, b) => b[0].length - a[0].length);
  }

  /** The etcd key of a storage key (which must begin with root). */
  key(storageKey: string): string {
    return this.prefix + rename(this.rest(storageKey), this.toEtcd);
  }

  /** The storage key of an etcd key under the prefix. */
  storageKey(etcdKey: string): string {
    return this.root + rename(etcdKey.slice(this.prefix.length), this.fromEtcd);
  }

  /**
   * Whether a range or watch on this storage prefix can span resources laid
   * out differently in etcd, so it must read the whole keyspace and filter.
   */
  spanning(storagePrefix: string): boolean {
    if (!storagePrefix.startsWith(this.root)) return true;
    const rest = storagePrefix.slice(this.root.length);
    const overlaps = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);
    // A prefix inside one renamed resource maps exactly; one shorter than it does not.
    if (this.toEtcd.some(([s]) => rest.startsWith(s))) return false;
    if (this.toEtcd.some(([s]) => s.startsWith(rest))) return true;
    // An unrenamed prefix must not reach into an etcd path that belongs to a renamed resource.
    return this.fromEtcd.some(([e]) => overlaps(e, rest));
  }

  /** The etcd prefix of a storage prefix that is not spanning (see above). */
  keyPrefix(storagePrefix: string): string {
    return this.key(storagePrefix);
  }

  private rest(storageKey: string): string {
    if (!storageKey.startsWith(this.root)) throw new Error(`storage key ${JSON.stringify(storageKey)} is outside ${this.root}`);
    return storageKey.slice(this.root.length);
  }
}

function rename(rest: string, table: ReadonlyArray<readonly [string, string]>): string {
  for (const [from, to] of table) if (rest.startsWith(from)) return to + rest.slice(from.length);
  return rest;
}
