/** Validation of the apiextensions API group's kinds (kube's pkg/apis/apiextensions/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
