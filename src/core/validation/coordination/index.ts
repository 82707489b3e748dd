/** Validation of the coordination.k8s.io API group's kinds (kube's pkg/apis/coordination/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { leaseValidation } from './lease';
import { leaseCandidateValidation } from './leaseCandidate';

export const validation: ValidationTable = {
  leases: leaseValidation,
  leasecandidates: leaseCandidateValidation,
};
