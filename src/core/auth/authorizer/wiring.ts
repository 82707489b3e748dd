/**
 * Authorization as one API server instance runs it: the chain built from the
 * `authorizer` option (AlwaysAllow when absent), the RBAC policy cache it and
 * the escalation checks read, and the post-start work RBAC needs (bootstrap
 * policy reconciliation, then the clusterrole-aggregation controller).
 */
import { startClusterRoleAggregationController } from '../../controllers/clusterRoleAggregation';
import { isObject } from '../../api/types';
import type { Store } from '../../registry/generic/store';
import type { ResourceRegistry } from '../../registry/registry';
import type { ResourceType } from '../../registry/types';
import type { Storage } from '../../storage/interface';
import { nodeAuthorizer } from '../node/authorizer';
import { nodeRestrictedStore } from '../node/restriction';
import { rbacAuthorizer } from '../rbac/authorizer';
import { reconcileBootstrapPolicy } from '../rbac/bootstrap';
import { guardedStore } from '../rbac/escalation';
import { PolicyCache } from '../rbac/policyCache';
import type { UserInfo } from '../user';
import { alwaysAllowAuthorizer, privilegedGroupsAuthorizer } from './builtin';
import type { AuthorizerDeps, AuthorizerFactory } from './modes';
import type { Authorizer } from './types';
import { unionAuthorizer } from './union';

export interface AuthorizationWiringDeps {
  storage: Storage;
  registry: ResourceRegistry;
  storeFor(type: ResourceType): Store;
}

export interface AuthorizationOptions {
  authorizer?: Authorizer | AuthorizerFactory;
  /** Reconcile the default roles and run role aggregation; by default when the chain uses RBAC. */
  rbacBootstrap?: boolean;
  /** The NodeRestriction admission plugin. */
  nodeRestriction?: boolean;
}

export interface Authorization {
  authorizer: Authorizer;
  /** The store a request writes through: roles and bindings get the escalation checks, a node's writes NodeRestriction. */
  guard(store: Store, user: UserInfo, request: { name: string; subresource: string }): Store;
  /** Post-start hooks; returns what to stop on close. */
  start(): Promise<{ stop(): void }[]>;
  close(): void;
}

export function createAuthorization(options: AuthorizationOptions, deps: AuthorizationWiringDeps): Authorization {
  const cache = new PolicyCache(deps.storage);
  const coreStore = (resource: string) => deps.storeFor(deps.registry.resourceFor('', 'v1', resource)!);
  const rbac = rbacAuthorizer(cache);
  let rbacUsed = false;
  const factoryDeps: AuthorizerDeps = {
    rbac: () => {
      rbacUsed = true;
      return rbac;
    },
    node: () => nodeAuthorizer({
      async podsOnNode(nodeName) {
        const pods = await coreStore('pods').list('');
        return pods.items.filter((p) => isObject(p['spec']) && p['spec']['nodeName'] === nodeName);
      },
      async getPersistentVolumeClaim(namespace, name) {
        const store = coreStore('persistentvolumeclaims');
        const kv = await store.getKv(namespace, name);
        return kv ? store.decode(kv) : undefined;
      },
    }),
  };
  const configured = options.authorizer ?? unionAuthorizer([privilegedGroupsAuthorizer(), alwaysAllowAuthorizer]);
  const authorizer = typeof configured === 'function' ? configured(factoryDeps) : configured;
  const bootstrap = options.rbacBootstrap ?? rbacUsed;
  const escalation = { authorizer, resolver: rbac.resolver, synced: () => cache.synced() };

  const rbacStore = (resource: string) => deps.storeFor(deps.registry.resourceFor('rbac.authorization.k8s.io', 'v1', resource)!);

  return {
    authorizer,
    guard: (store, user, request) => {
      const checked = guardedStore(store, user, request.name, escalation);
      return options.nodeRestriction ? nodeRestrictedStore(checked, user, request.name, request.subresource) : checked;
    },
    async start() {
      if (!bootstrap || !deps.registry.resourceFor('rbac.authorization.k8s.io', 'v1', 'clusterroles')) return [];
      await reconcileBootstrapPolicy({
        clusterRoles: rbacStore('clusterroles'),
        clusterRoleBindings: rbacStore('clusterrolebindings'),
        roles: rbacStore('roles'),
        roleBindings: rbacStore('rolebindings'),
      });
      return [await startClusterRoleAggregationController({ clusterRoles: rbacStore('clusterroles') })];
    },
    close: () => cache.stop(),
  };
}
