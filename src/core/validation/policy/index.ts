/** Validation of the policy API group's kinds (kube's pkg/apis/policy/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
