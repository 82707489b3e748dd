/** Validation of the core (legacy) group's kinds (kube's pkg/apis/core/validation), keyed by resource. */
import { isObject } from '../../api/types';
import { required, type FieldError } from '../../errors';
import type { ValidationTable } from '../kinds';
import { configMapValidation } from './configMap';
import { endpointsValidation } from './endpoints';
import { eventValidation } from './event';
import { limitRangeValidation } from './limitRange';
import { namespaceValidation } from './namespace';
import { nodeValidation } from './node';
import { persistentVolumeValidation } from './persistentVolume';
import { persistentVolumeClaimValidation } from './persistentVolumeClaim';
import { resourceQuotaValidation } from './resourceQuota';
import { secretValidation } from './secret';

export const validation: ValidationTable = {
  configmaps: configMapValidation,
  endpoints: endpointsValidation,
  events: eventValidation,
  limitranges: limitRangeValidation,
  namespaces: namespaceValidation,
  nodes: nodeValidation,
  persistentvolumeclaims: persistentVolumeClaimValidation,
  persistentvolumes: persistentVolumeValidation,
  resourcequotas: resourceQuotaValidation,
  secrets: secretValidation,
  pods: {
    validate(obj) {
      const errs: FieldError[] = [];
      const spec = obj['spec'];
      if (!isObject(spec)) return [required('spec')];
      const containers = spec['containers'];
      if (!Array.isArray(containers) || containers.length === 0) errs.push(required('spec.containers'));
      else containers.forEach((c, i) => {
        if (!isObject(c) || !c['name']) errs.push(required(`spec.containers[${i}].name`));
        if (!isObject(c) || !c['image']) errs.push(required(`spec.containers[${i}].image`));
      });
      return errs;
    },
  },
};
