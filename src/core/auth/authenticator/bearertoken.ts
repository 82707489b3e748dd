/**
 * `Authorization: Bearer <token>` (k8s.io/apiserver/pkg/authentication/request/bearertoken):
 * a header of another scheme, or an empty token, is not this method's
 * credential; a bearer token no token method accepts is "invalid bearer token" (401).
 */
import { noCredential, type AuthenticationOutcome, type RequestAuthenticator, type TokenAuthenticator } from './types';

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
  const settle = (rejections: { authenticator: string; reason: string }[]): AuthenticationOutcome => {
    if (!rejections.length) return noCredential;
    if (rejections.length === 1) return { kind: 'rejected', ...rejections[0]! };
    return { kind: 'rejected', authenticator: rejections.map((r) => r.authenticator).join(','), reason: `[${rejections.map((r) => r.reason).join(', ')}]` };
  };
  // Methods that answer at once (a static token) are not awaited; only a pending answer is.
  const ask = (token: string, audiences: readonly string[], from: number, rejections: { authenticator: string; reason: string }[]): AuthenticationOutcome | Promise<AuthenticationOutcome> => {
    for (let i = from; i < methods.length; i++) {
      const out = methods[i]!.authenticateToken(token, audiences);
      if (out instanceof Promise) {
        return out.then((outcome) => {
          if (outcome.kind === 'authenticated') return outcome;
          if (outcome.kind === 'rejected') rejections.push(outcome);
          return ask(token, audiences, i + 1, rejections);
        });
      }
      if (out.kind === 'authenticated') return out;
      if (out.kind === 'rejected') rejections.push(out);
    }
    return settle(rejections);
  };
  return {
    name: 'token',
    authenticateToken: (token, audiences) => ask(token, audiences, 0, []),
  };
}

function invalidUnlessFound(outcome: AuthenticationOutcome): AuthenticationOutcome {
  return outcome.kind === 'none' ? { kind: 'rejected', authenticator: 'bearer-token', reason: 'invalid bearer token' } : outcome;
}

export function bearerTokenAuthenticator(methods: TokenAuthenticator, apiAudiences: readonly string[]): RequestAuthenticator {
  return {
    name: 'bearer-token',
    authenticate(request): AuthenticationOutcome | Promise<AuthenticationOutcome> {
      const token = bearerToken(request);
      if (token === undefined) return noCredential;
      const outcome = methods.authenticateToken(token, apiAudiences);
      return outcome instanceof Promise ? outcome.then(invalidUnlessFound) : invalidUnlessFound(outcome);
    },
  };
}
