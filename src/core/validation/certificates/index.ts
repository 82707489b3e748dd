/**
 * Validation of the certificates.k8s.io API group's kinds (kube's
 * pkg/apis/certificates/validation), keyed by resource, and the PKCS#10
 * parsing (certificates.ParseCSR) admission and the signer share.
 */
import type { ValidationTable } from '../kinds';
import { certificateSigningRequestValidation } from './certificateSigningRequest';

export { checkCertificateRequests } from './certificateSigningRequest';
export { checkSignature, parseCSR, pemBlocks } from './csr';
import { clusterTrustBundleValidation } from './clusterTrustBundle';

export const validation: ValidationTable = {
  certificatesigningrequests: certificateSigningRequestValidation,
  clustertrustbundles: clusterTrustBundleValidation,
};
