/** Validation of the scheduling API group's kinds (kube's pkg/apis/scheduling/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
