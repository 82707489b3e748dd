/** Validation of the apps group's kinds (kube's pkg/apis/apps/validation), keyed by resource. */
import { isObject } from '../../api/types';
import { required, type FieldError } from '../../errors';
import type { ValidationTable } from '../kinds';

export const validation: ValidationTable = {
  deployments: {
    validate(obj) {
      const spec = isObject(obj['spec']) ? obj['spec'] : {};
      const errs: FieldError[] = [];
      if (!isObject(spec['selector'])) errs.push(required('spec.selector'));
      if (!isObject(spec['template'])) errs.push(required('spec.template'));
      return errs;
    },
  },
};
