/** Validation of the flowcontrol.apiserver.k8s.io API group's kinds (kube's pkg/apis/flowcontrol/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { flowSchemaValidation } from './flowSchema';
import { priorityLevelConfigurationValidation } from './priorityLevelConfiguration';

export const validation: ValidationTable = {
  flowschemas: flowSchemaValidation,
  prioritylevelconfigurations: priorityLevelConfigurationValidation,
};
