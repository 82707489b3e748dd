/**
 * Webhook token authentication (k8s.io/apiserver/plugin/pkg/authenticator/token/webhook):
 * a TokenReview (authentication.k8s.io/v1beta1 by default, or v1) is POSTed
 * to the remote service, which must answer with the same apiVersion and kind.
 * Decisions, positive and negative, are cached for the TTL (2 minutes by
 * default) under a hash of the token, never the token itself. status.error
 * only explains a failure; with authenticated true it is ignored.
 */
import type { Clock } from '../../util/clock';
import { intersectAudiences } from './audiences';
import type { AuthenticationOutcome, TokenAuthenticator } from './types';
import type { UserInfo } from '../user';
import { digestHex } from '../../util/hex';

export interface WebhookTokenOptions {
  /** `v1beta1` (default) or `v1`. */
  version?: 'v1' | 'v1beta1';
  /** --authentication-token-webhook-cache-ttl in ms (default 2 minutes). */
  cacheTtlMs?: number;
  /** POSTs the review and answers with the remote service's status code and parsed JSON body (the host knows TLS). */
  call(review: Record<string, unknown>): Promise<{ status: number; body: unknown }>;
}

export const defaultWebhookCacheTtlMs = 2 * 60_000;

async function cacheKey(token: string, audiences: readonly string[]): Promise<string> {
  const bytes = new TextEncoder().encode(`${JSON.stringify(audiences)}\u0000${token}`);
  return digestHex('SHA-256', bytes);
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function webhookTokenAuthenticator(options: WebhookTokenOptions, clock: Clock): TokenAuthenticator {
  const apiVersion = `authentication.k8s.io/${options.version ?? 'v1beta1'}`;
  const ttl = options.cacheTtlMs ?? defaultWebhookCacheTtlMs;
  const cache = new Map<string, { until: number; outcome: AuthenticationOutcome }>();
  const name = 'webhook';

  async function review(token: string, audiences: readonly string[]): Promise<AuthenticationOutcome> {
    const request = { apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token, audiences: [...audiences] }, status: { user: {} } };
    let res: { status: number; body: unknown };
    try {
      res = await options.call(request);
    } catch (e) {
      return { kind: 'rejected', authenticator: name, reason: `Post: ${e instanceof Error ? e.message : String(e)}` };
    }
    const body = res.body as Record<string, unknown> | undefined;
    if (res.status < 200 || res.status >= 300) return { kind: 'rejected', authenticator: name, reason: `webhook returned status ${res.status}` };
    if (!body || body['apiVersion'] !== apiVersion || body['kind'] !== 'TokenReview') {
      return { kind: 'rejected', authenticator: name, reason: `expected TokenReview of ${apiVersion}, got ${String(body?.['apiVersion'])} ${String(body?.['kind'])}` };
    }
    const status = (body['status'] ?? {}) as Record<string, unknown>;
    if (status['authenticated'] !== true) {
      return typeof status['error'] === 'string' && status['error'] ? { kind: 'rejected', authenticator: name, reason: status['error'] } : { kind: 'none' };
    }
    // Without status.audiences the service vouches for the audiences asked about.
    const returned = asStrings(status['audiences']);
    const valid = returned.length ? intersectAudiences(audiences, returned) : [...audiences];
    if (audiences.length && !valid.length) return { kind: 'none' };
    const u = (status['user'] ?? {}) as Record<string, unknown>;
    const user: UserInfo = { username: typeof u['username'] === 'string' ? u['username'] : '', groups: asStrings(u['groups']) };
    if (typeof u['uid'] === 'string' && u['uid']) user.uid = u['uid'];
    if (u['extra'] && typeof u['extra'] === 'object') {
      const extra = Object.fromEntries(Object.entries(u['extra'] as Record<string, unknown>).map(([k, v]) => [k, asStrings(v)]));
      if (Object.keys(extra).length) user.extra = extra;
    }
    return { kind: 'authenticated', authenticator: name, response: { user, audiences: valid.length ? valid : undefined } };
  }

  return {
    name,
    async authenticateToken(token, audiences) {
      const key = await cacheKey(token, audiences);
      const now = clock.now().getTime();
      const hit = cache.get(key);
      if (hit && hit.until > now) return hit.outcome;
      const outcome = await review(token, audiences);
      // Transport failures are not decisions: only answers are cached.
      if (outcome.kind !== 'rejected' || !outcome.reason.startsWith('Post: ')) cache.set(key, { until: now + ttl, outcome });
      return outcome;
    },
  };
}
