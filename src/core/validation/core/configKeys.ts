/** Keys of ConfigMap and Secret data (validation.IsConfigMapKey) and the size of their values. */
import { invalid, type FieldError } from '../../errors';
import type { Path } from '../field';

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

/** core.MaxSecretSize, also the limit on a ConfigMap's data. */
export const maxSecretSize = 1024 * 1024;

export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!configMapKeyRe.test(key)) {
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${configMapKeyFmt}')`,
    );
  }
  // hasChDirPrefix: keys become file names in volumes.
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Invalid errors for every bad key of a data map, at `<fld>[<key>]`. */
export function validateConfigKeys(map: Record<string, unknown>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(map)) for (const m of isConfigMapKey(key)) errs.push(invalid(String(fld.key(key)), key, m));
  return errs;
}

/** Bytes a base64 value decodes to ([]byte fields travel as base64 in JSON). */
export function base64Size(v: unknown): number {
  if (typeof v !== 'string') return 0;
  const s = v.replace(/\s+/g, '');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

/** Bytes of a string value (Go's len on a UTF-8 string). */
export function utf8Size(v: unknown): number {
  return typeof v === 'string' ? new TextEncoder().encode(v).length : 0;
}
