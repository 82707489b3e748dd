/**
 * The handlers' bridge to the field manager: KubeObjects in and out, apply
 * failures as Status errors (409 Conflict with one cause per field), and
 * ownership through the scale subresource.
 */
import { isObject, type KubeObject, type ManagedFieldsEntry as ObjectManagedFieldsEntry } from '../../api/types';
import { decodeManagedFields, encodeManagedFields, FieldManager, fieldElement, newFieldManager, ownershipChanges, type ManagedFieldsEntry, type OwnershipChange } from '../../fieldmanager';
import type { TraceEntry } from '../request/context';
import type { Store } from '../../registry/generic/store';
import type { SchemaObject } from '../../registry/types';
import type { Clock } from '../../util/clock';
import type { JsonObject } from '../../patch';
import { StatusError, type StatusDetails } from '../../errors';

const asJson = (o: KubeObject | undefined) => o as unknown as JsonObject | undefined;

/** Where a request's field manager actions are recorded (its trace). */
export type TraceSink = (entry: TraceEntry) => void;

/** Records an Update by manager: ownership of what changed between live and next. */
export function trackUpdate(fm: FieldManager, live: KubeObject | undefined, next: KubeObject, manager: string, trace?: TraceSink): KubeObject {
  const tracked = fm.update(asJson(live), asJson(next)!, manager) as unknown as KubeObject;
  trace?.(ownershipEntry('Update', manager, false, live, tracked));
  return tracked;
}

/** Server-side apply of `applied` onto live (or onto nothing, to create). */
export function trackApply(fm: FieldManager, live: KubeObject | undefined, applied: JsonObject, manager: string, force: boolean, trace?: TraceSink): KubeObject {
  const r = fm.apply(asJson(live), applied, manager, force);
  if (r.ok) {
    const tracked = r.object as unknown as KubeObject;
    trace?.(ownershipEntry('Apply', manager, force, live, tracked));
    return tracked;
  }
  const conflicts = FieldManager.conflictStatus(r.error);
  if (conflicts) {
    trace?.({
      stage: 'fieldManager',
      message: `Apply by ${JSON.stringify(manager)} refused: ${conflicts.message.replace(/^Apply failed with /, '')} (force would take them)`,
      details: { manager, operation: 'Apply', force, conflicts: conflicts.causes.map((c) => ({ field: c.field, message: c.message })) },
    });
    // As errors.NewApplyConflict: details carry only the causes (no name or kind).
    const details: StatusDetails = { causes: conflicts.causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) };
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: conflicts.message, reason: 'Conflict', details, code: 409 });
  }
  const error = r.error as { reason: 'BadRequest' | 'InternalError'; message: string };
  const typed = error.message.startsWith(typedPatchPrefix) ? error.message.slice(typedPatchPrefix.length) : undefined;
  if (typed !== undefined) {
    // The server returns this one as a plain Go error: 500 with no reason, naming the object (structuredmerge.go).
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `failed to create typed patch object (${objectGVKNN(applied)}): ${typed}`, code: 500 });
  }
  const code = error.reason === 'BadRequest' ? 400 : 500;
  throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: error.message, reason: error.reason, code });
}

const typedPatchPrefix = 'failed to create typed patch object: ';

/**
 * The trace entry of a tracked write: which manager wrote with which
 * operation, the fields it took (and from whom) and what others lost.
 */
function ownershipEntry(operation: 'Apply' | 'Update', manager: string, force: boolean, live: KubeObject | undefined, tracked: KubeObject): TraceEntry {
  const before = live?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  const changes = ownershipChanges(before, tracked.metadata.managedFields as ManagedFieldsEntry[] | undefined);
  const isWriter = (c: OwnershipChange) => c.manager === manager && c.operation === operation;
  const own = changes.find(isWriter);
  const losers = changes.filter((c) => !isWriter(c) && c.lost.length > 0);
  const parts = [own ? `owns ${own.owns} field${own.owns === 1 ? '' : 's'}${own.gained.length ? `, newly ${own.gained.join(', ')}` : ''}${own.lost.length ? `, no longer ${own.lost.join(', ')}` : ''}` : 'ownership unchanged'];
  for (const c of losers) parts.push(`${JSON.stringify(c.manager)} (${c.operation}) lost ${c.lost.join(', ')}`);
  return {
    stage: 'fieldManager',
    message: `${operation} by ${JSON.stringify(manager)}${force ? ' (force)' : ''}: ${parts.join('; ')}`,
    details: { manager, operation, ...(operation === 'Apply' ? { force } : {}), changes },
  };
}

