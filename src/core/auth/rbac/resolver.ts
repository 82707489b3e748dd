/**
 * The rule resolver (pkg/registry/rbac/validation DefaultRuleResolver): the
 * rules a user holds in a namespace, from every ClusterRoleBinding and the
 * namespace's RoleBindings whose subjects name the user, one of its groups
 * or its service account. A binding to a missing role is an error that the
 * caller reports but does not stop on.
 */
import type { UserInfo } from '../user';
import { describeSubject, subjectIndexFor } from './rules';
import type { PolicyCache } from './policyCache';
import type { PolicyRule, RoleBinding, RoleRef, Subject } from './types';

/** Where a rule came from: `ClusterRoleBinding "x" of ClusterRole "y" to User "u"`. */
export interface RuleSource {
  binding: RoleBinding;
  subject: Subject;
  clusterScoped: boolean;
}

export function describeSource(s: RuleSource): string {
  const b = s.binding;
  if (s.clusterScoped) {
    return `ClusterRoleBinding ${JSON.stringify(b.metadata.name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(s.subject, '')}`;
  }
  const ns = b.metadata.namespace ?? '';
  return `RoleBinding ${JSON.stringify(`${b.metadata.name}/${ns}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(s.subject, ns)}`;
}

/** Return false to stop visiting. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export class RuleResolver {
  constructor(private readonly cache: PolicyCache) {}

  /** The rules a role reference grants; throws the lister's NotFound text when the role is missing. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] {
    switch (ref.kind) {
      case 'Role': {
        const role = this.cache.getRole(bindingNamespace, ref.name);
        if (!role) throw new Error(`role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
        return role.rules ?? [];
      }
      case 'ClusterRole': {
        const role = this.cache.getClusterRole(ref.name);
        if (!role) throw new Error(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
        return role.rules ?? [];
      }
      default:
        throw new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
    }
  }

  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    const visitBindings = (bindings: RoleBinding[], ns: string, clusterScoped: boolean): boolean => {
      for (const binding of bindings) {
        const i = subjectIndexFor(user, binding.subjects, ns);
        if (i < 0) continue;
        let rules: PolicyRule[];
        try {
          rules = this.roleReferenceRules(binding.roleRef, ns);
        } catch (e) {
          if (!visit(undefined, undefined, (e as Error).message)) return false;
          continue;
        }
        const source: RuleSource = { binding, subject: binding.subjects![i]!, clusterScoped };
        for (const rule of rules) if (!visit(source, rule, undefined)) return false;
      }
      return true;
    };
    // Only bindings naming the user, a group of it or its service account can apply (an index, not a scan).
    if (!visitBindings(this.cache.clusterRoleBindingsFor(user), '', true)) return;
    if (namespace) visitBindings(this.cache.roleBindingsFor(namespace, user), namespace, false);
  }

  /** Every rule the user holds in the namespace, and the errors met on the way. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}
