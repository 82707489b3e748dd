import { fieldsV1ToSet, setToFieldsV1, type FieldsV1, type PathSet } from './fieldpath';
import type { VersionedSet } from './merge';

/** One metadata.managedFields item, as the API carries it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Decoded ownership: manager identifier -> fields, plus when each entry was last written. */
export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

// Identifiers are built and parsed on every write, from a handful of managers: remember them.
const MAX_CACHED = 1024;
let built = new Map<string, string>();
let parsedIds = new Map<string, Readonly<ManagedFieldsEntry>>();

/** Whether a part may go into a cache key: a string without NUL (decoded entries may hold anything). */
const plain = (s: unknown) => s === undefined || (typeof s === 'string' && !s.includes('\0'));

/**
 * The identifier of an entry: its manager, operation, subresource and, for
 * updaters only, API version (so an applier keeps one entry across versions).
 * Same key order as the API's JSON.
 */
export function buildManagerIdentifier(e: {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}): string {
  const key = `${e.manager ?? ''}\0${e.operation ?? ''}\0${e.apiVersion ?? ''}\0${e.subresource ?? ''}`;
  // Other parts could make two keys alike: those skip the cache.
  const cacheable = plain(e.manager) && plain(e.operation) && plain(e.apiVersion) && plain(e.subresource);
  let s = cacheable ? built.get(key) : undefined;
  if (s === undefined) {
    const id: Record<string, string> = {};
    if (e.manager) id.manager = e.manager;
    if (e.operation) id.operation = e.operation;
    if (e.apiVersion && e.operation !== 'Apply') id.apiVersion = e.apiVersion;
    if (e.subresource) id.subresource = e.subresource;
    s = JSON.stringify(id);
    if (cacheable) {
      if (built.size >= MAX_CACHED) built = new Map();
      built.set(key, s);
    }
  }
  return s;
}


/** As parseManagerIdentifier; the entry is shared, never to be changed. */
function parsedIdentifier(id: string): Readonly<ManagedFieldsEntry> {
  let e = parsedIds.get(id);
  if (e === undefined) {
    e = parseManagerIdentifier(id);
    if (parsedIds.size >= MAX_CACHED) parsedIds = new Map();
    parsedIds.set(id, e);
  }
  return e;
}

export function parseManagerIdentifier(id: string): ManagedFieldsEntry {
  try {
    const v: unknown = JSON.parse(id);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as ManagedFieldsEntry;
  } catch {
    // a plain manager name
  }
  return { manager: id };
}

export class ManagedFieldsError extends Error {}

/**
 * Sets are immutable and a write leaves every other manager's set as it
 * was, so decoding a FieldsV1 object this module encoded (the same object:
 * an in-process caller handing the result back as the live object) gives
 * its set back. Encodings are frozen (setToFieldsV1). A weak map: entries
 * go with the objects no longer in use.
 */
const encodedFields = new WeakMap<object, PathSet>();

/**
 * An object read back from storage carries copies of what was encoded:
 * the last encoding of each (object, entry) is kept, and a FieldsV1 equal
 * to it gives its set back, which costs a walk of the two objects instead
 * of building a set. Bounded; starts over when full.
 */
// A few dozen entries: each holds a set and its FieldsV1, which for a large object are large.
const MAX_RECENT = 64;
let recent = new Map<string, { fields: FieldsV1; set: PathSet }>();

const hasOwn = Object.prototype.hasOwnProperty;

/** Keys of encoded FieldsV1 objects (frozen: counted once). */
const keyCounts = new WeakMap<object, number>();

function keyCount(b: FieldsV1): number {
  let n = keyCounts.get(b);
  if (n === undefined) {
    n = 0;
    for (const k in b) if (hasOwn.call(b, k)) n++;
    keyCounts.set(b, n);
  }
  return n;
}

/** Whether `a` (any decoded JSON) is the FieldsV1 `b`, key order aside. */
function sameFields(a: unknown, b: FieldsV1): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
  const o = a as Record<string, unknown>;
  let n = 0;
  for (const k in o) {
    if (!hasOwn.call(o, k)) continue;
    const bv = b[k];
    if (bv === undefined || !hasOwn.call(b, k) || !sameFields(o[k], bv)) return false;
    n++;
  }
  return n === keyCount(b);
}

