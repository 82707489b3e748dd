/** Validation of the rbac API group's kinds (kube's pkg/apis/rbac/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { clusterRoleValidation, roleValidation } from './role';
import { clusterRoleBindingValidation, roleBindingValidation } from './roleBinding';

export const validation: ValidationTable = {
  roles: roleValidation,
  clusterroles: clusterRoleValidation,
  rolebindings: roleBindingValidation,
  clusterrolebindings: clusterRoleBindingValidation,
};
