/**
 * Label maps (metav1validation.ValidateLabels): every key must be a qualified
 * name and every value a label value; one field error per message, all at the
 * map's own path, as kube-apiserver reports them.
 */
import { invalid, type FieldError } from '../errors';
import { isQualifiedName, isValidLabelValue } from './names';

export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null) return errs;
  const map = labels as Record<string, unknown>;
  for (const k in map) {
    const v = map[k];
    for (const m of isQualifiedName(k)) errs.push(invalid(field, k, m));
    if (typeof v !== 'string') errs.push(invalid(field, v, 'label values must be strings'));
    else for (const m of isValidLabelValue(v)) errs.push(invalid(field, v, m));
  }
  return errs;
}
