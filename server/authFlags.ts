/**
 * kube-apiserver's authentication flags (BuiltInAuthenticationOptions.AddFlags),
 * parsed into HostFlags.authn. Repeatable flags accumulate, as pflag's
 * string slices do; comma lists split.
 */
import { FlagError, parseDuration } from './flags';
import { parseControllers } from '../src/core/controllers/names';

export interface AuthnFlags {
  /** --token-auth-file */
  tokenAuthFile?: string;
  /** --anonymous-auth (default true) */
  anonymousAuth?: boolean;
  /** --service-account-key-file, repeatable: public (or private) keys that verify service account tokens. */
  serviceAccountKeyFiles?: string[];
  /** --service-account-signing-key-file: the private key that signs them. */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-issuer, repeatable: the first issues, all are accepted. */
  serviceAccountIssuers?: string[];
  /** --service-account-lookup (default true): tokens of deleted objects are revoked. */
  serviceAccountLookup?: boolean;
  /** --service-account-max-token-expiration in seconds. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --api-audiences */
  apiAudiences?: string[];
  /** --enable-bootstrap-token-auth */
  enableBootstrapTokenAuth?: boolean;
  /** --client-ca-file */
  clientCaFile?: string;
  /** --requestheader-client-ca-file */
  requestheaderClientCaFile?: string;
  requestheaderUsernameHeaders?: string[];
  requestheaderUidHeaders?: string[];
  requestheaderGroupHeaders?: string[];
  requestheaderExtraHeadersPrefix?: string[];
  requestheaderAllowedNames?: string[];
  /** --authentication-token-webhook-config-file */
  webhookConfigFile?: string;
  /** --authentication-token-webhook-cache-ttl in ms */
  webhookCacheTtlMs?: number;
  /** --authentication-token-webhook-version */
  webhookVersion?: 'v1' | 'v1beta1';
  /** --authentication-config */
  authenticationConfig?: string;
  oidcIssuerUrl?: string;
  oidcClientId?: string;
  oidcUsernameClaim?: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  /** --oidc-required-claim key=value, repeatable */
  oidcRequiredClaims?: Record<string, string>;
  oidcCaFile?: string;
  oidcSigningAlgs?: string[];
  /** kube-controller-manager's --controllers, validated and spelled canonically (`*`, `name`, `-name`). */
  controllers?: string[];
}

export const authnBooleanFlags = ['anonymous-auth', 'service-account-lookup', 'enable-bootstrap-token-auth'];

export const authnFlagNames = new Set([
  'token-auth-file', 'anonymous-auth', 'service-account-key-file', 'service-account-signing-key-file', 'service-account-issuer',
  'service-account-lookup', 'service-account-max-token-expiration', 'api-audiences', 'enable-bootstrap-token-auth', 'controllers', 'client-ca-file', 'requestheader-client-ca-file',
  'requestheader-username-headers', 'requestheader-uid-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix', 'requestheader-allowed-names',
  'authentication-config', 'oidc-issuer-url', 'oidc-client-id', 'oidc-username-claim', 'oidc-username-prefix', 'oidc-groups-claim', 'oidc-groups-prefix',
  'oidc-required-claim', 'oidc-ca-file', 'oidc-signing-algs',
  'authentication-token-webhook-config-file', 'authentication-token-webhook-cache-ttl', 'authentication-token-webhook-version',
]);

export const authnFlagHelp = `      --anonymous-auth                 requests no method rejects are system:anonymous (default true)
      --api-audiences strings          audiences of the API server's tokens (default: the service account issuer)
      --authentication-config string   AuthenticationConfiguration file (JWT authenticators, anonymous paths); excludes --oidc-*
      --oidc-issuer-url string         (with --oidc-client-id, -username-claim, -username-prefix, -groups-claim, -groups-prefix,
                                       -required-claim, -ca-file, -signing-algs) one OpenID Connect issuer
      --authentication-token-webhook-config-file string  kubeconfig of a remote TokenReview service
      --authentication-token-webhook-cache-ttl dur  how long its decisions are cached (default 2m0s)
      --authentication-token-webhook-version string  v1beta1 (default) or v1
      --client-ca-file string          client certificates verified by these authorities authenticate (CN user, O groups); needs --tls
      --controllers strings            kube-controller-manager's list: "*" (the defaults), "name" on, "-name" off, e.g. "*,-deployment-controller,bootstrap-signer-controller"
      --enable-bootstrap-token-auth    bootstrap token Secrets in kube-system authenticate
      --requestheader-client-ca-file string   authorities of the authenticating proxy's client certificate
      --requestheader-username-headers strings  e.g. X-Remote-User (also -uid-, -group-headers, -extra-headers-prefix, -allowed-names)
      --service-account-issuer strings issuer of service account tokens; repeatable, the first issues (default "https://kubernetes.default.svc.cluster.local")
      --service-account-key-file strs  PEM public or private keys that verify service account tokens; repeatable
      --service-account-lookup         revoke tokens whose service account, Secret or Pod is gone (default true)
      --service-account-max-token-expiration dur  longest TokenRequest expiration
      --service-account-signing-key-file string  PEM private key that signs service account tokens (default: generated into --data-dir)
      --token-auth-file string         CSV of token,user,uid,"groups" (default: <data-dir>/tokens.csv with an admin token)
`;

