/** Validation of the autoscaling API group's kinds (kube's pkg/apis/autoscaling/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { horizontalPodAutoscalerValidation } from './horizontalPodAutoscaler';

export const validation: ValidationTable = {
  horizontalpodautoscalers: horizontalPodAutoscalerValidation,
};
