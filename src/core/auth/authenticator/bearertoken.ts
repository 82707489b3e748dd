/**
 * `Authorization: Bearer <token>` (k8s.io/apiserver/pkg/authentication/request/bearertoken):
 * a header of another scheme, or an empty token, is not this method's
 * credential; a bearer token no token method accepts is "invalid bearer token" (401).
 */
import type { AuthenticationOutcome, RequestAuthenticator, TokenAuthenticator } from './types';

/** The bearer token of a request, or undefined when it carries none. */
export function bearerToken(request: Request): string | undefined {
  const header = (request.headers.get('authorization') ?? '').trim();
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/**
 * The token methods as one (union.New): the first that authenticates wins;
 * rejections are reported only when nobody accepted the token.
 */
export function tokenUnion(methods: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    name: 'token',
    async authenticateToken(token, audiences): Promise<AuthenticationOutcome> {
      const rejections: { authenticator: string; reason: string }[] = [];
      for (const m of methods) {
        const outcome = await m.authenticateToken(token, audiences);
        if (outcome.kind === 'authenticated') return outcome;
        if (outcome.kind === 'rejected') rejections.push(outcome);
      }
      if (!rejections.length) return { kind: 'none' };
      if (rejections.length === 1) return { kind: 'rejected', ...rejections[0]! };
      return { kind: 'rejected', authenticator: rejections.map((r) => r.authenticator).join(','), reason: `[${rejections.map((r) => r.reason).join(', ')}]` };
    },
  };
}

export function bearerTokenAuthenticator(methods: TokenAuthenticator, apiAudiences: readonly string[]): RequestAuthenticator {
  return {
    name: 'bearer-token',
    async authenticate(request): Promise<AuthenticationOutcome> {
      const token = bearerToken(request);
      if (token === undefined) return { kind: 'none' };
      const outcome = await methods.authenticateToken(token, apiAudiences);
      if (outcome.kind === 'none') return { kind: 'rejected', authenticator: 'bearer-token', reason: 'invalid bearer token' };
      return outcome;
    },
  };
}
