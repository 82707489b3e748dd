/**
 * The bootstrap policy, reconciled at every start (pkg/registry/rbac/rest
 * PostStartHook + pkg/registry/rbac/reconciliation): missing default roles
 * and bindings are created; existing ones get back missing rules, label,
 * annotation, aggregation selectors and subjects, unless annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"`. A binding whose
 * roleRef changed is deleted and recreated (roleRef is immutable).
 */
import type { KubeObject } from '../../api/types';
import { isAlreadyExists, isNotFound } from '../../errors';
import type { Store } from '../../registry/generic/store';
import { DeferredData, type DeferredRef } from '../../util/deferredData';
import { covers } from './covers';
import policy from './generated/bootstrapPolicy.json';
import type { ClusterRole, LabelSelector, RoleBinding, Subject } from './types';

export const autoupdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

export interface BootstrapStores {
  clusterRoles: Store;
  clusterRoleBindings: Store;
  roles: Store;
  roleBindings: Store;
}

export interface BootstrapPolicy {
  clusterRoles: ClusterRole[];
  clusterRoleBindings: RoleBinding[];
  roles: ClusterRole[];
  roleBindings: RoleBinding[];
}

/** Deferred data (util/deferredData.ts): the service worker fetches it only when RBAC or the Node authorizer is used. */
export const bootstrapPolicy = new DeferredData<BootstrapPolicy>('the RBAC bootstrap policy', policy as unknown as BootstrapPolicy | DeferredRef);

function mergeMaps(existing: Record<string, string> | undefined, expected: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected) return existing;
  return { ...expected, ...existing };
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');
}

/** The reconciled role, or undefined when nothing changes. */
export function reconcileRole(existing: ClusterRole, expected: ClusterRole): ClusterRole | undefined {
  const next = structuredClone(existing);
  next.metadata.labels = mergeMaps(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = mergeMaps(existing.metadata.annotations, expected.metadata.annotations);
  if (expected.aggregationRule) {
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const selectors: LabelSelector[] = [...have];
    for (const s of expected.aggregationRule.clusterRoleSelectors ?? []) {
      if (!have.some((h) => JSON.stringify(h) === JSON.stringify(s))) selectors.push(s);
    }
    next.aggregationRule = { clusterRoleSelectors: selectors };
  } else {
    const { missing } = covers(existing.rules ?? [], expected.rules ?? []);
    if (missing.length) next.rules = [...(existing.rules ?? []), ...missing];
  }
  return JSON.stringify(next) === JSON.stringify(existing) ? undefined : next;
}

export function reconcileBinding(existing: RoleBinding, expected: RoleBinding): RoleBinding | 'recreate' | undefined {
  if (JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef)) return 'recreate';
  const next = structuredClone(existing);
  next.metadata.labels = mergeMaps(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = mergeMaps(existing.metadata.annotations, expected.metadata.annotations);
  const subjects = [...(existing.subjects ?? [])];
  for (const s of expected.subjects ?? []) if (!subjects.some((h) => sameSubject(h, s))) subjects.push(s);
  next.subjects = subjects;
  return JSON.stringify(next) === JSON.stringify(existing) ? undefined : next;
}

const autoupdateOff = (obj: KubeObject) => obj.metadata.annotations?.[autoupdateAnnotation] === 'false';

async function ensure(store: Store, kind: string, expected: KubeObject, reconcile: (existing: KubeObject) => KubeObject | 'recreate' | undefined): Promise<void> {
  const namespace = expected.metadata.namespace ?? '';
  const name = expected.metadata.name!;
  const withKind = () => ({ ...structuredClone(expected), apiVersion: 'rbac.authorization.k8s.io/v1', kind }) as KubeObject;
  const kv = await store.getKv(namespace, name);
  if (!kv) {
    try {
      await store.create(namespace, withKind());
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    return;
  }
  const existing = store.decode(kv);
  if (autoupdateOff(existing)) return;
  const next = reconcile(existing);
  if (!next) return;
  if (next === 'recreate') {
    try {
      await store.delete(namespace, name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    await store.create(namespace, withKind());
    return;
  }
  await store.update(namespace, name, () => next);
}

export async function reconcileBootstrapPolicy(stores: BootstrapStores): Promise<void> {
  const policy = await bootstrapPolicy.load();
  for (const r of policy.clusterRoles) await ensure(stores.clusterRoles, 'ClusterRole', r, (e) => reconcileRole(e as ClusterRole, r));
  for (const b of policy.clusterRoleBindings) await ensure(stores.clusterRoleBindings, 'ClusterRoleBinding', b, (e) => reconcileBinding(e as RoleBinding, b));
  for (const r of policy.roles) await ensure(stores.roles, 'Role', r, (e) => reconcileRole(e as ClusterRole, r));
  for (const b of policy.roleBindings) await ensure(stores.roleBindings, 'RoleBinding', b, (e) => reconcileBinding(e as RoleBinding, b));
}
