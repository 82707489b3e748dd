/**
 * RBAC bindings. Roles and ClusterRoles have no printer upstream and get the
 * default Name / Created At table.
 */

import { ageColumn, column, doc, nameColumn, wide } from './columns';
import { timestampSince } from './duration';
import { arr, field, str } from './format';
import type { KubeObject, Printer } from './types';

/** rbac.SubjectsStrings: users, groups and namespace/name service accounts, each joined with ", ". */
function subjectsStrings(subjects: unknown): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const subject of arr(subjects)) {
    const subjectName = str(field(subject, 'name'));
    switch (field(subject, 'kind')) {
      case 'ServiceAccount':
        serviceAccounts.push(`${str(field(subject, 'namespace'))}/${subjectName}`);
        break;
      case 'User':
        users.push(subjectName);
        break;
      case 'Group':
        groups.push(subjectName);
        break;
    }
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

function bindingPrinter(kindWord: string): Printer {
  return {
    columns: [
      nameColumn(),
      column('Role', 'string', doc(`rbac.v1.${kindWord === 'roleBinding' ? 'RoleBinding' : 'ClusterRoleBinding'}.roleRef`)),
      ageColumn(),
      wide('Users', 'string', `Users in the ${kindWord}`),
      wide('Groups', 'string', `Groups in the ${kindWord}`),
      wide('ServiceAccounts', 'string', `ServiceAccounts in the ${kindWord}`),
    ],
    row(obj: KubeObject, { now }) {
      const roleRef = `${str(field(obj, 'roleRef', 'kind'))}/${str(field(obj, 'roleRef', 'name'))}`;
      return {
        cells: [
          str(obj.metadata?.name),
          roleRef,
          timestampSince(obj.metadata?.creationTimestamp, now),
          ...subjectsStrings(obj.subjects),
        ],
      };
    },
  };
}

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');
