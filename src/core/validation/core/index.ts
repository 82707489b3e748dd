/** Validation of the core (legacy) group's kinds (kube's pkg/apis/core/validation), keyed by resource. */
import { isObject } from '../../api/types';
import { required, type FieldError } from '../../errors';
import type { ValidationTable } from '../kinds';
import { serviceValidation } from './service';

export const validation: ValidationTable = {
  services: serviceValidation,
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
