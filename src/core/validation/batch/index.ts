/** Validation of the batch API group's kinds (kube's pkg/apis/batch/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
