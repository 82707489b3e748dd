/** Validation of the apiregistration.k8s.io API group's kinds (kube-aggregator's pkg/apis/apiregistration/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { apiServiceValidation } from './apiService';

export const validation: ValidationTable = {
  apiservices: apiServiceValidation,
};
