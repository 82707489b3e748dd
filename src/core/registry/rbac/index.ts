/** rbac.authorization.k8s.io (pkg/apis/rbac/v1/defaults.go): the scheme's defaults for role bindings. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

const GROUP = 'rbac.authorization.k8s.io';

/** SetDefaults_Subject: users and groups are RBAC's (a ServiceAccount's is core's "", which encodes as no apiGroup). */
function defaultSubject(subject: Record<string, unknown>): void {
  if (!subject['apiGroup'] && (subject['kind'] === 'User' || subject['kind'] === 'Group')) subject['apiGroup'] = GROUP;
}

/**
 * SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding: a roleRef
 * without an apiGroup refers to RBAC's Role or ClusterRole; and each subject's.
 */
function defaultBinding(obj: KubeObject): void {
  const roleRef = isObject(obj['roleRef']) ? obj['roleRef'] : (obj['roleRef'] = {});
  if (!roleRef['apiGroup']) roleRef['apiGroup'] = GROUP;
  if (Array.isArray(obj['subjects'])) for (const s of obj['subjects']) if (isObject(s)) defaultSubject(s);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  rolebindings: { defaulter: defaultBinding },
  clusterrolebindings: { defaulter: defaultBinding },
};
