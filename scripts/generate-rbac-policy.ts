/**
 * Generates the bundled bootstrap RBAC policy (src/core/auth/rbac/generated/)
 * from upstream's bootstrappolicy testdata in ../shared/data/rbac: the default
 * ClusterRoles (user-facing, component and controller roles), their
 * ClusterRoleBindings, and the Roles and RoleBindings of kube-system and
 * kube-public, each as the server stores it (apiVersion and kind dropped,
 * `rules: null` left out).
 *
 * Run: npx tsx scripts/generate-rbac-policy.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.env.RBAC_DATA ?? join(here, '../../shared/data/rbac');
const out = join(here, '../src/core/auth/rbac/generated/bootstrapPolicy.json');

type Item = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

function items(file: string): Item[] {
  const doc = parse(readFileSync(join(source, file), 'utf8')) as { items: Item[] };
  return doc.items.map((item) => {
    const { apiVersion: _a, kind: _k, ...rest } = item;
    if (rest['rules'] === null) delete rest['rules'];
    return { ...rest, kind: item.kind } as Item;
  });
}

const all = [
  ...items('cluster-roles.yaml'),
  ...items('controller-roles.yaml'),
  ...items('cluster-role-bindings.yaml'),
  ...items('controller-role-bindings.yaml'),
  ...items('namespace-roles.yaml'),
  ...items('namespace-role-bindings.yaml'),
];
const byKind = (kind: string) => all.filter((i) => i.kind === kind).map(({ kind: _k, ...rest }) => rest);
const policy = {
  source: 'kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata (see ../shared/data/rbac/PROVENANCE.md)',
  clusterRoles: byKind('ClusterRole'),
  clusterRoleBindings: byKind('ClusterRoleBinding'),
  roles: byKind('Role'),
  roleBindings: byKind('RoleBinding'),
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(policy, null, 1)}\n`);
console.log(`${out}: ${policy.clusterRoles.length} ClusterRoles, ${policy.clusterRoleBindings.length} ClusterRoleBindings, ${policy.roles.length} Roles, ${policy.roleBindings.length} RoleBindings`);
