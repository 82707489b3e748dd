/**
 * Audiences (k8s.io/apiserver/pkg/authentication/authenticator/audiences.go):
 * a method that does not know audiences (static tokens, bootstrap tokens)
 * only vouches for tokens presented to the API server itself, and answers
 * with the requested audiences that are the API server's.
 */
import type { TokenAuthenticator } from './types';

export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((x) => b.includes(x));
}

export function audienceAgnostic(method: TokenAuthenticator, apiAudiences: readonly string[]): TokenAuthenticator {
  return {
    name: method.name,
    async authenticateToken(token, audiences) {
      const valid = apiAudiences.length ? intersectAudiences(audiences, apiAudiences) : [...audiences];
      if (apiAudiences.length && audiences.length && !valid.length) return { kind: 'none' };
      const outcome = await method.authenticateToken(token, audiences);
      if (outcome.kind !== 'authenticated') return outcome;
      return { ...outcome, response: { ...outcome.response, audiences: valid.length ? valid : undefined } };
    },
  };
}
