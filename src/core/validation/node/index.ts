/** Validation of the node.k8s.io API group's kinds (kube's pkg/apis/node/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { runtimeClassValidation } from './runtimeClass';

export const validation: ValidationTable = {
  runtimeclasses: runtimeClassValidation,
};
