export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Why a patch could not be applied, with the status the server answers. */
export interface PatchError {
  code: 400 | 413 | 422 | 500;
  reason: 'BadRequest' | 'RequestEntityTooLarge' | 'Invalid' | 'InternalError';
  message: string;
  /** The underlying library's explanation, for traces (the Status may not carry it). */
  detail?: string;
}

export type PatchResult = { ok: true; object: JsonObject } | { ok: false; error: PatchError };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function badRequest(message: string): { ok: false; error: PatchError } {
  return { ok: false, error: { code: 400, reason: 'BadRequest', message } };
}

export function internal(message: string): { ok: false; error: PatchError } {
  return { ok: false, error: { code: 500, reason: 'InternalError', message } };
}

/** A value printed as Go's %v prints decoded JSON (`map[a:1 b:[x y]]`). */
export function goString(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goString).join(' ')}]`;
  if (typeof v === 'object') {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goString(v[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}
