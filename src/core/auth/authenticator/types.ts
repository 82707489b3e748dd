/**
 * Authenticators (k8s.io/apiserver/pkg/authentication/authenticator): each
 * method (client certificate, static/bootstrap/service-account/OIDC/webhook
 * token, authenticating proxy) looks at a request and answers with a user,
 * with "not my kind of credential" (null), or with a rejection.
 */
import type { UserInfo } from '../user';

export interface AuthenticationResponse {
  user: UserInfo;
  /** Audiences the credential is valid for (audience-aware authenticators). */
  audiences?: string[];
}

/** What a method found: a user, nothing it recognises, or an invalid credential (401). */
export type AuthenticationOutcome =
  | { kind: 'authenticated'; response: AuthenticationResponse; authenticator: string }
  | { kind: 'none' }
  | { kind: 'rejected'; authenticator: string; reason: string };

/** The "not my kind of credential" outcome: one object, as most requests get it from some method. */
export const noCredential: AuthenticationOutcome = Object.freeze({ kind: 'none' });

export interface RequestAuthenticator {
  /** Shown in traces (`static-token`, `x509`, `oidc:<issuer>`). Never includes a credential. */
  readonly name: string;
  authenticate(request: Request): Promise<AuthenticationOutcome> | AuthenticationOutcome;
}

/**
 * A bearer token method (authenticator.Token). `audiences` are those the
 * token is presented for: the API server's own unless a TokenReview names others.
 * A rejection's reason never contains the token.
 */
export interface TokenAuthenticator {
  readonly name: string;
  authenticateToken(token: string, audiences: readonly string[]): Promise<AuthenticationOutcome> | AuthenticationOutcome;
}
