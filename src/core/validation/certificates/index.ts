/** Validation of the certificates.k8s.io API group's kinds (kube's pkg/apis/certificates/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { certificateSigningRequestValidation } from './certificateSigningRequest';
import { clusterTrustBundleValidation } from './clusterTrustBundle';

export const validation: ValidationTable = {
  certificatesigningrequests: certificateSigningRequestValidation,
  clustertrustbundles: clusterTrustBundleValidation,
};
