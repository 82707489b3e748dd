/** Validation of the scheduling.k8s.io API group's kinds (kube's pkg/apis/scheduling/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { priorityClassValidation } from './priorityClass';

export const validation: ValidationTable = {
  priorityclasses: priorityClassValidation,
};
