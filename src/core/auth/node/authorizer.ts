/**
 * The Node authorizer (plugin/pkg/auth/authorizer/node): for users
 * `system:node:<name>` in group `system:nodes`, reads of Secrets,
 * ConfigMaps, PVCs, PVs and service account tokens are allowed only along a
 * path from a Pod bound to that node; its own Node, its own lease and CSINode
 * are allowed by name; everything else is the static node rule set (the
 * `system:node` role). Writes it allows broadly (pods, pod status, node
 * status) are narrowed by the NodeRestriction admission plugin.
 */
import type { KubeObject } from '../../api/types';
import { isObject } from '../../api/types';
import { bootstrapPolicy } from '../rbac/bootstrap';
import { ruleAllows } from '../rbac/rules';
import type { PolicyRule } from '../rbac/types';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from '../authorizer/types';
import type { UserInfo } from '../user';
import { podReferences } from './graph';

export const nodesGroup = 'system:nodes';
const nodeUserPrefix = 'system:node:';

/** The node a user is, or undefined for non-nodes; '' for a node user whose name cannot be parsed. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return user.username.slice(nodeUserPrefix.length);
}

export interface NodeGraphSource {
  /** Pods whose spec.nodeName is the node. */
  podsOnNode(nodeName: string): Promise<KubeObject[]>;
  getPersistentVolumeClaim(namespace: string, name: string): Promise<KubeObject | undefined>;
}

const allow: AuthorizationResult = { decision: 'Allow', reason: '' };
const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/** The system:node ClusterRole's rules, which every node is allowed besides its graph. */
let staticRules: PolicyRule[] | undefined;
async function nodeRoleRules(): Promise<PolicyRule[]> {
  return (staticRules ??= (await bootstrapPolicy.load()).clusterRoles.find((r) => r.metadata.name === 'system:node')?.rules ?? []);
}

type Vertex = 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceaccount' | 'pod';

export function nodeAuthorizer(source: NodeGraphSource): Authorizer & RuleResolver {
  async function hasPath(nodeName: string, vertex: Vertex, namespace: string, name: string): Promise<boolean> {
    const pods = await source.podsOnNode(nodeName);
    for (const pod of pods) {
      const podNs = pod.metadata.namespace ?? '';
      if (vertex === 'pod') {
        if (podNs === namespace && pod.metadata.name === name) return true;
        continue;
      }
      if (vertex !== 'pv' && podNs !== namespace) continue;
      const refs = podReferences(pod);
      if (vertex === 'secret' && refs.secrets.has(name)) return true;
      if (vertex === 'configmap' && refs.configMaps.has(name)) return true;
      if (vertex === 'serviceaccount' && refs.serviceAccounts.has(name)) return true;
      if (vertex === 'pvc' && refs.pvcs.has(name)) return true;
      if (vertex === 'pv') {
        for (const claim of refs.pvcs) {
          const pvc = await source.getPersistentVolumeClaim(podNs, claim);
          const spec = pvc && isObject(pvc['spec']) ? pvc['spec'] : undefined;
          if (spec?.['volumeName'] === name) return true;
        }
      }
    }
    return false;
  }

  async function related(nodeName: string, vertex: Vertex, attrs: Attributes): Promise<AuthorizationResult> {
    if (!attrs.name) return noOpinion('No Object name found');
    if (await hasPath(nodeName, vertex, attrs.namespace, attrs.name)) return allow;
    return noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  function readNamespaced(nodeName: string, vertex: Vertex, attrs: Attributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return related(nodeName, vertex, attrs);
  }

  function getOnly(nodeName: string, vertex: Vertex, attrs: Attributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return related(nodeName, vertex, attrs);
  }

  function byOwnName(nodeName: string, attrs: Attributes, what: string): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion(`can only get, create, update, patch, or delete a ${what}`);
    // On create the name is not known to the authorizer; NodeRestriction checks it.
    if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion(`can only access ${what} with the same name as the requesting node`);
    return allow;
  }

  function node(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (!attrs.subresource) {
      if (['create', 'update', 'patch'].includes(attrs.verb)) return allow;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        if (attrs.name === nodeName) return allow;
        if (!attrs.name) return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return allow;
    }
    return noOpinion();
  }

  function pod(nodeName: string, attrs: Attributes): Promise<AuthorizationResult> | AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return getOnly(nodeName, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          const scoped = (attrs.fieldSelector ?? '').split(',').some((req) => /^spec\.nodeName==?(.*)$/.exec(req.trim())?.[1] === nodeName);
          return scoped ? allow : noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        if (attrs.verb === 'create' || attrs.verb === 'delete') return allow;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return allow;
        break;
    }
    return noOpinion();
  }

  return {
    name: 'Node',
    async authorize(attrs) {
      const nodeName = nodeIdentity(attrs.user);
      if (nodeName === undefined) return noOpinion();
      if (!nodeName) return noOpinion(`unknown node for user ${JSON.stringify(attrs.user.username)}`);
      if (attrs.isResourceRequest) {
        const gr = `${attrs.apiGroup}/${attrs.resource}`;
        switch (gr) {
          case '/secrets': return readNamespaced(nodeName, 'secret', attrs);
          case '/configmaps': return readNamespaced(nodeName, 'configmap', attrs);
          case '/persistentvolumeclaims': return getOnly(nodeName, 'pvc', attrs);
          case '/persistentvolumes': return getOnly(nodeName, 'pv', attrs);
          case '/serviceaccounts':
            if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
            if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
            return related(nodeName, 'serviceaccount', attrs);
          case 'coordination.k8s.io/leases':
            if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
            if (attrs.namespace !== 'kube-node-lease') return noOpinion('can only access leases in the "kube-node-lease" system namespace');
            if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
            return allow;
          case 'storage.k8s.io/csinodes': return byOwnName(nodeName, attrs, 'CSINode');
          case '/nodes': return node(nodeName, attrs);
          case '/pods': return pod(nodeName, attrs);
        }
      }
      return (await nodeRoleRules()).some((r) => ruleAllows(attrs, r)) ? allow : noOpinion();
    },
    rulesFor(user): RulesResult {
      if (nodeIdentity(user) !== undefined) return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' };
      return { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}
