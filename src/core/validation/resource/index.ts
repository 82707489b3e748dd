/** Validation of the resource API group's kinds (kube's pkg/apis/resource/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { deviceClassValidation } from './deviceClass';
import { resourceClaimTemplateValidation, resourceClaimValidation } from './resourceClaim';
import { resourceSliceValidation } from './resourceSlice';

export const validation: ValidationTable = {
  deviceclasses: deviceClassValidation,
  resourceclaims: resourceClaimValidation,
  resourceclaimtemplates: resourceClaimTemplateValidation,
  resourceslices: resourceSliceValidation,
};
