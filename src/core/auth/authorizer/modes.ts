/**
 * The authorization chain from configuration (pkg/kubeapiserver/authorizer/config.go):
 * `--authorization-mode` is a comma list whose order is priority order;
 * the privileged-group authorizer (system:masters) always comes first.
 * Modes needing server state (RBAC reads the role stores) are built
 * against the server's dependencies, so the option is a factory.
 */
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupsAuthorizer } from './builtin';
import type { Authorizer, RuleResolver } from './types';
import { unionAuthorizer } from './union';

export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];

/** What the server hands an authorizer factory. */
export interface AuthorizerDeps {
  /** The RBAC authorizer over the server's Role/ClusterRole/binding objects. */
  rbac(): Authorizer & RuleResolver;
  /** The Node authorizer over the server's Pods, Nodes and volumes. */
  node(): Authorizer & RuleResolver;
}

export type AuthorizerFactory = (deps: AuthorizerDeps) => Authorizer;

/** Authorizers for the modes that are not built in here (ABAC policy, webhooks), by mode. */
export interface ModeExtras {
  ABAC?: Authorizer;
  Webhook?: Authorizer[];
}

/** Parses `--authorization-mode`; throws kube-apiserver's validation message on a bad list. */
export function parseAuthorizationModes(flag: string): AuthorizationMode[] {
  const modes = flag.split(',').map((m) => m.trim()).filter(Boolean);
  for (const m of modes) {
    if (!(authorizationModes as readonly string[]).includes(m)) {
      throw new Error(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
    }
  }
  if (new Set(modes).size !== modes.length) {
    throw new Error(`authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`);
  }
  if (!modes.length) throw new Error('at least one authorization-mode must be passed');
  return modes as AuthorizationMode[];
}

/** The chain for a list of modes: privileged groups, then each mode in order. */
export function authorizerFromModes(modes: readonly AuthorizationMode[], extras: ModeExtras = {}): AuthorizerFactory {
  return (deps) => {
    const chain: Authorizer[] = [privilegedGroupsAuthorizer()];
    for (const mode of modes) {
      switch (mode) {
        case 'AlwaysAllow': chain.push(alwaysAllowAuthorizer); break;
        case 'AlwaysDeny': chain.push(alwaysDenyAuthorizer); break;
        case 'RBAC': chain.push(deps.rbac()); break;
        case 'Node': chain.push(deps.node()); break;
        case 'ABAC':
          if (!extras.ABAC) throw new Error('authorization-policy-file must be set for ABAC mode');
          chain.push(extras.ABAC);
          break;
        case 'Webhook':
          if (!extras.Webhook?.length) throw new Error('authorization-webhook-config-file must be set for Webhook mode');
          chain.push(...extras.Webhook);
          break;
      }
    }
    return unionAuthorizer(chain);
  };
}

/** Whether a chain built from these modes reads RBAC objects (then the bootstrap policy is reconciled). */
export function usesRBAC(modes: readonly AuthorizationMode[]): boolean {
  return modes.includes('RBAC');
}
