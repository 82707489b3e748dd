import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const group = 'rbac.authorization.k8s.io';

const binding = (kind: string, subjects: unknown[]): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name: 'readers', namespace: kind === 'RoleBinding' ? 'dev' : undefined, creationTimestamp: '2025-06-01T09:00:00Z' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  subjects,
});

const subjects = [
  { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
  { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' },
  { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
  { kind: 'ServiceAccount', namespace: 'ci', name: 'builder' },
  { kind: 'ServiceAccount', namespace: 'dev', name: 'default' },
];

describe('RBAC printers', () => {
  it.each([
    ['rolebindings', 'roleBinding'],
    ['clusterrolebindings', 'clusterRoleBinding'],
  ])('%s: Name, Role, Age; wide Users, Groups, ServiceAccounts', (resource, word) => {
    expect(tableColumnsFor(group, resource).map((c) => [c.name, c.priority, c.description.startsWith('RoleRef') ? 'roleRef' : c.description])).toEqual([
      ['Name', 0, expect.any(String)],
      ['Role', 0, 'roleRef'],
      ['Age', 0, expect.any(String)],
      ['Users', 1, `Users in the ${word}`],
      ['Groups', 1, `Groups in the ${word}`],
      ['ServiceAccounts', 1, `ServiceAccounts in the ${word}`],
    ]);
  });

  it.each([
    ['rolebindings', 'RoleBinding'],
    ['clusterrolebindings', 'ClusterRoleBinding'],
  ])('%s cells list subjects by kind', (resource, kind) => {
    const table = toTable([binding(kind, subjects)], { group, version: 'v1', resource, kind, now });
    expect(table.rows[0].cells).toEqual(['readers', 'ClusterRole/view', '3h', 'alice, bob', 'devs', 'ci/builder, dev/default']);
  });

  it('a binding without subjects prints empty subject columns', () => {
    const table = toTable([binding('RoleBinding', [])], { group, version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', now });
    expect(table.rows[0].cells).toEqual(['readers', 'ClusterRole/view', '3h', '', '', '']);
  });

  it('roles and cluster roles use the default Name / Created At table', () => {
    const role: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader', creationTimestamp: '2025-06-01T09:00:00Z' }, rules: [] };
    const table = toTable([role], { group, version: 'v1', resource: 'roles', kind: 'Role', now });
    expect(table.columnDefinitions.map((c) => [c.name, c.type])).toEqual([['Name', 'string'], ['Created At', 'date']]);
    expect(table.rows[0].cells).toEqual(['pod-reader', '2025-06-01T09:00:00Z']);
  });
});
