/** Validation of the core (legacy) group's kinds (kube's pkg/apis/core/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { configMapValidation } from './configMap';
import { endpointsValidation } from './endpoints';
import { eventValidation } from './event';
import { limitRangeValidation } from './limitRange';
import { namespaceValidation } from './namespace';
import { nodeValidation } from './node';
import { persistentVolumeValidation } from './persistentVolume';
import { persistentVolumeClaimValidation } from './persistentVolumeClaim';
import { podTemplateValidation, podValidation, replicationControllerValidation } from './pod';
import { resourceQuotaValidation } from './resourceQuota';
import { secretValidation } from './secret';
import { serviceValidation } from './service';

export const validation: ValidationTable = {
  configmaps: configMapValidation,
  endpoints: endpointsValidation,
  events: eventValidation,
  limitranges: limitRangeValidation,
  namespaces: namespaceValidation,
  nodes: nodeValidation,
  persistentvolumeclaims: persistentVolumeClaimValidation,
  persistentvolumes: persistentVolumeValidation,
  pods: podValidation,
  podtemplates: podTemplateValidation,
  replicationcontrollers: replicationControllerValidation,
  resourcequotas: resourceQuotaValidation,
  secrets: secretValidation,
  services: serviceValidation,
};
