/**
 * Secret validation (ValidateSecret / ValidateSecretUpdate): data keys, the
 * 1 MiB limit, the keys each built-in type requires, and immutability.
 * stringData is validated as part of data: the v1 conversion merges it in
 * before kube-apiserver validates.
 */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, required, tooLong, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { obj, str, validateImmutableField, type Obj } from '../values';
import { base64Size, maxSecretSize, utf8Size, validateConfigKeys } from './configKeys';

const immutableMsg = 'field is immutable when `immutable` is set';
const redacted = '<secret contents redacted>';

/** The Secret's data as kube-apiserver sees it: decoded bytes per key, stringData merged over data. */
function mergedData(secret: Obj): Map<string, Uint8Array | string> {
  const out = new Map<string, Uint8Array | string>();
  for (const [k, v] of Object.entries(obj(secret, 'data'))) out.set(k, typeof v === 'string' ? decodeBase64(v) : new Uint8Array());
  for (const [k, v] of Object.entries(obj(secret, 'stringData'))) out.set(k, typeof v === 'string' ? v : '');
  return out;
}

function decodeBase64(v: string): Uint8Array {
  try {
    return Uint8Array.from(atob(v.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(base64Size(v));
  }
}

const sizeOf = (v: Uint8Array | string): number => (typeof v === 'string' ? utf8Size(v) : v.length);
const textOf = (v: Uint8Array | string): string => (typeof v === 'string' ? v : new TextDecoder().decode(v));

/** What Go's json.Unmarshal into map[string]interface{} says about text that is not a JSON object. */
function goJSONObjectError(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const trimmed = text.trimStart();
    if (trimmed === '') return 'unexpected end of JSON input';
    const c = trimmed[0]!;
    if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c}' looking for beginning of value`;
    return 'unexpected end of JSON input';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const goType = Array.isArray(parsed) ? 'array' : typeof parsed === 'string' ? 'string' : typeof parsed === 'number' ? 'number' : 'bool';
  return `json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`;
}

function validateSecret(secret: Obj): FieldError[] {
  const dataPath = newPath('data');
  const data = mergedData(secret);
  const errs = validateConfigKeys(Object.fromEntries(data), dataPath);
  let total = 0;
  for (const v of data.values()) total += sizeOf(v);
  if (total > maxSecretSize) errs.push(tooLong(String(dataPath), '', maxSecretSize));

  const need = (key: string) => errs.push(required(String(dataPath.key(key))));
  const jsonKey = (key: string) => {
    const v = data.get(key);
    if (v === undefined) return need(key);
    const msg = goJSONObjectError(textOf(v));
    if (msg) errs.push(invalid(String(dataPath.key(key)), redacted, msg));
  };
  switch (str(secret, 'type')) {
    case 'kubernetes.io/service-account-token': {
      const annotations = obj(secret['metadata'], 'annotations');
      if (!str(annotations, 'kubernetes.io/service-account.name')) {
        errs.push(required(String(newPath('metadata', 'annotations').key('kubernetes.io/service-account.name'))));
      }
      break;
    }
    case 'kubernetes.io/dockercfg':
      jsonKey('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      jsonKey('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one of them must be present.
      if (!data.has('username') && !data.has('password')) {
        need('username');
        need('password');
      }
      break;
    case 'kubernetes.io/ssh-auth': {
      const key = data.get('ssh-privatekey');
      if (!key || sizeOf(key) === 0) need('ssh-privatekey');
      break;
    }
    case 'kubernetes.io/tls':
      if (!data.has('tls.crt')) need('tls.crt');
      if (!data.has('tls.key')) need('tls.key');
      break;
  }
  return errs;
}

/** type defaults to Opaque. */
const typeOf = (secret: Obj): string => str(secret, 'type') || 'Opaque';

export const secretValidation: KindValidation = {
  validate: (secret) => validateSecret(secret),
  validateUpdate(secret, old) {
    const errs = validateImmutableField(typeOf(secret), typeOf(old), newPath('type'));
    if (old['immutable'] === true) {
      if (secret['immutable'] !== true) errs.push(forbidden('immutable', immutableMsg));
      const next = Object.fromEntries([...mergedData(secret)].map(([k, v]) => [k, textOf(v)]));
      const prev = Object.fromEntries([...mergedData(old)].map(([k, v]) => [k, textOf(v)]));
      if (!jsonEqual(next, prev)) errs.push(forbidden('data', immutableMsg));
    }
    return [...errs, ...validateSecret(secret)];
  },
};
