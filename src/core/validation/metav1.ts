/**
 * Validation of the meta/v1 types other kinds embed (k8s.io/apimachinery/pkg/apis/meta/v1/validation):
 * label selectors and their requirements, label names.
 */
import { isObject } from '../api/types';
import { forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../errors';
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

const conditionStatuses = ['False', 'True', 'Unknown'];
const conditionReasonFmt = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const conditionReasonRe = new RegExp(`^${conditionReasonFmt}$`);
const conditionReasonMsg =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' " +
  `(e.g. 'CamelCase',  or 'CamelCase,WithCommas',  or 'CamelCase:WithColons', regex used for validation is '${conditionReasonFmt}')`;

/** ValidateConditions: metav1.Condition lists (type unique and a label name, status, reason, transition time). */
export function validateConditions(conditions: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(conditions) ? conditions : []).forEach((c: unknown, i) => {
    const cond = isObject(c) ? c : {};
    const p = fld.index(i);
    const s = (k: string) => (typeof cond[k] === 'string' ? (cond[k] as string) : '');
    const type = s('type');
    if (seen.has(type)) errs.push({ type: 'FieldValueDuplicate', field: String(p.child('type')), value: type });
    seen.add(type);
    errs.push(...validateLabelName(type, p.child('type')));
    if (!conditionStatuses.includes(s('status'))) errs.push(notSupported(String(p.child('status')), s('status'), conditionStatuses));
    const generation = typeof cond['observedGeneration'] === 'number' ? cond['observedGeneration'] : 0;
    if (generation < 0) errs.push(invalid(String(p.child('observedGeneration')), generation, 'must be greater than or equal to zero'));
    if (!s('lastTransitionTime')) errs.push(required(String(p.child('lastTransitionTime')), 'must be set'));
    const reason = s('reason');
    if (!reason) errs.push(required(String(p.child('reason')), 'must be set'));
    else {
      if (!conditionReasonRe.test(reason)) errs.push(invalid(String(p.child('reason')), reason, conditionReasonMsg));
      if (reason.length > 1024) errs.push(tooLong(String(p.child('reason')), reason, 1024));
    }
    if (s('message').length > 32768) errs.push(tooLong(String(p.child('message')), s('message'), 32768));
  });
  return errs;
}