/** `namespace/name; group/version, Kind=Kind`, as the field manager prints an object in errors. */
function objectGVKNN(obj: JsonObject): string {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const apiVersion = str(obj['apiVersion']);
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${str(meta['namespace'])}/${str(meta['name'])}; ${gv}, Kind=${str(obj['kind'])}`;
}

type FieldsV1 = NonNullable<ManagedFieldsEntry['fieldsV1']>;

const scaleApiVersion = 'autoscaling/v1';
const scaleDefinition = 'io.k8s.api.autoscaling.v1.Scale';
const replicasFields = (): FieldsV1 => ({ 'f:spec': { 'f:replicas': {} } });

function ownsReplicas(fields: FieldsV1 | undefined): boolean {
  const spec = fields?.['f:spec'];
  return isObject(spec) && spec['f:replicas'] !== undefined;
}

function withoutReplicas(fields: FieldsV1): FieldsV1 {
  const out = structuredClone(fields) as Record<string, unknown>;
  const spec = out['f:spec'] as Record<string, unknown>;
  delete spec['f:replicas'];
  if (Object.keys(spec).length === 0) delete out['f:spec'];
  return out as FieldsV1;
}

const ownerKey = (e: ManagedFieldsEntry) => JSON.stringify([e.manager ?? '', e.operation ?? '', e.subresource ?? '']);

function entriesOf(obj: KubeObject): ManagedFieldsEntry[] {
  const list = obj.metadata.managedFields;
  return Array.isArray(list) ? (list as ManagedFieldsEntry[]) : [];
}

/**
 * Field ownership through the scale subresource, kept as the apiserver's
 * ScaleHandler keeps it: a Scale shows the parent's entries that own
 * spec.replicas as owning .spec.replicas (in autoscaling/v1); a write of the
 * Scale runs its own field manager (Update, or Apply), and ownership of
 * spec.replicas then flows back into the parent's entries. A manager that
 * only ever wrote through the Scale gets a parent entry with subresource "scale".
 */
export class ScaleFieldManagement {
  private readonly fm: FieldManager;

  constructor(
    private readonly parentApiVersion: string,
    definitions: Record<string, SchemaObject>,
    now: () => Date,
  ) {
    this.fm = newFieldManager({
      apiVersion: scaleApiVersion,
      schema: definitions[scaleDefinition],
      definitions,
      subresource: 'scale',
      resetFields: [[fieldElement('status')]],
      now,
    });
  }

  /** The Scale of parent with managedFields converted from the parent's entries. */
  toScale(parent: KubeObject, scale: KubeObject): KubeObject {
    const entries = entriesOf(parent)
      .filter((e) => e.apiVersion === this.parentApiVersion && ownsReplicas(e.fieldsV1))
      .map((e) => ({ ...e, apiVersion: scaleApiVersion, fieldsV1: replicasFields() }));
    const out = structuredClone(scale);
    if (entries.length) out.metadata.managedFields = entries as ObjectManagedFieldsEntry[];
    else delete out.metadata.managedFields;
    return out;
  }

  /** An update (PUT or non-apply patch) of the Scale by manager. */
  update(liveScale: KubeObject, newScale: KubeObject, manager: string, trace?: TraceSink): KubeObject {
    return trackUpdate(this.fm, liveScale, newScale, manager, trace);
  }

  /** A server-side apply of the Scale by manager (conflicts as 409). */
  apply(liveScale: KubeObject, applied: JsonObject, manager: string, force: boolean, trace?: TraceSink): KubeObject {
    return trackApply(this.fm, liveScale, applied, manager, force, trace);
  }

  /** The parent's managedFields after a Scale write left trackedScale's entries. */
  parentManagedFields(parent: KubeObject, trackedScale: KubeObject): ManagedFieldsEntry[] | undefined {
    const fromScale = new Map<string, ManagedFieldsEntry>();
    for (const e of entriesOf(trackedScale)) if (ownsReplicas(e.fieldsV1)) fromScale.set(ownerKey(e), e);
    const out: ManagedFieldsEntry[] = [];
    for (const e of entriesOf(parent)) {
      if (e.apiVersion !== this.parentApiVersion || !ownsReplicas(e.fieldsV1)) {
        out.push(e);
      } else if (fromScale.delete(ownerKey(e))) {
        out.push(e);
      } else {
        // The Scale write took spec.replicas from this manager.
        const rest = withoutReplicas(e.fieldsV1!);
        if (Object.keys(rest).length) out.push({ ...e, fieldsV1: rest });
      }
    }
    for (const e of fromScale.values()) out.push({ ...e, apiVersion: this.parentApiVersion, fieldsV1: replicasFields() });
    // Decoding and encoding again sorts the entries as the server does.
    return encodeManagedFields(decodeManagedFields(out));
  }
}

const scaleManagement = new WeakMap<Store, ScaleFieldManagement>();

/** The scale field management of a store's kind, built once per store. */
export function scaleFieldManagement(store: Store, clock: Clock): ScaleFieldManagement {
  let m = scaleManagement.get(store);
  if (!m) {
    const apiVersion = store.type.group ? `${store.type.group}/${store.type.version}` : store.type.version;
    m = new ScaleFieldManagement(apiVersion, store.schema.definitions, () => clock.now());
    scaleManagement.set(store, m);
  }
  return m;
}
