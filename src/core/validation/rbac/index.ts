/** Validation of the rbac API group's kinds (kube's pkg/apis/rbac/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
