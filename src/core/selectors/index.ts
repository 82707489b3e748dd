/**
 * Label and field selectors, as kube-apiserver parses, validates and matches
 * them for list, watch and deletecollection (`labelSelector`, `fieldSelector`)
 * and for selectors inside objects (workloads, policies, aggregation rules).
 *
 * Everything here returns errors as values: a SelectorError becomes a 400
 * BadRequest Status with its message; FieldError lists become the causes of a
 * 422 Invalid Status.
 */
export { SelectorError, isSelectorError } from './selectorError';
export {
  parseLabelSelector,
  labelSelectorFromObject,
  validateLabelSelector,
  newRequirement,
  requirementToString,
  everythingLabelSelector,
  nothingLabelSelector,
  type LabelSelector,
  type LabelRequirement,
  type LabelOperator,
  type Labels,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
  type LabelSelectorValidationOptions,
} from './labelSelector';
export {
  parseFieldSelector,
  fieldSelectorFromSet,
  everythingFieldSelector,
  escapeFieldValue,
  unescapeFieldValue,
  type FieldSelector,
  type FieldRequirement,
  type FieldOperator,
  type FieldTransform,
  type Fields,
} from './fieldSelector';
export {
  fieldsForObject,
  validateFieldSelector,
  supportedFieldLabels,
  type CustomResourceFields,
  type SelectableFieldOptions,
} from './selectableFields';
// Label and name syntax and field errors are shared with object validation.
export { validateLabels } from '../validation/labels';
export { isQualifiedName, isValidLabelValue, isDNS1123Subdomain } from '../validation/names';
export type { FieldError, FieldErrorType } from '../errors';
