/** The rbac.authorization.k8s.io/v1 shapes the authorizer reads. */
import type { KubeObject } from '../../api/types';

export const rbacGroup = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export type Role = KubeObject & { rules?: PolicyRule[] | null };
export type ClusterRole = Role & { aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } };
export type RoleBinding = KubeObject & { subjects?: Subject[] | null; roleRef: RoleRef };
