/**
 * The host's authorization flags turned into createApiServer options
 * (pkg/kubeapiserver/options/authorization.go): `--authorization-mode` or
 * `--authorization-config`, never both; `--authorization-policy-file` only
 * with ABAC. The default, as kube-apiserver's flag default, is AlwaysAllow;
 * the default RBAC policy is reconciled whatever the mode, as upstream.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { abacAuthorizer, parsePolicyFile } from '../src/core/auth/abac/abac';
import { authorizerFromModes, parseAuthorizationModes, type AuthorizationMode, type AuthorizerDeps, type AuthorizerFactory, type ModeExtras } from '../src/core/auth/authorizer/modes';
import type { RequestAuthenticator } from '../src/core/auth/authenticator/types';
import { tokenNamesUserAuthenticator } from '../src/core/auth/authorizer/testing';
import { loadAuthorizationConfiguration, type LoadedAuthorizationConfig } from '../src/core/auth/authorizer/config';
import type { Authorizer, RuleResolver } from '../src/core/auth/authorizer/types';
import type { UserInfo } from '../src/core/auth/user';
import { webhookAuthorizer } from '../src/core/auth/authorizer/webhook';
import { parseGoDuration } from '../src/core/http/serializers/protobuf/goDuration';
import { kubeconfigTransport } from './webhookTransport';

export interface AuthorizationFlags {
  /** --authorization-mode, already split. */
  authorizationModes?: string;
  /** --authorization-config path. */
  authorizationConfig?: string;
  /** --authorization-policy-file (ABAC). */
  authorizationPolicyFile?: string;
  /** In-process scenarios only (no host flag): the bearer token names the user, `<user>[,<group>...]`. */
  insecureTokenUsers?: boolean;
  /** --authorization-webhook-config-file: kubeconfig of the Webhook mode's service. */
  authorizationWebhookConfigFile?: string;
  /** --authorization-webhook-version: v1beta1 (default) or v1. */
  authorizationWebhookVersion?: string;
  /** --authorization-webhook-cache-authorized-ttl (default 5m). */
  authorizationWebhookCacheAuthorizedTTL?: string;
  /** --authorization-webhook-cache-unauthorized-ttl (default 30s). */
  authorizationWebhookCacheUnauthorizedTTL?: string;
}

export interface HostAuthorization {
  authorizer: AuthorizerFactory;
  rbacBootstrap: boolean;
  /** Authenticators that come with the options (insecureTokenUsers). */
  authenticators: RequestAuthenticator[];
  /** Stops reloading the authorization configuration file. */
  stop(): void;
}

/** Reload period of --authorization-config (it is also reloaded when the file changes). */
export const authorizationConfigReloadMs = 60_000;

function loadConfigFile(path: string): LoadedAuthorizationConfig {
  const doc: unknown = parseYaml(readFileSync(path, 'utf8'));
  return loadAuthorizationConfiguration(doc, { transportFor: kubeconfigTransport });
}

const fixedTypes = (types: string[]) => types.filter((t) => t !== 'Webhook').sort().join(',');

/**
 * The chain from --authorization-config, reloaded on change and every 60s;
 * a reload that adds or removes Node or RBAC (or fails validation) is
 * rejected and the running chain kept, as upstream.
 */
export function reloadingConfigAuthorizer(path: string, onReloadError: (e: Error) => void = (e) => console.error(`kubesim: authorization config reload rejected: ${e.message}`)): { factory: AuthorizerFactory; reload(): boolean; stop(): void } {
  let loaded = loadConfigFile(path);
  let deps: AuthorizerDeps | undefined;
  let current: Authorizer | undefined;
  let lastText = readFileSync(path, 'utf8');
  const reload = (): boolean => {
    try {
      const text = readFileSync(path, 'utf8');
      if (text === lastText) return false;
      const next = loadConfigFile(path);
      if (fixedTypes(next.types) !== fixedTypes(loaded.types)) throw new Error('Node and RBAC authorizers cannot be added or removed on reload');
      lastText = text;
      loaded = next;
      if (deps) current = loaded.factory(deps);
      return true;
    } catch (e) {
      onReloadError(e as Error);
      return false;
    }
  };
  const timer = setInterval(reload, authorizationConfigReloadMs);
  timer.unref?.();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, () => reload());
  } catch {
    // Unwatchable file systems still get the periodic reload.
  }
  const factory: AuthorizerFactory = (d) => {
    deps = d;
    current = loaded.factory(d);
    return {
      name: 'authorization-config',
      authorize: (attrs) => current!.authorize(attrs),
      rulesFor: (user: UserInfo, namespace: string) => {
        const c = current as Authorizer & Partial<RuleResolver>;
        return c.rulesFor ? c.rulesFor(user, namespace) : { resourceRules: [], nonResourceRules: [], incomplete: true };
      },
    } as Authorizer & RuleResolver;
  };
  return { factory, reload, stop: () => { clearInterval(timer); watcher?.close(); } };
}

