/**
 * Audiences (k8s.io/apiserver/pkg/authentication/authenticator/audiences.go):
 * a method that does not know audiences (static tokens, bootstrap tokens)
 * only vouches for tokens presented to the API server itself, and answers
 * with the requested audiences that are the API server's.
 */
import type { AuthenticationOutcome, TokenAuthenticator } from './types';

export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((x) => b.includes(x));
}

function withAudiences(outcome: AuthenticationOutcome, valid: string[]): AuthenticationOutcome {
  return outcome.kind !== 'authenticated' ? outcome : { ...outcome, response: { ...outcome.response, audiences: valid.length ? valid : undefined } };
}

export function audienceAgnostic(method: TokenAuthenticator, apiAudiences: readonly string[]): TokenAuthenticator {
  return {
    name: method.name,
    authenticateToken(token, audiences) {
      const valid = apiAudiences.length ? intersectAudiences(audiences, apiAudiences) : [...audiences];
      if (apiAudiences.length && audiences.length && !valid.length) return { kind: 'none' };
      // A method that answers at once (the token file) is answered for at once.
      const outcome = method.authenticateToken(token, audiences);
      return outcome instanceof Promise ? outcome.then((o) => withAudiences(o, valid)) : withAudiences(outcome, valid);
    },
  };
}
