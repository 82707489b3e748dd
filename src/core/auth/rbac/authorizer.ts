/**
 * The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): Allow when any rule
 * the user holds in the request's namespace matches, with the reason
 * `RBAC: allowed by <binding>`; otherwise no opinion, the reason listing
 * only resolution errors (a binding to a missing role), as upstream.
 */
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver as AuthzRuleResolver, RulesResult } from '../authorizer/types';
import type { UserInfo } from '../user';
import type { PolicyCache } from './policyCache';
import { RuleResolver, describeSource, type RuleSource } from './resolver';
import { describeRule, ruleAllows } from './rules';
import type { PolicyRule } from './types';

function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

export function rbacAuthorizer(cache: PolicyCache): Authorizer & AuthzRuleResolver & { resolver: RuleResolver } {
  const resolver = new RuleResolver(cache);
  return {
    name: 'RBAC',
    resolver,
    async authorize(attrs: Attributes): Promise<AuthorizationResult> {
      await cache.synced();
      let allowedBy: { source: RuleSource; rule: PolicyRule } | undefined;
      const errors: string[] = [];
      resolver.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
        if (rule && source && ruleAllows(attrs, rule)) {
          allowedBy = { source, rule };
          return false;
        }
        if (err) errors.push(err);
        return true;
      });
      if (allowedBy) {
        const b = allowedBy.source.binding;
        return {
          decision: 'Allow',
          reason: `RBAC: allowed by ${describeSource(allowedBy.source)}`,
          explanation: {
            binding: `${allowedBy.source.clusterScoped ? 'ClusterRoleBinding' : 'RoleBinding'} ${b.metadata.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata.name}`,
            role: `${b.roleRef.kind} ${b.roleRef.name}`,
            rule: describeRule(allowedBy.rule),
          },
        };
      }
      return { decision: 'NoOpinion', reason: errors.length ? `RBAC: ${aggregate(errors)}` : '', explanation: { rbac: 'no binding grants a matching rule' } };
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
      await cache.synced();
      const { rules, errors } = resolver.rulesFor(user, namespace);
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const r of rules) {
        if (r.resources?.length) {
          out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, resourceNames: r.resourceNames ?? [] });
        }
        if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
      }
      if (errors.length) out.error = aggregate(errors);
      return out;
    },
  };
}