export function validateAuthorizationFlags(flags: AuthorizationFlags): AuthorizationMode[] {
  const webhookFlags = [flags.authorizationWebhookConfigFile, flags.authorizationWebhookVersion, flags.authorizationWebhookCacheAuthorizedTTL, flags.authorizationWebhookCacheUnauthorizedTTL].some((f) => f !== undefined);
  if (flags.authorizationConfig !== undefined && (flags.authorizationModes !== undefined || webhookFlags)) {
    throw new Error('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  }
  const modes = parseAuthorizationModes(flags.authorizationModes ?? 'AlwaysAllow');
  if (modes.includes('ABAC') && !flags.authorizationPolicyFile) throw new Error("authorization-mode ABAC's authorization policy file not passed");
  if (flags.authorizationPolicyFile && !modes.includes('ABAC')) throw new Error('cannot specify --authorization-policy-file without mode ABAC');
  if (modes.includes('Webhook') && !flags.authorizationWebhookConfigFile) throw new Error("authorization-mode Webhook's authorization config file not passed");
  if (flags.authorizationWebhookConfigFile && !modes.includes('Webhook')) throw new Error('cannot specify --authorization-webhook-config-file without mode Webhook');
  const version = flags.authorizationWebhookVersion ?? 'v1beta1';
  if (version !== 'v1' && version !== 'v1beta1') throw new Error(`invalid authorization webhook version ${JSON.stringify(version)}: must be v1 or v1beta1`);
  return modes;
}

function testAuthenticators(flags: AuthorizationFlags): RequestAuthenticator[] {
  return flags.insecureTokenUsers ? [tokenNamesUserAuthenticator] : [];
}

export function hostAuthorization(flags: AuthorizationFlags): HostAuthorization {
  const modes = validateAuthorizationFlags(flags);
  if (flags.authorizationConfig !== undefined) {
    const r = reloadingConfigAuthorizer(flags.authorizationConfig);
    return { authorizer: r.factory, rbacBootstrap: true, authenticators: testAuthenticators(flags), stop: r.stop };
  }
  const extras: ModeExtras = {};
  if (flags.authorizationPolicyFile) extras.ABAC = abacAuthorizer(parsePolicyFile(readFileSync(flags.authorizationPolicyFile, 'utf8')));
  if (flags.authorizationWebhookConfigFile) {
    // The flag form: one webhook named "webhook", 30s timeout, NoOpinion on failure, no match conditions.
    const ms = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(parseGoDuration(v) / 1_000_000n));
    extras.Webhook = [webhookAuthorizer({
      name: 'webhook',
      transport: kubeconfigTransport(flags.authorizationWebhookConfigFile),
      subjectAccessReviewVersion: (flags.authorizationWebhookVersion ?? 'v1beta1') as 'v1' | 'v1beta1',
      failurePolicy: 'NoOpinion',
      timeoutMs: 30_000,
      authorizedTTLMs: ms(flags.authorizationWebhookCacheAuthorizedTTL, 5 * 60_000),
      unauthorizedTTLMs: ms(flags.authorizationWebhookCacheUnauthorizedTTL, 30_000),
    })];
  }
  return {
    authorizer: authorizerFromModes(modes, extras),
    rbacBootstrap: true,
    authenticators: testAuthenticators(flags),
    stop: () => {},
  };
}
