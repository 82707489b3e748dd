/** Validation of the resource API group's kinds (kube's pkg/apis/resource/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
