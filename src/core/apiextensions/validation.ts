/** Validation of custom objects against their CRD version's schema. */
import type { KubeObject } from '../api/types';
import type { FieldError } from '../errors';
import type { CustomResourceInfo } from './resources';

export function validateCustomResource(_info: CustomResourceInfo, _obj: KubeObject): FieldError[] {
  return [];
}

export function validateCustomResourceUpdate(_info: CustomResourceInfo, _obj: KubeObject, _old: KubeObject): FieldError[] {
  return [];
}
