/** Validation of the admissionregistration.k8s.io API group's kinds (kube's pkg/apis/admissionregistration/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { mutatingAdmissionPolicyBindingValidation, mutatingAdmissionPolicyValidation } from './mutatingAdmissionPolicy';
import { validatingAdmissionPolicyBindingValidation, validatingAdmissionPolicyValidation } from './validatingAdmissionPolicy';
import { mutatingWebhookConfigurationValidation, validatingWebhookConfigurationValidation } from './webhookConfiguration';

export const validation: ValidationTable = {
  validatingwebhookconfigurations: validatingWebhookConfigurationValidation,
  mutatingwebhookconfigurations: mutatingWebhookConfigurationValidation,
  validatingadmissionpolicies: validatingAdmissionPolicyValidation,
  validatingadmissionpolicybindings: validatingAdmissionPolicyBindingValidation,
  mutatingadmissionpolicies: mutatingAdmissionPolicyValidation,
  mutatingadmissionpolicybindings: mutatingAdmissionPolicyBindingValidation,
};
