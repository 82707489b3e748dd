/**
 * Privilege escalation prevention (pkg/registry/rbac/{role,clusterrole,rolebinding,
 * clusterrolebinding}/policybased): writing a role needs every permission it
 * grants (at its scope) or the `escalate` verb on it; writing a binding needs
 * the referenced role's permissions or the `bind` verb on that role;
 * system:masters skips both. The check runs on the object about to be
 * stored, so creates, updates, patches and applies are all covered; an update
 * that only touches owner references or finalizers is not checked.
 */
import type { KubeObject } from '../../api/types';
import { goQuote, newForbidden, newNotFound, StatusError } from '../../errors';
import type { Store, UpdateFunc } from '../../registry/generic/store';
import type { Authorizer } from '../authorizer/types';
import { systemMasters, type UserInfo } from '../user';
import { compactRules, covers } from './covers';
import type { RuleResolver } from './resolver';
import { describeRule } from './rules';
import { rbacGroup, type ClusterRole, type PolicyRule, type RoleBinding } from './types';

export interface EscalationDeps {
  authorizer: Authorizer;
  resolver: RuleResolver;
  /** Waits until the resolver reflects every committed write. */
  synced(): Promise<void>;
}

const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function goStrings(xs: readonly string[]): string {
  return `[${xs.map(goQuote).join(' ')}]`;
}

/** ConfirmNoEscalation: the user's own rules in the namespace must cover the rules granted. */
export function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = resolver.rulesFor(user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(describeRule))].sort();
  let msg = `user ${goQuote(user.username)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length) msg += `; resolution errors: [${owned.errors.length === 1 ? owned.errors[0] : `[${owned.errors.join(', ')}]`}]`;
  return msg;
}

const onlyGCFields = (obj: KubeObject, old: KubeObject | undefined): boolean => {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
};

const roleResources = new Set(['roles', 'clusterroles']);
const bindingResources = new Set(['rolebindings', 'clusterrolebindings']);

/** Whether writes to this resource are escalation-checked. */
export function isEscalationChecked(group: string, resource: string): boolean {
  return group === rbacGroup && (roleResources.has(resource) || bindingResources.has(resource));
}

async function allowed(authorizer: Authorizer, user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
  const r = await authorizer.authorize({ user, verb, isResourceRequest: true, path: '', namespace, apiGroup: rbacGroup, apiVersion: '*', resource, subresource: '', name });
  return r.decision === 'Allow';
}

/** Throws 403 Forbidden when writing obj would grant the user more than it holds. */
export async function checkEscalation(deps: EscalationDeps, user: UserInfo, resource: string, namespace: string, requestName: string, obj: KubeObject, old?: KubeObject): Promise<void> {
  if (user.groups.includes(systemMasters)) return;
  if (onlyGCFields(obj, old)) return;
  const gr = { group: rbacGroup, resource };
  const name = obj.metadata.name ?? '';
  if (roleResources.has(resource)) {
    if (await allowed(deps.authorizer, user, 'escalate', resource, namespace, requestName)) return;
    await deps.synced();
    const role = obj as ClusterRole;
    if (resource === 'clusterroles' && role.aggregationRule) {
      if (confirmNoEscalation(deps.resolver, user, '', fullAuthority)) {
        throw newForbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    const msg = confirmNoEscalation(deps.resolver, user, namespace, role.rules ?? []);
    if (msg) throw newForbidden(gr, name, msg);
    return;
  }
  const ref = (obj as RoleBinding).roleRef;
  if (!ref) return; // validation answers for a missing roleRef
  const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (refResource && (await allowed(deps.authorizer, user, 'bind', refResource, namespace, ref.name))) return;
  await deps.synced();
  let rules: PolicyRule[];
  try {
    rules = deps.resolver.roleReferenceRules(ref, namespace);
  } catch (e) {
    if (refResource) throw newNotFound({ group: rbacGroup, resource: refResource }, ref.name);
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, reason: 'InternalError', message: (e as Error).message });
  }
  const msg = confirmNoEscalation(deps.resolver, user, namespace, rules);
  if (msg) throw newForbidden(gr, name, msg);
}

/**
 * The store as one request sees it: creates and updates of roles and
 * bindings pass the escalation check with the request's user first.
 */
export function guardedStore(store: Store, user: UserInfo, requestName: string, deps: EscalationDeps): Store {
  const resource = store.type.resource;
  if (!isEscalationChecked(store.type.group, resource)) return store;
  const guarded = Object.create(store) as Store;
  guarded.createStored = async (namespace, obj, options) => {
    await checkEscalation(deps, user, resource, namespace, requestName, obj);
    return store.createStored(namespace, obj, options);
  };
  guarded.update = (namespace, name, tryUpdate: UpdateFunc, options) => store.update(namespace, name, async (current) => {
    const next = await tryUpdate(current);
    await checkEscalation(deps, user, resource, namespace, requestName, next, current);
    return next;
  }, options);
  return guarded;
}
