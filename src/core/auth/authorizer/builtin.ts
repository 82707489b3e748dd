/**
 * The authorizers that need no configuration (k8s.io/apiserver/pkg/authorization/authorizerfactory):
 * AlwaysAllow, AlwaysDeny and the privileged-group authorizer that lets
 * `system:masters` through whatever the configured modes say.
 */
import { systemMasters, type UserInfo } from '../user';
import type { Authorizer, RuleResolver, RulesResult } from './types';

export const alwaysAllowAuthorizer: Authorizer & RuleResolver = {
  name: 'AlwaysAllow',
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: (): RulesResult => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** AlwaysDeny answers NoOpinion with a reason, so a later mode may still allow (as upstream). */
export const alwaysDenyAuthorizer: Authorizer & RuleResolver = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
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
      : { decision: 'NoOpinion', reason: '' }),
  };
}
