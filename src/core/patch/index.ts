/**
 * Package patch: the three non-apply patch formats the server accepts.
 * Each takes the current object and the decoded patch document and returns
 * the patched object or a PatchError carrying the status to answer with.
 *
 *   application/json-patch+json            applyJSONPatch (RFC 6902)
 *   application/merge-patch+json           applyMergePatch (RFC 7386)
 *   application/strategic-merge-patch+json applyStrategicMergePatch (built-in kinds only)
 */
export { applyJSONPatch, MAX_JSON_PATCH_OPERATIONS } from './jsonPatch';
export { applyMergePatch } from './mergePatch';
export { applyStrategicMergePatch, type StrategicMergeSchema } from './strategicMerge';
export type { JsonObject, JsonValue, PatchError, PatchResult } from './types';
