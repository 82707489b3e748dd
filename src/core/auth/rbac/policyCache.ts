/**
 * The informer-like view of RBAC objects the authorizer reads (upstream: the
 * Role/ClusterRole/binding listers). It loads the four collections once, then
 * follows the storage watch; `synced()` waits until it has seen every write
 * committed before the call, so a binding created by one request applies to
 * the very next one.
 */
import type { Storage, StorageEvent, Unsubscribe } from '../../storage/interface';
import type { UserInfo } from '../user';
import { rbacGroup, type ClusterRole, type Role, type RoleBinding } from './types';

const prefixes = {
  clusterroles: `/registry/${rbacGroup}/clusterroles/`,
  roles: `/registry/${rbacGroup}/roles/`,
  clusterrolebindings: `/registry/${rbacGroup}/clusterrolebindings/`,
  rolebindings: `/registry/${rbacGroup}/rolebindings/`,
} as const;
type Kind = keyof typeof prefixes;

const maxSyncWaitMs = 1000;

export class PolicyCache {
  readonly clusterRoles = new Map<string, ClusterRole>();
  /** namespace -> name -> Role */
  readonly roles = new Map<string, Map<string, Role>>();
  readonly clusterRoleBindings = new Map<string, RoleBinding>();
  readonly roleBindings = new Map<string, Map<string, RoleBinding>>();
  /** Bumped on every change, so derived views (sorted lists) can be cached. */
  generation = 0;
  private seen = 0;
  private waiters: { revision: number; resolve: () => void }[] = [];
  private unsubscribe: Unsubscribe | undefined;
  private sortedCrbs: { generation: number; list: RoleBinding[] } = { generation: -1, list: [] };
  private sortedRbs = new Map<string, { generation: number; list: RoleBinding[] }>();
  private crbIndex: { generation: number; index: SubjectIndex } = { generation: -1, index: new Map() };
  private rbIndexes = new Map<string, { generation: number; index: SubjectIndex }>();

  private readonly loaded: Promise<void>;
  private stopped = false;

  /** Starts loading at once; every read waits for it through synced(). */
  constructor(private readonly storage: Storage) {
    this.loaded = this.load();
    // A failed load surfaces on the first synced(); keep it from being an unhandled rejection.
    this.loaded.catch(() => {});
  }

