/** Validation of the discovery API group's kinds (kube's pkg/apis/discovery/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
