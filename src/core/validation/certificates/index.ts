/** Validation of the certificates API group's kinds (kube's pkg/apis/certificates/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
