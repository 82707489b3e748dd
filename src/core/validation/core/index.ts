/** Validation of the core (legacy) group's kinds (kube's pkg/apis/core/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { podTemplateValidation, podValidation, replicationControllerValidation } from './pod';
import { serviceValidation } from './service';

export const validation: ValidationTable = {
  pods: podValidation,
  podtemplates: podTemplateValidation,
  replicationcontrollers: replicationControllerValidation,
  services: serviceValidation,
};
