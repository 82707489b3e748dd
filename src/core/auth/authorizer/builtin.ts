/**
 * The authorizers that need no configuration (k8s.io/apiserver/pkg/authorization/authorizerfactory):
 * AlwaysAllow, AlwaysDeny and the privileged-group authorizer that lets
 * `system:masters` through whatever the configured modes say.
 */
import { systemMasters, type UserInfo } from '../user';
import type { AuthorizationResult, Authorizer, RuleResolver, RulesResult } from './types';

/** Decisions that never vary are one object each: no request may change them. */
const allowed: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });
const noOpinion: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });

export const alwaysAllowAuthorizer: Authorizer & RuleResolver = {
  name: 'AlwaysAllow',
  authorize: () => allowed,
  rulesFor: (): RulesResult => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/**
 * AlwaysDeny blocks everything, so modes after it are never asked (the spec's
 * order rule: AlwaysDeny,AlwaysAllow is 403). Upstream's returns NoOpinion
 * with this reason, which would let a later mode allow.
 */
export const alwaysDenyAuthorizer: Authorizer & RuleResolver = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
  rulesFor: (): RulesResult => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

function inGroups(user: UserInfo, groups: readonly string[]): boolean {
  return user.groups.some((g) => groups.includes(g));
}

/** Allows members of the given groups everything; no opinion otherwise. Not a rule resolver: rules reviews show their bindings. */
export function privilegedGroupsAuthorizer(groups: readonly string[] = [systemMasters]): Authorizer {
  return {
    name: 'privileged-groups',
    authorize: (attrs) => (inGroups(attrs.user, groups)
      ? { decision: 'Allow', reason: '', explanation: { authorizer: 'privileged-groups', groups: attrs.user.groups.filter((g) => groups.includes(g)) } }
      : noOpinion),
  };
}
