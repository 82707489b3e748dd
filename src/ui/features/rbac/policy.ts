/**
 * RBAC read off the policy objects, as `kubectl auth can-i --list` and
 * who-can tools do: which bindings name a subject (directly or through the
 * groups every user, authenticated user and service account belongs to),
 * and which rule of the bound role grants a verb on a resource. The server's
 * authorizer stays the authority; this explains its RBAC answers.
 */
import type { KubeObject } from '../../api';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  /** ServiceAccounts only. */
  namespace?: string;
}

type RoleObject = KubeObject & { rules?: PolicyRule[] };
type BindingObject = KubeObject & { roleRef: { kind: string; name: string }; subjects?: Subject[] };

export interface Policy {
  clusterRoles: RoleObject[];
  clusterRoleBindings: BindingObject[];
  /** Roles and RoleBindings of the namespace being looked at. */
  roles: RoleObject[];
  roleBindings: BindingObject[];
}

export interface Grant {
  binding: string;
  role: string;
  ruleIndex: number;
  rule: PolicyRule;
}

/** The user name and groups the authenticator gives this subject (a Group stands for any member). */
function identity(subject: Subject): { user?: string; groups: string[] } {
  switch (subject.kind) {
    case 'User':
      return { user: subject.name, groups: ['system:authenticated'] };
    case 'Group':
      return { groups: [subject.name] };
    case 'ServiceAccount':
      return {
        user: `system:serviceaccount:${subject.namespace ?? 'default'}:${subject.name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace ?? 'default'}`, 'system:authenticated'],
      };
  }
}

/** Whether a binding's subject entry names this subject (upstream's appliesToUser). */
export function bindingNames(entry: Subject, subject: Subject): boolean {
  const who = identity(subject);
  switch (entry.kind) {
    case 'User':
      return who.user !== undefined && entry.name === who.user;
    case 'Group':
      return who.groups.includes(entry.name);
    case 'ServiceAccount':
      return who.user !== undefined && who.user === `system:serviceaccount:${entry.namespace ?? ''}:${entry.name}`;
  }
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((v) => v === '*' || v === value);
}

/** Whether a rule allows the verb on the whole resource (rules limited to resourceNames allow only those names). */
export function ruleAllows(rule: PolicyRule, verb: string, group: string, resource: string): boolean {
  return has(rule.verbs, verb) && has(rule.apiGroups, group) && has(rule.resources, resource) && (rule.resourceNames ?? []).length === 0;
}

function name(object: KubeObject): string {
  return object.metadata?.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : (object.metadata?.name ?? '');
}

/** Every rule that grants the subject this verb on the resource in the namespace, with the binding and role that bring it. */
export function grantsFor(policy: Policy, subject: Subject, verb: string, group: string, resource: string): Grant[] {
  const grants: Grant[] = [];
  const consider = (binding: BindingObject, bindingKind: string, roles: RoleObject[]) => {
    if (!(binding.subjects ?? []).some((entry) => bindingNames(entry, subject))) return;
    const role = roles.find((r) => r.metadata?.name === binding.roleRef.name);
    if (!role) return;
    (role.rules ?? []).forEach((rule, ruleIndex) => {
      if (ruleAllows(rule, verb, group, resource)) grants.push({ binding: `${bindingKind} ${name(binding)}`, role: `${binding.roleRef.kind} ${name(role)}`, ruleIndex, rule });
    });
  };
  for (const b of policy.clusterRoleBindings) consider(b, 'ClusterRoleBinding', policy.clusterRoles);
  for (const b of policy.roleBindings) consider(b, 'RoleBinding', b.roleRef.kind === 'ClusterRole' ? policy.clusterRoles : policy.roles);
  return grants;
}

/** Every subject named by a binding in scope that some rule lets do this. */
export function whoCan(policy: Policy, verb: string, group: string, resource: string): { subject: Subject; grant: Grant }[] {
  const seen = new Map<string, { subject: Subject; grant: Grant }>();
  for (const binding of [...policy.clusterRoleBindings, ...policy.roleBindings]) {
    for (const subject of binding.subjects ?? []) {
      const key = `${subject.kind}/${subject.namespace ?? ''}/${subject.name}`;
      if (seen.has(key)) continue;
      const grant = grantsFor(policy, subject, verb, group, resource)[0];
      if (grant) seen.set(key, { subject, grant });
    }
  }
  return [...seen.values()].sort((a, b) => a.subject.kind.localeCompare(b.subject.kind) || a.subject.name.localeCompare(b.subject.name));
}

/** `get, list on configmaps in apiGroups ""` : a rule as one line. */
export function describeRule(rule: PolicyRule): string {
  const groups = (rule.apiGroups ?? []).map((g) => (g === '' ? '""' : g)).join(', ');
  return `verbs [${rule.verbs.join(', ')}] on resources [${(rule.resources ?? []).join(', ')}] in apiGroups [${groups}]`;
}

export function describeSubject(subject: Subject): string {
  return subject.kind === 'ServiceAccount' ? `ServiceAccount ${subject.namespace ?? 'default'}/${subject.name}` : `${subject.kind} ${subject.name}`;
}
