/**
 * The host's authorization flags turned into createApiServer options
 * (pkg/kubeapiserver/options/authorization.go): `--authorization-mode` or
 * `--authorization-config`, never both; `--authorization-policy-file` only
 * with ABAC. The default, as kube-apiserver's flag default, is AlwaysAllow;
 * the default RBAC policy is reconciled whatever the mode, as upstream.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { RequestAuthenticator } from '../src/core/auth/authenticator/types';
import { abacAuthorizer, parsePolicyFile } from '../src/core/auth/abac/abac';
import { authorizerFromModes, parseAuthorizationModes, type AuthorizationMode, type AuthorizerDeps, type AuthorizerFactory, type ModeExtras } from '../src/core/auth/authorizer/modes';
import { loadAuthorizationConfiguration, type LoadedAuthorizationConfig } from '../src/core/auth/authorizer/config';
import { tokenNamesUserAuthenticator } from '../src/core/auth/authorizer/testing';
import type { Authorizer, RuleResolver } from '../src/core/auth/authorizer/types';
import type { UserInfo } from '../src/core/auth/user';
import { kubeconfigTransport } from './webhookTransport';

export interface AuthorizationFlags {
  /** --authorization-mode, already split. */
  authorizationModes?: string;
  /** --authorization-config path. */
  authorizationConfig?: string;
  /** --authorization-policy-file (ABAC). */
  authorizationPolicyFile?: string;
  /** --insecure-token-users: test-only authentication where the bearer token names the user. */
  insecureTokenUsers?: boolean;
}

export interface HostAuthorization {
  authorizer: AuthorizerFactory;
  rbacBootstrap: boolean;
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
  if (flags.authorizationConfig !== undefined && flags.authorizationModes !== undefined) {
    throw new Error('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  }
  const modes = parseAuthorizationModes(flags.authorizationModes ?? 'AlwaysAllow');
  if (modes.includes('ABAC') && !flags.authorizationPolicyFile) throw new Error("authorization-mode ABAC's authorization policy file not passed");
  if (flags.authorizationPolicyFile && !modes.includes('ABAC')) throw new Error('cannot specify --authorization-policy-file without mode ABAC');
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
  return {
    authorizer: authorizerFromModes(modes, extras),
    rbacBootstrap: true,
    authenticators: testAuthenticators(flags),
    stop: () => {},
  };
}
