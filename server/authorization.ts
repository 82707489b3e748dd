/**
 * The host's authorization flags turned into createApiServer options
 * (pkg/kubeapiserver/options/authorization.go): `--authorization-mode` or
 * `--authorization-config`, never both; `--authorization-policy-file` only
 * with ABAC. The default, as kube-apiserver's flag default, is AlwaysAllow;
 * the default RBAC policy is reconciled whatever the mode, as upstream.
 */
import { readFileSync } from 'node:fs';
import type { RequestAuthenticator } from '../src/core/auth/authenticator/types';
import { abacAuthorizer, parsePolicyFile } from '../src/core/auth/abac/abac';
import { authorizerFromModes, parseAuthorizationModes, type AuthorizationMode, type AuthorizerFactory, type ModeExtras } from '../src/core/auth/authorizer/modes';
import { tokenNamesUserAuthenticator } from '../src/core/auth/authorizer/testing';

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

export function hostAuthorization(flags: AuthorizationFlags): HostAuthorization {
  const modes = validateAuthorizationFlags(flags);
  if (flags.authorizationConfig !== undefined) readFileSync(flags.authorizationConfig, 'utf8');
  const extras: ModeExtras = {};
  if (flags.authorizationPolicyFile) extras.ABAC = abacAuthorizer(parsePolicyFile(readFileSync(flags.authorizationPolicyFile, 'utf8')));
  return {
    authorizer: authorizerFromModes(modes, extras),
    rbacBootstrap: true,
    authenticators: flags.insecureTokenUsers ? [tokenNamesUserAuthenticator] : [],
  };
}
