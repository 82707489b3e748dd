/**
 * kube-apiserver's authentication flags (BuiltInAuthenticationOptions.AddFlags),
 * parsed into HostFlags.authn. Repeatable flags accumulate, as pflag's
 * string slices do; comma lists split.
 */
import { FlagError, parseDuration } from './flags';

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
  /** kube-controller-manager's --controllers: the opt-in bootstrapsigner and tokencleaner. */
  controllers?: string[];
}

export const authnBooleanFlags = ['anonymous-auth', 'service-account-lookup', 'enable-bootstrap-token-auth'];

export const authnFlagNames = new Set([
  'token-auth-file', 'anonymous-auth', 'service-account-key-file', 'service-account-signing-key-file', 'service-account-issuer',
  'service-account-lookup', 'service-account-max-token-expiration', 'api-audiences', 'enable-bootstrap-token-auth', 'controllers',
]);

export const authnFlagHelp = `      --anonymous-auth                 requests no method rejects are system:anonymous (default true)
      --api-audiences strings          audiences of the API server's tokens (default: the service account issuer)
      --controllers strings            controllers to run besides the defaults: "*,bootstrapsigner,tokencleaner"
      --enable-bootstrap-token-auth    bootstrap token Secrets in kube-system authenticate
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
    case 'controllers':
      authn.controllers = value.split(',').filter(Boolean);
      return true;
    case 'enable-bootstrap-token-auth':
      authn.enableBootstrapTokenAuth = bool(name, value);
      return true;
    default:
      return false;
  }
}
