import type { Conflicts } from './merge';
import type { Managed } from './managedFields';
import type { JsonObject } from './value';

/** Why a field-manager operation failed, as the API reports it. */
export type FieldManagerError =
  | { reason: 'Conflict'; conflicts: Conflicts }
  | { reason: 'BadRequest'; message: string }
  | { reason: 'InternalError'; message: string };

export type UpdateResult = { ok: true; object: JsonObject; managed: Managed } | { ok: false; error: FieldManagerError };

/** `object` is undefined when the apply leaves the object as it was. */
export type ApplyResult = { ok: true; object: JsonObject | undefined; managed: Managed } | { ok: false; error: FieldManagerError };

/**
 * One layer of the field manager. Layers wrap each other (see index.ts);
 * each may look at or adjust the request, the result, or both. Objects come
 * without metadata.managedFields; `managed` is owned by the callee.
 */
export interface Manager {
  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult;
  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult;
}
