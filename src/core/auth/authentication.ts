/**
 * The authenticator chain built from the server's options (kube-apiserver's
 * BuiltInAuthenticationOptions.ToAuthenticationConfig): request methods
 * (client certificates, authenticating proxy) first, then bearer tokens
 * through one union of the token methods. The same token union answers
 * TokenReviews.
 */
import type { KubeObject } from '../api/types';
import type { Store } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { Clock } from '../util/clock';
import { audienceAgnostic } from './authenticator/audiences';
import { bearerTokenAuthenticator, tokenUnion } from './authenticator/bearertoken';
import { bootstrapTokenAuthenticator } from './authenticator/bootstrap';
import { jwtAuthenticator, type ClaimSourceFetch, type JwksSource, type JwtAuthenticatorConfig } from './authenticator/jwt';
import { requestHeaderAuthenticator, type RequestHeaderOptions } from './authenticator/requestheader';
import { webhookTokenAuthenticator, type WebhookTokenOptions } from './authenticator/webhook';
import { x509Authenticator } from './authenticator/x509';
import { tokenFileAuthenticator, type StaticToken } from './authenticator/tokenfile';
import type { RequestAuthenticator, TokenAuthenticator } from './authenticator/types';
import { ServiceAccountTokens, type ObjectGetter, type ServiceAccountOptions } from './serviceaccount/tokens';

export interface AuthenticationOptions {
  /** Rows of --token-auth-file (the host reads and parses the file). */
  tokenFile?: StaticToken[];
  /** --api-audiences; defaults to the service account issuers. */
  apiAudiences?: string[];
  /** --client-ca-file is set: certificates the host verified against it authenticate. */
  clientCertificates?: boolean;
  /** --requestheader-* (the host verifies the proxy's certificate against --requestheader-client-ca-file). */
  requestHeader?: RequestHeaderOptions;
  /** --authentication-token-webhook-config-file (the host makes the calls). */
  webhook?: WebhookTokenOptions;
  /**
   * JWT authenticators (AuthenticationConfiguration jwt[], or the --oidc-* flags), each with its issuer's keys;
   * a function is asked on every token, so a reloaded configuration applies without a restart.
   */
  jwt?: JwtEntry[] | (() => JwtEntry[]);
  /** AuthenticationConfiguration anonymous.conditions[].path: the only paths anonymous requests may use. */
  anonymousPaths?: string[];
  /** --enable-bootstrap-token-auth. */
  bootstrapTokens?: boolean;
  /** Controllers kube-controller-manager runs only when named (--controllers=*,bootstrapsigner,tokencleaner). */
  controllers?: { bootstrapSigner?: boolean; tokenCleaner?: boolean };
  /** Service account token keys, issuers and lookup. */
  serviceAccounts?: ServiceAccountOptions;
}

export interface JwtEntry {
  config: JwtAuthenticatorConfig;
  jwks: JwksSource;
  signingAlgs?: string[];
  /** Fetches distributed claim sources (the host's, trusting the issuer's CA). */
  fetchClaimSource?: ClaimSourceFetch;
}

/** The JWT authenticators of the current configuration, rebuilt when the configuration object changes. */
function reloadableJwt(source: () => JwtEntry[], clock: Clock, apiAudiences: string[]): TokenAuthenticator {
  let built: { from: JwtEntry[]; union: TokenAuthenticator } | undefined;
  return {
    name: 'jwt',
    authenticateToken(token, audiences) {
      const current = source();
      if (built?.from !== current) built = { from: current, union: tokenUnion(current.map((j) => audienceAgnostic(jwtAuthenticator(j.config, j.jwks, clock, j.signingAlgs, j.fetchClaimSource), apiAudiences))) };
      return built.union.authenticateToken(token, audiences);
    },
  };
}

export interface Authentication {
  /** Asked in order by the authentication filter. */
  requestAuthenticators: RequestAuthenticator[];
  /** Every token method as one; TokenReview asks it. */
  tokenAuthenticator: TokenAuthenticator;
  apiAudiences: string[];
  serviceAccounts: ServiceAccountTokens;
}

export interface AuthenticationDeps {
  clock: Clock;
  /** Live objects, for service account token revocation. */
  getObject: ObjectGetter;
  /** Request methods the host adds (client certificates). */
  requestAuthenticators?: RequestAuthenticator[];
}

/** kube-apiserver's issuer (and so API audience) when none is configured, as kubeadm sets it. */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

export function buildAuthentication(options: AuthenticationOptions, deps: AuthenticationDeps): Authentication {
  const issuers = options.serviceAccounts?.issuers?.length ? options.serviceAccounts.issuers : [defaultServiceAccountIssuer];
  const apiAudiences = options.apiAudiences?.length ? options.apiAudiences : issuers;
  const serviceAccounts = new ServiceAccountTokens({ ...options.serviceAccounts, issuers }, deps.getObject, deps.clock, apiAudiences);
  const tokens: TokenAuthenticator[] = [];
  if (options.tokenFile) tokens.push(audienceAgnostic(tokenFileAuthenticator(options.tokenFile), apiAudiences));
  tokens.push(serviceAccounts.authenticator());
  const jwt = options.jwt;
  if (typeof jwt === 'function') tokens.push(reloadableJwt(jwt, deps.clock, apiAudiences));
  else for (const j of jwt ?? []) tokens.push(audienceAgnostic(jwtAuthenticator(j.config, j.jwks, deps.clock, j.signingAlgs, j.fetchClaimSource), apiAudiences));
  if (options.webhook) tokens.push(webhookTokenAuthenticator(options.webhook, deps.clock));
  if (options.bootstrapTokens) tokens.push(audienceAgnostic(bootstrapTokenAuthenticator((ns, name) => deps.getObject('secrets', ns, name), deps.clock), apiAudiences));
  const tokenAuthenticator = tokenUnion(tokens);
  const requestAuthenticators = [...(deps.requestAuthenticators ?? [])];
  if (options.requestHeader?.usernameHeaders.length) requestAuthenticators.push(requestHeaderAuthenticator(options.requestHeader));
  if (options.clientCertificates) requestAuthenticators.push(x509Authenticator());
  requestAuthenticators.push(bearerTokenAuthenticator(tokenAuthenticator, apiAudiences));
  return { requestAuthenticators, tokenAuthenticator, apiAudiences, serviceAccounts };
}

/** Core-group objects read through the server's stores, for the revocation checks and token binding. */
export function storeGetter(registry: ResourceRegistry, storeFor: (type: ResourceType) => Store): ObjectGetter {
  return async (resource, namespace, name): Promise<KubeObject | undefined> => {
    const type = registry.resourceFor('', 'v1', resource);
    if (!type) return undefined;
    const store = storeFor(type);
    const kv = await store.getKv(namespace, name);
    return kv ? store.decode(kv) : undefined;
  };
}
