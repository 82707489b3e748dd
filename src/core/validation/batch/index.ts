/** Validation of the batch API group's kinds (kube's pkg/apis/batch/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { cronJobValidation } from './cronJob';
import { jobValidation } from './job';

export const validation: ValidationTable = {
  cronjobs: cronJobValidation,
  jobs: jobValidation,
};
