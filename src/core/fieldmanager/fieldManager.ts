import type { SchemaObject } from '../registry/types';
import { BuildManagerInfoManager } from './buildManagerInfo';
import { CapManagersManager, DEFAULT_MAX_UPDATE_MANAGERS } from './capManagers';
import { FieldManagerConflicts } from './conflictError';
import { fieldElement, PathSet, type Path } from './fieldpath';
import { LastAppliedManager } from './lastAppliedManager';
import { LastAppliedUpdater } from './lastAppliedUpdater';
import type { FieldManagerError, Manager } from './manager';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  updateEntry,
  type Managed,
} from './managedFields';
import { ManagedFieldsUpdater } from './managedFieldsUpdater';
import { Schema } from './schema';
import { STRIP_SET, StripMetaManager } from './stripMeta';
import { StructuredMergeManager } from './structuredMerge';
import { createdFieldsV1 } from './typed/createdFields';
import type { TypeNode } from './schema';
import { isObject, type JsonObject } from './value';

export interface FieldManagerConfig {
  /** group/version of the kind (`v1`, `apps/v1`); entries record it as apiVersion. */
  apiVersion: string;
  /** Root schema of the kind; omitted for schemaless objects. */
  schema?: SchemaObject;
  /** Definitions the schema's `$ref`s point into (a RegistryBundle's `definitions`). */
  definitions?: Record<string, SchemaObject>;
  /** Subresource the writes go through ('' or undefined for the main resource). */
  subresource?: string;
  /**
   * Fields this endpoint resets and so never tracks (a strategy's reset
   * fields). Default: `status` for the main resource, `spec` for `status`.
   */
  resetFields?: Path[];
  maxUpdateManagers?: number;
  /** Injected clock for entry times. */
  now?: () => Date;
  /**
   * The object a create starts from (the Go zero value of the kind upstream,
   * as the registry bundle's `zero`): an Update that creates owns what it
   * adds to it, and the maps and null fields it already holds carry no `"."`.
   * An apply that creates merges into its top-level maps only (the JSON
   * object keeps no Go zero values below them). Default: empty metadata,
   * plus empty spec and status when the kind has them.
   */
  zeroObject?: JsonObject;
}

export type FieldManagerResult = { ok: true; object: JsonObject } | { ok: false; error: FieldManagerError };

/** What a create's shortcut needs of the kind and endpoint (see FieldManager.created). */
interface CreateShortcut {
  schema: Schema;
  root: TypeNode;
  apiVersion: string;
  resetFields: PathSet | undefined;
  now: () => Date;
}

let createShortcut = true;

/**
 * Tests only: with false, every create runs the layered updater, the
 * reference the shortcut must agree with byte for byte.
 */
export function setCreateShortcut(enabled: boolean): void {
  createShortcut = enabled;
}

/**
 * The apiserver-facing field manager for one kind at one endpoint. It decodes
 * metadata.managedFields, runs the layers (see newFieldManager) and encodes
 * the result back into the object.
 */
export class FieldManager {
  private readonly subresource: string;
  /** What an apply that creates merges into: the zero object's top-level maps, emptied. */
  private readonly applyZero: JsonObject;

  constructor(
    private readonly inner: Manager,
    config: FieldManagerConfig,
    private readonly zero: JsonObject,
    private readonly shortcut?: CreateShortcut,
  ) {
    this.subresource = config.subresource ?? '';
    this.applyZero = {};
    for (const k in zero) if (isObject(zero[k])) this.applyZero[k] = {};
  }

  /**
   * For create, update and non-apply patch: `newObj` is the full object
   * about to be stored; `liveObj` is undefined on create. Never fails on
   * ownership: if ownership cannot be computed (the object cannot be typed
   * against the schema) the object keeps the live object's managedFields
   * unchanged, as the server's UpdateNoErrors does since
   * kubernetes/kubernetes#136949 (it used to drop them all).
   */
  update(liveObj: JsonObject | undefined, newObj: JsonObject, manager: string): JsonObject {
    if (liveObj === undefined && this.shortcut !== undefined && createShortcut) {
      const created = this.created(newObj, manager, this.shortcut);
      if (created !== undefined) return created;
    }
    const live = liveObj ?? this.zero;
    const managed = this.decodeLiveOrNew(live, newObj);
    const newStripped = withoutManagedFields(newObj);
    const r = this.inner.update(withoutManagedFields(live), newStripped, managed, manager);
    if (!r.ok) return withManagedFieldsOf(newStripped, live);
    return withManagedFields(r.object, r.managed);
  }

  /**
   * For server-side apply: merges `appliedObj` into `liveObj` (undefined when
   * the object does not exist yet). Fails with conflicts or a bad request.
   * Neither object is changed, and the result shares no value with them
   * but the FieldsV1 of entries the apply left as they were (FieldsV1 values
   * are never changed in place).
   */
  apply(liveObj: JsonObject | undefined, appliedObj: JsonObject, manager: string, force = false): FieldManagerResult {
    const live = liveObj ?? this.applyZero;
    let managed: Managed;
    try {
      managed = decodeManagedFields(managedFieldsOf(live), uidOf(live));
    } catch (e) {
      return { ok: false, error: { reason: 'InternalError', message: `failed to decode managed fields: ${(e as Error).message}` } };
    }
    const r = this.inner.apply(withoutManagedFields(live), appliedObj, managed, manager, force);
    if (!r.ok) return r;
    // an apply that changes nothing hands back a copy of the live object: callers may change the result
    const object = r.object ?? (structuredClone(withoutManagedFields(live)) as JsonObject);
    return { ok: true, object: withManagedFields(object, r.managed) };
  }

