/**
 * Field errors, as k8s.io/apimachinery/pkg/util/validation/field: validation
 * returns a list of these (it never throws), and errors/status turns the list
 * into a 422 Invalid Status with one cause per error.
 */
import { goQuote } from './goFormat';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value, when the error type shows one. */
  value?: unknown;
  detail?: string;
  /** Whether `value` is shown in the message (omitted for Required/Forbidden/...). */
  showValue?: boolean;
  /** The value already rendered the way Go prints it (e.g. `[]string{"Foo"}`), shown verbatim. */
  valueText?: string;
}

/** Renders a value the way Go's field.Error does: strings with %q, numbers bare. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** The message without the field path: `Invalid value: "X": detail`. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  const showValue = e.showValue ?? (e.type === 'FieldValueInvalid' || e.type === 'FieldValueNotSupported' || e.type === 'FieldValueDuplicate' || e.type === 'FieldValueTypeInvalid');
  if (e.valueText !== undefined) s += `: ${e.valueText}`;
  else if (showValue && e.value !== undefined) s += `: ${formatValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * ErrorList.ToAggregate().Error(): messages de-duplicated, one alone, several
 * inside brackets; '' for none.
 */
export function fieldErrorsAggregate(errs: readonly FieldError[]): string {
  const seen: string[] = [];
  for (const e of errs) {
    const msg = fieldErrorString(e);
    if (!seen.includes(msg)) seen.push(msg);
  }
  return seen.length === 1 ? seen[0]! : seen.length ? `[${seen.join(', ')}]` : '';
}

export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field, value, detail });
export const forbidden = (field: string, detail = ''): FieldError => ({ type: 'FieldValueForbidden', field, detail });
export const duplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value });
export const tooLong = (field: string, value: unknown, max: number): FieldError => ({ type: 'FieldValueTooLong', field, value, detail: `may not be more than ${max} bytes`, showValue: false });
export function notSupported(field: string, value: unknown, valid: string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, value, detail };
}
