/** Validation of the storage.k8s.io API group's kinds (kube's pkg/apis/storage/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { storageClassValidation } from './storageClass';

export const validation: ValidationTable = {
  storageclasses: storageClassValidation,
};
