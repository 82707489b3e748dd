/** Validation of the admissionregistration API group's kinds (kube's pkg/apis/admissionregistration/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
