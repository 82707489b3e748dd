/** Validation of the apps group's kinds (kube's pkg/apis/apps/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { daemonSetValidation } from './daemonSet';
import { deploymentValidation } from './deployment';
import { replicaSetValidation } from './replicaSet';
import { statefulSetValidation } from './statefulSet';

export const validation: ValidationTable = {
  daemonsets: daemonSetValidation,
  deployments: deploymentValidation,
  replicasets: replicaSetValidation,
  statefulsets: statefulSetValidation,
};
