/** Strategies of the certificates.k8s.io group's resources, keyed by resource (kube's pkg/registry/certificates). */
import type { ResourceStrategy } from '../generic/strategy';
import { certificateSigningRequestStrategy } from './certificateSigningRequests';

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  certificatesigningrequests: certificateSigningRequestStrategy,
};
