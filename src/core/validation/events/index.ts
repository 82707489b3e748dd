/** Validation of the events API group's kinds (kube's pkg/apis/events/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {};
