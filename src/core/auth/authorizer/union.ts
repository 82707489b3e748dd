/**
 * The union authorizer (k8s.io/apiserver/pkg/authorization/union): asks each
 * authorizer in order; the first Allow or Deny decides. When all have no
 * opinion the reasons are joined by newlines and the errors aggregated, as
 * upstream, so a 403 message or a review's reason carries every mode's word.
 */
import type { UserInfo } from '../user';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from './types';

function isRuleResolver(a: Authorizer): a is Authorizer & RuleResolver {
  return typeof (a as Partial<RuleResolver>).rulesFor === 'function';
}

/** Reasons and errors of the authorizers asked so far; made when the first one has any (most requests are decided without). */
interface Collected {
  reasons: string[];
  errors: string[];
}

/** The union's answer when `a` decided (Allow or Deny); otherwise its reason and error are kept for the final NoOpinion. */
function decided(a: Authorizer, r: AuthorizationResult, collected: Collected | undefined): AuthorizationResult | Collected | undefined {
  if (r.error || r.reason) {
    collected ??= { reasons: [], errors: [] };
    if (r.error) collected.errors.push(r.error);
    if (r.reason) collected.reasons.push(r.reason);
  }
  if (r.decision === 'NoOpinion') return collected;
  // Built field by field: spreading results of every authorizer's shape is a slow copy on a path every request takes.
  const out: AuthorizationResult = { decision: r.decision, reason: r.reason, explanation: r.explanation ? { authorizer: a.name, ...r.explanation } : { authorizer: a.name } };
  if (r.error !== undefined) out.error = r.error;
  return out;
}

function aggregate(errors: string[]): string | undefined {
  if (!errors.length) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer & RuleResolver {
  /** The union's answer to a frozen decision (AlwaysAllow's, the same object every time), made once per authorizer. */
  const reused = authorizers.map(() => new WeakMap<AuthorizationResult, AuthorizationResult>());
  const answer = (i: number, r: AuthorizationResult, collected: Collected | undefined): AuthorizationResult | Collected | undefined => {
    if (r.decision === 'NoOpinion' || !Object.isFrozen(r)) return decided(authorizers[i]!, r, collected);
    let out = reused[i]!.get(r);
    if (!out) reused[i]!.set(r, (out = Object.freeze(decided(authorizers[i]!, r, undefined) as AuthorizationResult)));
    return out;
  };
  const noOpinion = (collected: Collected | undefined): AuthorizationResult => ({ decision: 'NoOpinion', reason: collected?.reasons.join('\n') ?? '', error: aggregate(collected?.errors ?? []), explanation: { authorizer: 'none', consulted: authorizers.map((a) => a.name) } });
  /** Asks from authorizers[from] on. Answers given at once are taken at once: only a pending one is awaited, so in-memory modes decide in the caller's turn. */
  const decide = (attrs: Attributes, from: number, collected: Collected | undefined): AuthorizationResult | Promise<AuthorizationResult> => {
    for (let i = from; i < authorizers.length; i++) {
      const out = authorizers[i]!.authorize(attrs);
      if (out instanceof Promise) {
        return out.then((r) => {
          const next = answer(i, r, collected);
          return next && 'decision' in next ? next : decide(attrs, i + 1, next);
        });
      }
      const next = answer(i, out, collected);
      if (next && 'decision' in next) return next;
      collected = next;
    }
    return noOpinion(collected);
  };
  return {
    name: authorizers.map((a) => a.name).join(','),
    authorize: (attrs: Attributes) => decide(attrs, 0, undefined),
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const a of authorizers) {
        // Only rule resolvers take part (upstream keeps the privileged-group authorizer out).
        if (!isRuleResolver(a)) continue;
        const r = await a.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        if (r.incomplete) out.incomplete = true;
        if (r.error) errors.push(r.error);
      }
      const error = aggregate(errors);
      if (error) out.error = error;
      return out;
    },
  };
}
