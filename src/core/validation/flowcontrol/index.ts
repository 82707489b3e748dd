/** Validation of the flowcontrol API group's kinds (kube's pkg/apis/flowcontrol/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
