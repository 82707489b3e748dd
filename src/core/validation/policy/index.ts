/** Validation of the policy API group's kinds (kube's pkg/apis/policy/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { podDisruptionBudgetValidation } from './podDisruptionBudget';

export const validation: ValidationTable = {
  poddisruptionbudgets: podDisruptionBudgetValidation,
};
