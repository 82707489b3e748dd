/** Validation of the apiextensions API group's kinds (kube's pkg/apis/apiextensions/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { customResourceDefinitionValidation } from './customResourceDefinitions';

export const validation: ValidationTable = {
  customresourcedefinitions: customResourceDefinitionValidation,
};
