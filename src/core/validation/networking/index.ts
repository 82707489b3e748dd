/** Validation of the networking.k8s.io API group's kinds (kube's pkg/apis/networking/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { ingressValidation } from './ingress';
import { ingressClassValidation } from './ingressClass';
import { ipAddressValidation } from './ipAddress';
import { networkPolicyValidation } from './networkPolicy';
import { serviceCIDRValidation } from './serviceCIDR';

export const validation: ValidationTable = {
  ingresses: ingressValidation,
  ingressclasses: ingressClassValidation,
  networkpolicies: networkPolicyValidation,
  servicecidrs: serviceCIDRValidation,
  ipaddresses: ipAddressValidation,
};
