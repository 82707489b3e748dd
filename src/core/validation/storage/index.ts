/** Validation of the storage API group's kinds (kube's pkg/apis/storage/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
