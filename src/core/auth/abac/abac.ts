/**
 * The ABAC authorizer (pkg/auth/authorizer/abac): a policy file of one JSON
 * Policy per line (abac.authorization.kubernetes.io/v1beta1, or the
 * unversioned v0 form); the first policy matching subject, verb and
 * resource or path allows. Read-only policies allow get, list and watch.
 */
import type { Authorizer, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver, RulesResult } from '../authorizer/types';
import { allAuthenticated, type UserInfo } from '../user';
import type { Attributes } from '../authorizer/types';

export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Parses a policy file; errors name the line as upstream's loader does. */
export function parsePolicyFile(text: string): PolicySpec[] {
  const out: PolicySpec[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      throw new Error(`error reading policy file: line ${i + 1}: ${(e as Error).message}`);
    }
    if (typeof raw !== 'object' || raw === null) throw new Error(`error reading policy file: line ${i + 1}: not an object`);
    const obj = raw as Record<string, unknown>;
    const apiVersion = str(obj['apiVersion']);
    if (apiVersion === 'abac.authorization.kubernetes.io/v1beta1') {
      if (obj['kind'] !== 'Policy') throw new Error(`error reading policy file: line ${i + 1}: kind must be Policy`);
      const s = (typeof obj['spec'] === 'object' && obj['spec'] !== null ? obj['spec'] : {}) as Record<string, unknown>;
      out.push({ user: str(s['user']), group: str(s['group']), readonly: s['readonly'] === true, apiGroup: str(s['apiGroup']), resource: str(s['resource']), namespace: str(s['namespace']), nonResourcePath: str(s['nonResourcePath']) });
    } else if (apiVersion === '' || apiVersion === 'abac.authorization.kubernetes.io/v0') {
      // v0: unset user and group mean every authenticated subject; unset scopes mean all.
      const user = str(obj['user']);
      let group = str(obj['group']);
      if (!user && !group) group = allAuthenticated;
      out.push({ user, group, readonly: obj['readonly'] === true, apiGroup: '*', resource: str(obj['resource']) || '*', namespace: str(obj['namespace']) || '*', nonResourcePath: '*' });
    } else {
      throw new Error(`error reading policy file: line ${i + 1}: unknown apiVersion ${JSON.stringify(apiVersion)}`);
    }
  }
  return out;
}

function subjectMatches(p: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === '*') matched = true;
    else if (p.user === user.username) matched = true;
    else return false;
  }
  if (p.group) {
    if (p.group === '*') matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

const readOnlyVerbs = new Set(['get', 'list', 'watch']);

function matches(p: PolicySpec, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (!readOnlyVerbs.has(a.verb) && p.readonly) return false;
  if (a.isResourceRequest) {
    return (p.namespace === '*' || p.namespace === a.namespace) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === a.apiGroup);
  }
  if (p.nonResourcePath === '*' || p.nonResourcePath === a.path) return true;
  return p.nonResourcePath.endsWith('*') && a.path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

export function abacAuthorizer(policies: readonly PolicySpec[]): Authorizer & RuleResolver {
  return {
    name: 'ABAC',
    authorize(attrs) {
      for (const p of policies) if (matches(p, attrs)) return { decision: 'Allow', reason: '', explanation: { policy: p } };
      return { decision: 'NoOpinion', reason: 'No policy matched.' };
    },
    rulesFor(user, namespace): RulesResult {
      const resourceRules: ResourceRuleInfo[] = [];
      const nonResourceRules: NonResourceRuleInfo[] = [];
      for (const p of policies) {
        if (!subjectMatches(p, user)) continue;
        const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
        if (p.namespace && (p.namespace === '*' || p.namespace === namespace) && p.resource) {
          resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
        }
        if (p.nonResourcePath) nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
      }
      return { resourceRules, nonResourceRules, incomplete: false };
    },
  };
}