  private async load(): Promise<void> {
    const revision = await this.storage.currentRevision();
    for (const kind of Object.keys(prefixes) as Kind[]) {
      const listed = await this.storage.range(prefixes[kind], { revision });
      for (const kv of listed.kvs) this.apply(kind, kv.key, kv.value);
    }
    this.seen = revision;
    const unsubscribe = await this.storage.watch('', revision, (e) => this.onEvent(e));
    if (this.stopped) unsubscribe();
    else this.unsubscribe = unsubscribe;
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  /** Resolves once every write committed before this call is reflected. */
  async synced(): Promise<void> {
    await this.loaded;
    if (this.stopped) return;
    const revision = await this.storage.currentRevision();
    if (this.seen >= revision) return;
    // A revision the watch never reports (a backend that skips one) must not stall every request: wait at most a second.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.waiters.push({ revision, resolve });
      timer = setTimeout(resolve, maxSyncWaitMs);
    });
    clearTimeout(timer);
  }

  private onEvent(e: StorageEvent): void {
    for (const kind of Object.keys(prefixes) as Kind[]) {
      if (e.kv.key.startsWith(prefixes[kind])) {
        this.apply(kind, e.kv.key, e.type === 'DELETE' ? undefined : e.kv.value);
        break;
      }
    }
    this.seen = Math.max(this.seen, e.revision);
    if (this.waiters.length) {
      const ready = this.waiters.filter((w) => w.revision <= this.seen);
      this.waiters = this.waiters.filter((w) => w.revision > this.seen);
      for (const w of ready) w.resolve();
    }
  }

  private apply(kind: Kind, key: string, value: string | undefined): void {
    const rest = key.slice(prefixes[kind].length);
    const slash = rest.indexOf('/');
    const [namespace, name] = slash < 0 ? ['', rest] : [rest.slice(0, slash), rest.slice(slash + 1)];
    const obj = value === undefined ? undefined : JSON.parse(value);
    this.generation++;
    switch (kind) {
      case 'clusterroles': setOrDelete(this.clusterRoles, name, obj); break;
      case 'clusterrolebindings': setOrDelete(this.clusterRoleBindings, name, obj); break;
      case 'roles': setOrDelete(nested(this.roles, namespace), name, obj); break;
      case 'rolebindings': setOrDelete(nested(this.roleBindings, namespace), name, obj); break;
    }
  }

  /** ClusterRoleBindings by name. */
  listClusterRoleBindings(): RoleBinding[] {
    if (this.sortedCrbs.generation !== this.generation) {
      this.sortedCrbs = { generation: this.generation, list: sortedValues(this.clusterRoleBindings) };
    }
    return this.sortedCrbs.list;
  }

  listRoleBindings(namespace: string): RoleBinding[] {
    let entry = this.sortedRbs.get(namespace);
    if (!entry || entry.generation !== this.generation) {
      const m = this.roleBindings.get(namespace);
      entry = { generation: this.generation, list: m ? sortedValues(m) : [] };
      this.sortedRbs.set(namespace, entry);
    }
    return entry.list;
  }

  /** The ClusterRoleBindings naming the user, one of its groups or its service account, by name. */
  clusterRoleBindingsFor(user: UserInfo): RoleBinding[] {
    if (this.crbIndex.generation !== this.generation) {
      this.crbIndex = { generation: this.generation, index: buildIndex(this.listClusterRoleBindings(), '') };
    }
    return lookup(this.crbIndex.index, user);
  }

  /** The namespace's RoleBindings naming the user, one of its groups or its service account, by name. */
  roleBindingsFor(namespace: string, user: UserInfo): RoleBinding[] {
    let entry = this.rbIndexes.get(namespace);
    if (!entry || entry.generation !== this.generation) {
      entry = { generation: this.generation, index: buildIndex(this.listRoleBindings(namespace), namespace) };
      this.rbIndexes.set(namespace, entry);
    }
    return lookup(entry.index, user);
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(namespace)?.get(name);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }
}

function nested<T>(m: Map<string, Map<string, T>>, namespace: string): Map<string, T> {
  let inner = m.get(namespace);
  if (!inner) m.set(namespace, (inner = new Map()));
  return inner;
}

function setOrDelete<T>(m: Map<string, T>, name: string, obj: T | undefined): void {
  if (obj === undefined) m.delete(name);
  else m.set(name, obj);
}

function sortedValues<T>(m: Map<string, T>): T[] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** Subject key -> bindings naming it, in name order. */
type SubjectIndex = Map<string, RoleBinding[]>;

const userKey = (name: string) => `User\u0000${name}`;
const groupKey = (name: string) => `Group\u0000${name}`;

function buildIndex(bindings: readonly RoleBinding[], namespace: string): SubjectIndex {
  const index: SubjectIndex = new Map();
  for (const b of bindings) {
    const keys = new Set<string>();
    for (const s of b.subjects ?? []) {
      if (s.kind === 'User') keys.add(userKey(s.name));
      else if (s.kind === 'Group') keys.add(groupKey(s.name));
      else if (s.kind === 'ServiceAccount') {
        // A ServiceAccount subject without a namespace means the binding's.
        const ns = s.namespace || namespace;
        if (ns) keys.add(userKey(`system:serviceaccount:${ns}:${s.name}`));
      }
    }
    for (const k of keys) {
      let list = index.get(k);
      if (!list) index.set(k, (list = []));
      list.push(b);
    }
  }
  return index;
}

function lookup(index: SubjectIndex, user: UserInfo): RoleBinding[] {
  const direct = index.get(userKey(user.username));
  let out: RoleBinding[] | undefined = direct;
  let merged = false;
  for (const g of user.groups) {
    const more = index.get(groupKey(g));
    if (!more) continue;
    if (!out) {
      out = more;
      continue;
    }
    out = merged ? out.concat(more) : [...out, ...more];
    merged = true;
  }
  if (!out) return [];
  if (!merged) return out;
  // Several keys matched: keep each binding once, in name order.
  const unique = [...new Set(out)];
  return unique.sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
}
