/** Role and ClusterRole validation (ValidateRole / ValidateClusterRole): every rule, and a ClusterRole's aggregation selectors. */
import { required, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { arr, objs, optObj, type Obj } from '../values';
import { validatePolicyRule } from './policyRule';

function validateRules(role: Obj, namespaced: boolean): FieldError[] {
  return objs(role, 'rules').flatMap((r, i) => validatePolicyRule(r, namespaced, newPath('rules').index(i)));
}

function validateClusterRole(role: Obj): FieldError[] {
  const errs = validateRules(role, false);
  const aggregation = optObj(role, 'aggregationRule');
  if (aggregation) {
    const selectors = arr(aggregation, 'clusterRoleSelectors');
    const fld = newPath('aggregationRule', 'clusterRoleSelectors');
    if (selectors.length === 0) errs.push(required(String(fld), 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, {}, fld.index(i))));
  }
  return errs;
}

export const roleValidation: KindValidation = {
  validate: (role) => validateRules(role, true),
  validateUpdate: (role) => validateRules(role, true),
};

export const clusterRoleValidation: KindValidation = {
  validate: (role) => validateClusterRole(role),
  validateUpdate: (role) => validateClusterRole(role),
};
