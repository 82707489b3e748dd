/** Validation of the networking API group's kinds (kube's pkg/apis/networking/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
