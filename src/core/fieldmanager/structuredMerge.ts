import { Updater } from './merge';
import type { ApplyResult, Manager, UpdateResult } from './manager';
import type { Managed } from './managedFields';
import type { PathSet } from './fieldpath';
import type { Schema, TypeNode } from './schema';
import { TypedError, validate, ValidationErrors } from './typed';
import type { JsonObject } from './value';

export interface StructuredMergeConfig {
  schema: Schema;
  root: TypeNode;
  /** group/version of the kind this manager serves. */
  apiVersion: string;
  resetFields?: PathSet;
}

/** The innermost layer: runs the structured-merge-diff updater on typed values. */
export class StructuredMergeManager implements Manager {
  private readonly updater: Updater;

  constructor(private readonly config: StructuredMergeConfig) {
    this.updater = new Updater({ schema: config.schema, root: config.root, ignoredFields: config.resetFields });
  }

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    try {
      const fields = this.updater.updateOperation(liveObj, newObj, this.config.apiVersion, managed.fields, manager);
      return { ok: true, object: newObj, managed: { fields: new Map(fields), times: managed.times } };
    } catch (e) {
      return { ok: false, error: { reason: 'InternalError', message: `failed to update ManagedFields: ${(e as Error).message}` } };
    }
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const patchVersion = typeof appliedObj.apiVersion === 'string' ? appliedObj.apiVersion : '';
    if (patchVersion !== this.config.apiVersion) {
      return {
        ok: false,
        error: {
          reason: 'BadRequest',
          message: `Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${this.config.apiVersion}`,
        },
      };
    }
    const meta = appliedObj.metadata;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta) && meta.managedFields != null) {
      return { ok: false, error: { reason: 'BadRequest', message: 'metadata.managedFields must be nil' } };
    }
    // The applied object must be a valid typed value: no undeclared field, no
    // wrongly typed scalar, no repeated list key (structuredmerge.go's typed patch object).
    const errors = validate(this.config.schema, this.config.root, appliedObj);
    if (errors.length > 0) return typedPatchError(new ValidationErrors(errors).message);
    try {
      const r = this.updater.applyOperation(liveObj, appliedObj, this.config.apiVersion, managed.fields, manager, force);
      if (!r.ok) return { ok: false, error: { reason: 'Conflict', conflicts: r.conflicts } };
      return {
        ok: true,
        object: r.object === undefined ? undefined : dropNulls(r.object as JsonObject),
        managed: { fields: new Map(r.managers), times: managed.times },
      };
    } catch (e) {
      if (e instanceof TypedError) return typedPatchError(e.message);
      throw e;
    }
  }
}

/**
 * The server returns this as a plain error: a 500 without reason, whose
 * message the handler completes with the object's identity
 * (`failed to create typed patch object (ns/name; group/version, Kind=K): ...`).
 */
function typedPatchError(detail: string): ApplyResult {
  return { ok: false, error: { reason: 'InternalError', message: `${TYPED_PATCH_ERROR_PREFIX}${detail}` } };
}

/** Prefix of the message of an apply whose object does not fit the schema. */
export const TYPED_PATCH_ERROR_PREFIX = 'failed to create typed patch object: ';

/**
 * Nulls do not survive the typed round trip the server makes after a merge:
 * map entries holding null go, in maps and in maps that are list items
 * (lists nested directly in lists are kept as they are). In place: the
 * updater's result shares nothing with its inputs.
 */
function dropNulls(o: JsonObject): JsonObject {
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    const v = o[k];
    if (v === null) delete o[k];
    else if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object' && !Array.isArray(x)) dropNulls(x);
    } else if (typeof v === 'object') dropNulls(v);
  }
  return o;
}
