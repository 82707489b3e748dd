/**
 * The authenticator chain built from the server's options (kube-apiserver's
 * BuiltInAuthenticationOptions.ToAuthenticationConfig): request methods
 * (client certificates, authenticating proxy) first, then bearer tokens
 * through one union of the token methods. The same token union answers
 * TokenReviews.
 */
import { audienceAgnostic } from './authenticator/audiences';
import { bearerTokenAuthenticator, tokenUnion } from './authenticator/bearertoken';
import { tokenFileAuthenticator, type StaticToken } from './authenticator/tokenfile';
import type { RequestAuthenticator, TokenAuthenticator } from './authenticator/types';

export interface AuthenticationOptions {
  /** Rows of --token-auth-file (the host reads and parses the file). */
  tokenFile?: StaticToken[];
  /** --api-audiences; defaults to the service account issuer. */
  apiAudiences?: string[];
}

export interface Authentication {
  /** Asked in order by the authentication filter. */
  requestAuthenticators: RequestAuthenticator[];
  /** Every token method as one; TokenReview asks it. */
  tokenAuthenticator: TokenAuthenticator;
  apiAudiences: string[];
}

/** kube-apiserver's default issuer (and so API audience) when none is configured, as kubeadm sets it. */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

export function buildAuthentication(options: AuthenticationOptions, extra: { requestAuthenticators?: RequestAuthenticator[]; tokenAuthenticators?: TokenAuthenticator[] } = {}): Authentication {
  const apiAudiences = options.apiAudiences?.length ? options.apiAudiences : [defaultServiceAccountIssuer];
  const tokens: TokenAuthenticator[] = [];
  if (options.tokenFile) tokens.push(audienceAgnostic(tokenFileAuthenticator(options.tokenFile), apiAudiences));
  tokens.push(...(extra.tokenAuthenticators ?? []));
  const tokenAuthenticator = tokenUnion(tokens);
  const requestAuthenticators = [...(extra.requestAuthenticators ?? [])];
  if (tokens.length) requestAuthenticators.push(bearerTokenAuthenticator(tokenAuthenticator, apiAudiences));
  return { requestAuthenticators, tokenAuthenticator, apiAudiences };
}
