import { badRequest, isObject, type JsonObject, type JsonValue, type PatchResult } from './types';

/**
 * RFC 7386 JSON merge patch: objects merge key by key, null deletes a key,
 * anything else (lists included) replaces. The patch must be an object here,
 * since the result has to stay an object.
 */
export function applyMergePatch(original: JsonObject, patch: unknown): PatchResult {
  if (patch === null || patch === undefined) return badRequest('Invalid JSON Patch');
  if (!isObject(patch)) {
    const what = Array.isArray(patch) ? 'array' : typeof patch;
    return badRequest(`json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  return { ok: true, object: mergeObject(original, patch) };
}

function mergeObject(target: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isObject(v)) out[k] = mergeObject(isObject(out[k]) ? (out[k] as JsonObject) : {}, v);
    else out[k] = pruneNulls(v);
  }
  return out;
}

/** Values placed wholesale carry no nulls (RFC 7386 drops them from new objects). */
function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
    return out;
  }
  return v;
}
