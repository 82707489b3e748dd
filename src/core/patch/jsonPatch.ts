import fastJsonPatch, { type Operation } from 'fast-json-patch';

// The package is CommonJS: named imports only work under a bundler, so take them off the default export.
const { applyPatch, JsonPatchError } = fastJsonPatch;
import { badRequest, isObject, type JsonObject, type PatchResult } from './types';

/** Upper bound the server puts on operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

const REJECTED = 'the server rejected our request due to an error in our request';

/**
 * RFC 6902 JSON patch, applied atomically: if any operation fails (a failing
 * `test` included) the object is left as it was and the patch is rejected
 * with 422 Invalid, as the server does.
 */
export function applyJSONPatch(original: JsonObject, patch: unknown): PatchResult {
  if (!Array.isArray(patch)) {
    const what = patch === null ? 'null' : isObject(patch) ? 'object' : typeof patch;
    return badRequest(`json: cannot unmarshal ${what} into Go value of type jsonpatch.Patch`);
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    return {
      ok: false,
      error: {
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
      },
    };
  }
  for (const op of patch) {
    if (!isObject(op)) return badRequest('json: cannot unmarshal into Go value of type jsonpatch.Operation');
  }
  try {
    // Clone so a failure half-way leaves the original untouched.
    const doc = structuredClone(original);
    const result = applyPatch(doc, structuredClone(patch) as Operation[], true, true);
    const out = result.newDocument as unknown;
    if (!isObject(out)) return badRequest('json: cannot unmarshal into Go value of type map[string]interface {}');
    return { ok: true, object: out };
  } catch (e) {
    return { ok: false, error: { code: 422, reason: 'Invalid', message: REJECTED, detail: describe(e, patch as JsonObject[]) } };
  }
}

/** The json-patch library's wording of the server, for traces. */
function describe(e: unknown, patch: JsonObject[]): string {
  if (!(e instanceof JsonPatchError)) return (e as Error).message;
  const op = (e.index !== undefined ? patch[e.index] : e.operation) as JsonObject | undefined;
  const kind = String(op?.op ?? '');
  const path = String(op?.path ?? '');
  switch (e.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${kind}`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
      return `${kind} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${kind} operation does not apply: doc is missing from path: ${JSON.stringify(String(op?.from ?? ''))}: missing value`;
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      return `${kind} operation does not apply: index out of bounds: ${path}`;
    default:
      return e.message.split('\n')[0];
  }
}
