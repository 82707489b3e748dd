/**
 * The `authorizer` variable of admission policies over the server's real
 * authorizer chain. CEL evaluates synchronously and the chain answers
 * asynchronously, so a policy is evaluated in rounds: a check not yet known
 * answers a provisional no-opinion and is recorded; the recorded checks are
 * then asked of the chain and the evaluation runs again, until a round asks
 * nothing new. The last round's results are the policy's results.
 */
import type { AuthorizationAttributes, AuthorizationDecision, CelAuthorizer } from '../cel/library/k8s/authz';
import type { Authorizer } from '../auth/authorizer/types';

/** An expression holds at most two checks (350000 cost units each) and a policy a bounded number of expressions. */
export const MAX_ROUNDS = 8;

const keyOf = (a: AuthorizationAttributes): string =>
  JSON.stringify([a.user.username, a.user.uid ?? '', a.user.groups, a.user.extra ?? {}, a.verb, a.resourceRequest, a.apiGroup ?? '', a.resource ?? '',
    a.subresource ?? '', a.namespace ?? '', a.name ?? '', a.path ?? '', a.fieldSelector ?? '', a.labelSelector ?? '']);

export class PrefetchingAuthorizer implements CelAuthorizer {
  private readonly known = new Map<string, AuthorizationDecision>();
  private readonly missing = new Map<string, AuthorizationAttributes>();

  constructor(private readonly chain: Authorizer) {}

  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const key = keyOf(attrs);
    const known = this.known.get(key);
    if (known) return known;
    this.missing.set(key, attrs);
    return { decision: 'noOpinion', reason: '' };
  }

  /** Whether the last evaluation asked checks that are not answered yet. */
  get pending(): boolean {
    return this.missing.size > 0;
  }

  /** Asks the chain every recorded check. */
  async resolve(): Promise<void> {
    for (const [key, a] of this.missing) {
      try {
        const r = await this.chain.authorize({
          user: { username: a.user.username, uid: a.user.uid, groups: a.user.groups, extra: a.user.extra },
          verb: a.verb,
          isResourceRequest: a.resourceRequest,
          path: a.path ?? '',
          namespace: a.namespace ?? '',
          apiGroup: a.apiGroup ?? '',
          apiVersion: '*',
          resource: a.resource ?? '',
          subresource: a.subresource ?? '',
          name: a.name ?? '',
          fieldSelector: a.fieldSelector,
          labelSelector: a.labelSelector,
        });
        const decision = r.decision === 'Allow' ? 'allow' : r.decision === 'Deny' ? 'deny' : 'noOpinion';
        this.known.set(key, { decision, reason: r.reason, ...(r.error ? { error: r.error } : {}) });
      } catch (e) {
        this.known.set(key, { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) });
      }
    }
    this.missing.clear();
  }
}
