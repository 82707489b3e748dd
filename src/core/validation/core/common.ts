/**
 * Small pieces pkg/apis/core/validation uses everywhere: typed reads of
 * decoded JSON, ValidateNonnegativeField, the DNS name checks that report
 * at a field, range messages. No regex is compiled per call.
 */
import { isObject } from '../../api/types';
import { invalid, type FieldError } from '../../errors';
import type { Path } from '../field';
import { isDNS1123Label, isDNS1123Subdomain } from '../names';

export type Obj = Record<string, unknown>;

export const obj = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
/** Items of a list that are objects, with their index (others were rejected by decoding). */
export function objects(v: unknown): [Obj, number][] {
  const out: [Obj, number][] = [];
  if (!Array.isArray(v)) return out;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (isObject(x)) out.push([x, i]);
  }
  return out;
}

/** Appends a check's errors (most checks find none: no spread call for an empty list). */
export function append(errs: FieldError[], more: readonly FieldError[]): void {
  for (let i = 0; i < more.length; i++) errs.push(more[i]!);
}

export const isNegativeErrorMsg = 'must be greater than or equal to 0';
export const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;
export const fieldImmutableErrorMsg = 'field is immutable';
export const maxInt32 = 2147483647;

/** ValidateNonnegativeField; absent values are zero, as Go's zero value. */
export function validateNonnegativeField(value: unknown, fld: Path): FieldError[] {
  const n = num(value) ?? 0;
  return n < 0 ? [invalid(String(fld), n, isNegativeErrorMsg)] : [];
}

export function validateDNS1123Label(value: string, fld: Path): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(String(fld), value, m));
}

export function validateDNS1123Subdomain(value: string, fld: Path): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => invalid(String(fld), value, m));
}

/** A Go-printed value shown verbatim in the message. */
export function invalidText(fld: Path | string, valueText: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: String(fld), valueText, detail };
}

export const notFound = (fld: Path | string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: String(fld), value, showValue: true });

/** IsValidPortNum */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

const portNameCharsetRe = /^[-a-z0-9]+$/;
const portNameOneLetterRe = /[a-z]/;

/** IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!portNameCharsetRe.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  else if (!portNameOneLetterRe.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName: an IntOrString port of a probe or handler. */
export function validatePortNumOrName(port: unknown, fld: Path): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(String(fld), port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(String(fld), port, m));
  return isValidPortNum(0).map((m) => invalid(String(fld), 0, m));
}

/** validatePathNoBacksteps */
export function validatePathNoBacksteps(target: string, fld: Path): FieldError[] {
  return target.split('/').includes('..') ? [invalid(String(fld), target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, no '..' segments. */
export function validateLocalDescendingPath(target: string, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalid(String(fld), target, 'must be a relative path'));
  errs.push(...validatePathNoBacksteps(target, fld));
  return errs;
}

/** ValidateLocalNonReservedPath: a descending path that does not start with '..'. */
export function validateLocalNonReservedPath(target: string, fld: Path): FieldError[] {
  const errs = validateLocalDescendingPath(target, fld);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(invalid(String(fld), target, "must not start with '..'"));
  return errs;
}

const ipv4Re = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A textual IPv4 or IPv6 address (netutils.ParseIPSloppy accepting). */
export function isIP(value: string): boolean {
  if (ipv4Re.test(value)) return true;
  if (!value.includes(':')) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}
