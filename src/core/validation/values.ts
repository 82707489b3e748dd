/**
 * Reading unstructured objects the way validation needs them (a field that is
 * absent or of the wrong shape reads as Go's zero value), and the generic
 * checks of k8s.io/apimachinery/pkg/api/validation shared by every group.
 */
import { jsonEqual } from '../api/equality';
import { isObject } from '../api/types';
import { invalid, type FieldError } from '../errors';
import type { Path } from './field';

export type Obj = Record<string, unknown>;

/** The object at key, or {} (a nil struct reads as its zero value). */
export const obj = (o: unknown, key: string): Obj => (isObject(o) && isObject(o[key]) ? o[key] : {});
/** The object at key, or undefined when absent (a nil pointer). */
export const optObj = (o: unknown, key: string): Obj | undefined => (isObject(o) && isObject(o[key]) ? o[key] : undefined);
export const str = (o: unknown, key: string): string => (isObject(o) && typeof o[key] === 'string' ? o[key] : '');
export const optStr = (o: unknown, key: string): string | undefined => (isObject(o) && typeof o[key] === 'string' ? o[key] : undefined);
export const num = (o: unknown, key: string): number => (isObject(o) && typeof o[key] === 'number' ? o[key] : 0);
export const optNum = (o: unknown, key: string): number | undefined => (isObject(o) && typeof o[key] === 'number' ? o[key] : undefined);
export const arr = (o: unknown, key: string): unknown[] => (isObject(o) && Array.isArray(o[key]) ? o[key] : []);
export const strs = (o: unknown, key: string): string[] => arr(o, key).map((v) => (typeof v === 'string' ? v : String(v)));
export const objs = (o: unknown, key: string): Obj[] => arr(o, key).map((v) => (isObject(v) ? v : {}));
export const has = (o: unknown, key: string): boolean => isObject(o) && o[key] !== undefined && o[key] !== null;

export const fieldImmutableErrorMsg = 'field is immutable';

/** ValidateImmutableField: `Invalid value: <new>: field is immutable` when the value changed. */
export function validateImmutableField(next: unknown, old: unknown, fld: Path, valueText?: string): FieldError[] {
  if (jsonEqual(next ?? null, old ?? null)) return [];
  const e = invalid(String(fld), next ?? null, fieldImmutableErrorMsg);
  return [valueText === undefined ? e : { ...e, valueText }];
}

/** ValidateNonnegativeField */
export function validateNonnegativeField(value: number, fld: Path): FieldError[] {
  return value < 0 ? [invalid(String(fld), value, 'must be greater than or equal to 0')] : [];
}

/** An invalid value shown the way Go's %#v shows it (structs, slices). */
export function invalidText(fld: Path, valueText: string, detail: string): FieldError {
  return { ...invalid(String(fld), null, detail), valueText };
}

/** IsValidPortNum */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

const portNameCharsetRe = /^[-a-z0-9]+$/;
const portNameOneLetterRe = /[a-z]/;

/** IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!portNameCharsetRe.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!portNameOneLetterRe.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push("must not begin or end with a hyphen");
  return errs;
}
