/**
 * Package fieldmanager: server-side apply and managedFields bookkeeping.
 *
 * Modelled on structured-merge-diff, one idea per folder, imports one way:
 * value (JSON data) and schema (type language) import nothing of each other;
 * fieldpath (paths, sets, FieldsV1) imports value; typed (value walked with
 * its schema) imports those; merge (the updater, conflicts) imports typed.
 * The files at this level are the apiserver-facing layers, one per file,
 * put together by newFieldManager (fieldManager.ts):
 *
 *   const fm = newFieldManager({ apiVersion: 'apps/v1', schema, definitions, subresource, now });
 *   stored = fm.update(live, newObj, managerOrUserAgent(fieldManager, userAgent));  // create/update/patch
 *   const r = fm.apply(live, applied, fieldManager, force);                         // apply patch
 *   if (!r.ok) -> r.error: Conflict (FieldManager.conflictStatus -> 409 body) | BadRequest | InternalError
 *     (an applied object that does not fit the schema: InternalError, message
 *     `failed to create typed patch object: <structured-merge-diff errors>`)
 *
 * After an apply the caller defaults the result, so pruned fields with
 * defaults come back with their default value.
 */
export { FieldManager, newFieldManager, defaultResetFields, type FieldManagerConfig, type FieldManagerResult } from './fieldManager';
export { FieldManagerConflicts, printManager, type ConflictCause } from './conflictError';
export type { FieldManagerError } from './manager';
export {
  buildManagerIdentifier,
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  ManagedFieldsError,
  type ManagedFieldsEntry,
} from './managedFields';
export { isPrintable, isPrintableAscii, managerOrUserAgent, utf8Width, prefixFromUserAgent, FIELD_MANAGER_MAX_LENGTH } from './userAgent';
export { LAST_APPLIED_CONFIG_ANNOTATION } from './lastApplied';
export { ownershipChanges, type OwnershipChange } from './ownershipChanges';
export { fieldElement, keyElement, valueElement, pathToString, PathSet, type Path } from './fieldpath';
