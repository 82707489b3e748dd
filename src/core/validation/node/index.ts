/** Validation of the node API group's kinds (kube's pkg/apis/node/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
