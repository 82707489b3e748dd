/** Validation of the coordination API group's kinds (kube's pkg/apis/coordination/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
