/**
 * Validation of the meta/v1 types other kinds embed (k8s.io/apimachinery/pkg/apis/meta/v1/validation):
 * label selectors and their requirements, label names.
 */
import { isObject } from '../api/types';
import { forbidden, invalid, required, type FieldError } from '../errors';
import type { Path } from './field';
import { validateLabels } from './labels';
import { isQualifiedName, isValidLabelValue } from './names';

export interface LabelSelectorValidationOptions {
  /** Allow values that are not valid label values (only for objects stored before the check existed). */
  allowInvalidLabelValueInSelector?: boolean;
}

/** ValidateLabelName: a label key is a qualified name. */
export function validateLabelName(name: string, fld: Path): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(String(fld), name, m));
}

/** ValidateLabelSelectorRequirement */
export function validateLabelSelectorRequirement(req: Record<string, unknown>, opts: LabelSelectorValidationOptions, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const values = Array.isArray(req['values']) ? (req['values'] as unknown[]) : [];
  const operator = req['operator'];
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(String(fld.child('values')), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(String(fld.child('values')), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      errs.push(invalid(String(fld.child('operator')), operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(typeof req['key'] === 'string' ? req['key'] : '', fld.child('key')));
  if (!opts.allowInvalidLabelValueInSelector) {
    values.forEach((v, i) => {
      for (const m of isValidLabelValue(String(v))) errs.push(invalid(String(fld.child('values').index(i)), v, m));
    });
  }
  return errs;
}

/** ValidateLabelSelector: matchLabels as labels, each matchExpressions entry as a requirement. Absent is valid. */
export function validateLabelSelector(selector: unknown, opts: LabelSelectorValidationOptions, fld: Path): FieldError[] {
  if (!isObject(selector)) return [];
  const errs = validateLabels(selector['matchLabels'], String(fld.child('matchLabels')));
  const exprs = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  exprs.forEach((e, i) => {
    if (isObject(e)) errs.push(...validateLabelSelectorRequirement(e, opts, fld.child('matchExpressions').index(i)));
  });
  return errs;
}
