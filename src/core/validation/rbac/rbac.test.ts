/** Validation of rbac.authorization.k8s.io kinds as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'rbac.authorization.k8s.io';
const roleRef = { apiGroup: g, kind: 'Role', name: 'reader' };

describe('Role and ClusterRole', () => {
  it('rules need verbs, and resources with groups or (cluster-wide only) non-resource URLs', () => {
    expect(errorsOf(g, 'roles', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })).toEqual([]);
    expect(errorsOf(g, 'roles', { rules: [{}, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] })).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
      'rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    expect(errorsOf(g, 'clusterroles', { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }] })).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs',
    ]);
    expect(errorsOf(g, 'clusterroles', { aggregationRule: { clusterRoleSelectors: [] } })).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
  });
});

describe('RoleBinding and ClusterRoleBinding', () => {
  const cases: [string, string, Record<string, unknown>, string[]][] = [
    ['valid, User apiGroup defaulted', 'rolebindings', { roleRef, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'sa' }] }, []],
    ['AC-RBAC-024: roleRef kind Foo, no name, wrong group', 'rolebindings', { roleRef: { apiGroup: 'x', kind: 'Foo' } }, [
      'roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Foo": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]],
    ['AC-RBAC-020: subject kind Team', 'rolebindings', { roleRef, subjects: [{ kind: 'Team', name: 't' }] }, [
      'subjects[0].kind: Unsupported value: "Team": supported values: "ServiceAccount", "User", "Group"',
    ]],
    ['ServiceAccount with an apiGroup, cluster binding without namespace', 'clusterrolebindings', { roleRef: { ...roleRef, kind: 'ClusterRole' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', apiGroup: g }] }, [
      'subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
      'subjects[0].namespace: Required value',
    ]],
    ['a ClusterRoleBinding may not name a Role', 'clusterrolebindings', { roleRef }, ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']],
  ];
  it.each(cases)('%s', (_n, resource, obj, want) => expect(errorsOf(g, resource, obj)).toEqual(want));

  it('AC-RBAC-029: roleRef cannot change', () => {
    expect(errorsOf(g, 'rolebindings', { roleRef, subjects: [{ kind: 'User', name: 'bob' }] }, { roleRef })).toEqual([]);
    expect(errorsOf(g, 'rolebindings', { roleRef: { ...roleRef, name: 'admin' } }, { roleRef })).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"admin"}: cannot change roleRef',
    ]);
  });
});
