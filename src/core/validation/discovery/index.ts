/** Validation of the discovery.k8s.io API group's kinds (kube's pkg/apis/discovery/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { endpointSliceValidation } from './endpointSlice';

export const validation: ValidationTable = {
  endpointslices: endpointSliceValidation,
};