  /**
   * update() of a create that starts with no ownership (the object brings
   * no managedFields, or asks to reset them): the layers then only record
   * the writer as the one Update entry owning every field the object sets,
   * less the reset fields and the metadata nobody owns (createdFieldsV1),
   * stamped now. Undefined when the updater has to settle it.
   */
  private created(newObj: JsonObject, manager: string, c: CreateShortcut): JsonObject | undefined {
    if (this.subresource === '') {
      const requested = managedFieldsOf(newObj);
      if (requested !== undefined && requested !== null && !(Array.isArray(requested) && requested.length === 0) && !isResetManagedFields(requested)) return undefined;
    }
    const obj = withoutManagedFields(newObj);
    const fieldsV1 = createdFieldsV1(c.schema, c.root, this.zero, obj, c.resetFields, STRIP_SET);
    if (fieldsV1 === undefined) return undefined;
    if (isEmptyObject(fieldsV1)) return obj;
    const entry = updateEntry(manager, c.apiVersion, formatTime(c.now()), this.subresource, fieldsV1);
    const metadata = isObject(obj.metadata) ? obj.metadata : {};
    return { ...obj, metadata: { ...metadata, managedFields: [entry as unknown as JsonObject] } };
  }

  private decodeLiveOrNew(live: JsonObject, newObj: JsonObject): Managed {
    const fromLive = () => {
      try {
        return decodeManagedFields(managedFieldsOf(live), uidOf(live));
      } catch {
        return emptyManaged();
      }
    };
    // A subresource write cannot set managedFields: the live ones count.
    if (this.subresource !== '') return fromLive();
    const requested = managedFieldsOf(newObj);
    if (isResetManagedFields(requested)) return emptyManaged();
    try {
      const m = decodeManagedFields(requested);
      // Empty or absent: a client that does not know the field must not wipe it.
      return m.fields.size === 0 ? fromLive() : m;
    } catch {
      return fromLive();
    }
  }

  /** Conflicts as the API reports them (409 Conflict with causes). */
  static conflictStatus(error: FieldManagerError): FieldManagerConflicts | undefined {
    return error.reason === 'Conflict' ? new FieldManagerConflicts(error.conflicts) : undefined;
  }
}

function uidOf(obj: JsonObject): string | undefined {
  const uid = isObject(obj.metadata) ? obj.metadata.uid : undefined;
  return typeof uid === 'string' ? uid : undefined;
}

function managedFieldsOf(obj: JsonObject): unknown {
  return isObject(obj.metadata) ? obj.metadata.managedFields : undefined;
}

function withoutManagedFields(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  void _drop;
  return { ...obj, metadata };
}

/** `obj` carrying `from`'s metadata.managedFields as they are (none when `from` has none). */
function withManagedFieldsOf(obj: JsonObject, from: JsonObject): JsonObject {
  const entries = managedFieldsOf(from);
  if (entries === undefined || entries === null) return obj;
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  return { ...obj, metadata: { ...metadata, managedFields: entries as JsonObject[] } };
}

function withManagedFields(obj: JsonObject, managed: Managed): JsonObject {
  const base = withoutManagedFields(obj);
  const entries = encodeManagedFields(managed, uidOf(base));
  if (!entries) return base;
  const metadata = isObject(base.metadata) ? base.metadata : {};
  return { ...base, metadata: { ...metadata, managedFields: entries as unknown as JsonObject[] } };
}

function isEmptyObject(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** Reset fields a strategy would declare when it declares none. */
export function defaultResetFields(subresource: string | undefined, root: SchemaObject | undefined, schema: Schema): Path[] {
  if (subresource === 'status') return [[fieldElement('spec')]];
  if (subresource) return [];
  const props = root ? schema.deref(root).properties : undefined;
  return !root || props?.status ? [[fieldElement('status')]] : [];
}

function zeroObjectFor(root: SchemaObject | undefined, schema: Schema): JsonObject {
  const zero: JsonObject = { metadata: {} };
  const props = root ? schema.deref(root).properties : undefined;
  for (const k of ['spec', 'status']) {
    const p = props?.[k];
    if (p && schema.deref(p).properties) zero[k] = {};
  }
  return zero;
}

/**
 * Builds the field manager for one kind at one endpoint, layered as the
 * server layers it (outermost first): last-applied annotation sync,
 * client-side apply migration, Update-entry cap, entry identifiers, entry
 * times, metadata stripping, structured merge.
 */
export function newFieldManager(config: FieldManagerConfig): FieldManager {
  const schema = new Schema(config.definitions ?? {});
  const root = schema.rootNode(config.schema);
  const resetPaths = config.resetFields ?? defaultResetFields(config.subresource, config.schema, schema);
  const now = config.now ?? (() => new Date());
  const resetFields = resetPaths.length ? PathSet.of(...resetPaths) : undefined;
  const structured = new StructuredMergeManager({ schema, root, apiVersion: config.apiVersion, resetFields });
  const inner = new LastAppliedUpdater(
    new LastAppliedManager(
      new CapManagersManager(
        new BuildManagerInfoManager(
          new ManagedFieldsUpdater(new StripMetaManager(structured), now),
          config.apiVersion,
          config.subresource ?? '',
        ),
        config.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS,
      ),
      schema,
      root,
      config.apiVersion,
    ),
  );
  const zero = config.zeroObject ? (structuredClone(config.zeroObject) as JsonObject) : zeroObjectFor(config.schema, schema);
  // The shortcut stands for the layers above only while they leave a lone Update entry as it is.
  const shortcut = (config.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS) >= 1 && managedFieldsOf(zero) === undefined
    ? { schema, root, apiVersion: config.apiVersion, resetFields, now }
    : undefined;
  return new FieldManager(inner, config, zero, shortcut);
}