function decodeFields(fields: unknown, recentKey: string | undefined): PathSet {
  const known = typeof fields === 'object' && fields !== null ? encodedFields.get(fields) : undefined;
  if (known) return known;
  const last = recentKey === undefined ? undefined : recent.get(recentKey);
  if (last && sameFields(fields, last.fields)) return last.set;
  return fieldsV1ToSet(fields);
}

function encodeFieldsV1(set: PathSet, recentKey: string | undefined): FieldsV1 {
  const f = setToFieldsV1(set);
  encodedFields.set(f, set);
  if (recentKey !== undefined) {
    if (recent.size >= MAX_RECENT && !recent.has(recentKey)) recent = new Map();
    recent.set(recentKey, { fields: f, set });
  }
  return f;
}

/** The key of an entry among recent encodings: the object's uid and the entry's identifier. */
const recentKeyOf = (uid: string | undefined, id: string) => (uid ? `${uid}\0${id}` : undefined);

/**
 * Decodes metadata.managedFields; throws ManagedFieldsError on a malformed
 * entry. `uid`, the object's, lets entries this module encoded for it last be
 * recognised rather than decoded.
 */
export function decodeManagedFields(entries: unknown, uid?: string): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    }
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = buildManagerIdentifier(e);
    let set;
    try {
      set = decodeFields(e.fieldsV1 ?? {}, recentKeyOf(uid, id));
    } catch (err) {
      throw new ManagedFieldsError(`error decoding set: ${(err as Error).message}`);
    }
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, e.time);
  });
  return managed;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const t = Date.parse(time);
  return Number.isNaN(t) ? 0 : Math.floor(t / 1000);
}

/**
 * Encodes ownership as metadata.managedFields, sorted as the server sorts:
 * Apply before Update, then oldest first, then by manager, API version and
 * subresource. Returns undefined when nobody owns anything. With the
 * object's `uid`, the encodings are kept for decodeManagedFields to recognise.
 */
export function encodeManagedFields(managed: Managed, uid?: string): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    entries.push(managedFieldsEntry(id, vs.applied, vs.apiVersion, managed.times.get(id), encodeFieldsV1(vs.set, recentKeyOf(uid, id))));
  }
  const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
  return entries;
}

/** The entry of the manager with identifier `id`, its fields encoded, with the API's key order. */
export function managedFieldsEntry(id: string, applied: boolean, apiVersion: string, time: string | undefined, fieldsV1: FieldsV1): ManagedFieldsEntry {
  const parsed = parsedIdentifier(id);
  return entryOf(parsed.manager, applied ? 'Apply' : 'Update', apiVersion, time, parsed.subresource, fieldsV1);
}

/** managedFieldsEntry of an Update entry, without building and parsing its identifier. */
export function updateEntry(manager: string, apiVersion: string, time: string | undefined, subresource: string, fieldsV1: FieldsV1): ManagedFieldsEntry {
  return entryOf(manager, 'Update', apiVersion, time, subresource, fieldsV1);
}

function entryOf(manager: string | undefined, operation: string, apiVersion: string, time: string | undefined, subresource: string | undefined, fieldsV1: FieldsV1): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {};
  if (manager) e.manager = manager;
  e.operation = operation;
  e.apiVersion = apiVersion;
  if (time) e.time = time;
  e.fieldsType = 'FieldsV1';
  e.fieldsV1 = fieldsV1;
  if (subresource) e.subresource = subresource;
  return e;
}

/**
 * A write asks to reset managedFields when it sets the list to exactly one
 * empty entry. An empty list does not reset: clients unaware of the field
 * must not wipe it by accident.
 */
export function isResetManagedFields(list: unknown): boolean {
  return (
    Array.isArray(list) &&
    list.length === 1 &&
    typeof list[0] === 'object' &&
    list[0] !== null &&
    !Array.isArray(list[0]) &&
    Object.keys(list[0] as object).length === 0
  );
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function formatTime(now: Date): string {
  // Writes come many to the second: format each second once.
  const sec = Math.floor(now.getTime() / 1000);
  if (sec !== lastSecond || lastFormatted === undefined) {
    lastFormatted = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = sec;
  }
  return lastFormatted;
}
let lastSecond = NaN;
let lastFormatted: string | undefined;
