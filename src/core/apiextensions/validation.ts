/**
 * Validation of custom objects (apiextensions-apiserver's customResourceValidator):
 * the version's structural schema, then its x-kubernetes-validations rules
 * (transition rules see the old object on update).
 */
import type { KubeObject } from '../api/types';
import type { FieldError } from '../errors';
import { validateRules } from './celRules';
import type { CustomResourceInfo } from './resources';
import { validateAgainstSchema } from './schemaValidation';

export function validateCustomResource(info: CustomResourceInfo, obj: KubeObject): FieldError[] {
  if (!info.schema) return [];
  const errs = validateAgainstSchema(info.schema, obj);
  // CEL rules run only on schema-valid objects, as kube skips them after schema errors.
  if (errs.length) return errs;
  return validateRules(info.schema, obj, undefined);
}

export function validateCustomResourceUpdate(info: CustomResourceInfo, obj: KubeObject, old: KubeObject): FieldError[] {
  if (!info.schema) return [];
  const errs = validateAgainstSchema(info.schema, obj);
  if (errs.length) return errs;
  return validateRules(info.schema, obj, old);
}