function bool(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** Sets the flag in authn; false when it is not an authentication flag. */
export function parseAuthnFlag(authn: AuthnFlags, name: string, value: string): boolean {
  switch (name) {
    case 'token-auth-file':
      authn.tokenAuthFile = value;
      return true;
    case 'anonymous-auth':
      authn.anonymousAuth = bool(name, value);
      return true;
    case 'service-account-key-file':
      authn.serviceAccountKeyFiles = [...(authn.serviceAccountKeyFiles ?? []), ...value.split(',').filter(Boolean)];
      return true;
    case 'service-account-signing-key-file':
      authn.serviceAccountSigningKeyFile = value;
      return true;
    case 'service-account-issuer':
      authn.serviceAccountIssuers = [...(authn.serviceAccountIssuers ?? []), ...value.split(',').filter(Boolean)];
      return true;
    case 'service-account-lookup':
      authn.serviceAccountLookup = bool(name, value);
      return true;
    case 'service-account-max-token-expiration':
      authn.serviceAccountMaxTokenExpirationSeconds = parseDuration(value, name) / 1000;
      return true;
    case 'api-audiences':
      authn.apiAudiences = value.split(',').filter(Boolean);
      return true;
    case 'client-ca-file':
      authn.clientCaFile = value;
      return true;
    case 'requestheader-client-ca-file':
      authn.requestheaderClientCaFile = value;
      return true;
    case 'requestheader-username-headers':
    case 'requestheader-uid-headers':
    case 'requestheader-group-headers':
    case 'requestheader-extra-headers-prefix':
    case 'requestheader-allowed-names': {
      const key = ({
        'requestheader-username-headers': 'requestheaderUsernameHeaders', 'requestheader-uid-headers': 'requestheaderUidHeaders',
        'requestheader-group-headers': 'requestheaderGroupHeaders', 'requestheader-extra-headers-prefix': 'requestheaderExtraHeadersPrefix',
        'requestheader-allowed-names': 'requestheaderAllowedNames',
      } as const)[name];
      authn[key] = [...(authn[key] ?? []), ...value.split(',').filter(Boolean)];
      return true;
    }
    case 'authentication-token-webhook-config-file':
      authn.webhookConfigFile = value;
      return true;
    case 'authentication-token-webhook-cache-ttl':
      authn.webhookCacheTtlMs = parseDuration(value, name);
      return true;
    case 'authentication-token-webhook-version':
      if (value !== 'v1' && value !== 'v1beta1') throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: must be v1 or v1beta1`);
      authn.webhookVersion = value;
      return true;
    case 'authentication-config':
      authn.authenticationConfig = value;
      return true;
    case 'oidc-issuer-url':
      authn.oidcIssuerUrl = value;
      return true;
    case 'oidc-client-id':
      authn.oidcClientId = value;
      return true;
    case 'oidc-username-claim':
      authn.oidcUsernameClaim = value;
      return true;
    case 'oidc-username-prefix':
      authn.oidcUsernamePrefix = value;
      return true;
    case 'oidc-groups-claim':
      authn.oidcGroupsClaim = value;
      return true;
    case 'oidc-groups-prefix':
      authn.oidcGroupsPrefix = value;
      return true;
    case 'oidc-required-claim': {
      const eq = value.indexOf('=');
      if (eq < 1) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${value} must be formatted as key=value`);
      authn.oidcRequiredClaims = { ...authn.oidcRequiredClaims, [value.slice(0, eq)]: value.slice(eq + 1) };
      return true;
    }
    case 'oidc-ca-file':
      authn.oidcCaFile = value;
      return true;
    case 'oidc-signing-algs':
      authn.oidcSigningAlgs = value.split(',').filter(Boolean);
      return true;
    case 'controllers':
      try {
        authn.controllers = parseControllers(value.split(',').filter(Boolean));
      } catch (e) {
        throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--controllers" flag: ${(e as Error).message}`);
      }
      return true;
    case 'enable-bootstrap-token-auth':
      authn.enableBootstrapTokenAuth = bool(name, value);
      return true;
    default:
      return false;
  }
}
