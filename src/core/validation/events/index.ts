/** Validation of the events.k8s.io API group's kinds (kube validates them as core Events: ValidateEventCreate), keyed by resource. */
import { eventValidation } from '../core/event';
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {
  events: eventValidation,
};
