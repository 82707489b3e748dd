import { compareElements, fieldElement, type FieldsV1, type PathElement, type PathSet } from '../fieldpath';
import type { Atom, ListAtom, MapAtom, Schema, TypeNode } from '../schema';
import type { JsonObject, JsonValue } from '../value';
import { listItemElement } from './listItems';

/**
 * What an Update that creates an object gives its manager, as FieldsV1, in
 * one walk of the object. The updater compares the object with the kind's
 * zero object (the Go zero value: `{metadata: {}, spec: {containers: null},
 * status: {}}` for a Pod): everything the object holds is added (each map,
 * list and entry as a whole too, so they carry `"."`), except what the zero
 * object already holds: its maps and its null fields are modified, not
 * added, so their entries are owned but they carry no `"."`. The result is
 * that set less `ignored` and everything below it (the endpoint's reset
 * fields) and less the exact paths of `stripped` (metadata nobody owns),
 * encoded as setToFieldsV1 encodes it: keys in element order, `"."` first,
 * frozen. Empty when nothing is owned.
 *
 * Undefined when the walk cannot tell the answer alone: a zero-object map
 * set to something other than a map, or a value the comparison would refuse
 * (a keyed list item without its key). The caller then runs the updater,
 * which settles those cases.
 */
export function createdFieldsV1(
  schema: Schema,
  root: TypeNode,
  zero: JsonObject,
  obj: JsonObject,
  ignored: PathSet | undefined,
  stripped: PathSet | undefined,
): FieldsV1 | undefined {
  const atom = schema.resolve(root, obj);
  if (atom.kind !== 'map' || atom.relationship === 'atomic') return undefined;
  const w: Walk = { schema, pes: [], values: [], top: 0 };
  try {
    return fillHeld(w, atom, zero, obj, ignored, stripped) ?? {};
  } catch {
    // UNSETTLED, or a value the comparison refuses (the updater words the error).
    return undefined;
  }
}

/** Thrown when the walk meets a case only the updater settles. */
const UNSETTLED = Symbol('unsettled');

/**
 * The entries of `v`, a granular map the zero object also holds (as `zero`):
 * those the zero object holds too are compared with it (heldEntry), the
 * others are added. The map itself is not added: no `"."`.
 */
function fillHeld(w: Walk, atom: MapAtom, zero: JsonObject, v: JsonObject, ignored: Ignored, stripped: PathSet | undefined): FieldsV1 | undefined {
  const from = w.top;
  for (const key in v) {
    if (!hasOwn.call(v, key)) continue;
    if (hasOwn.call(zero, key)) heldEntry(w, atom, key, zero[key], v[key], ignored, stripped);
    else entry(w, atom, key, v[key], ignored, stripped);
  }
  return ignored === ALL ? undefined : emitNode(w, from, false);
}

/**
 * The map entry `key`, which the zero object holds as `z` (an empty-or-not
 * map: a value struct; or null: a slice, map or pointer without omitempty)
 * and the object as `v`.
 */
function heldEntry(w: Walk, atom: MapAtom, key: string, z: JsonValue, v: JsonValue, ignored: Ignored, stripped: PathSet | undefined): void {
  // Absent from the object: removed, owned by nobody.
  if (v === undefined) return;
  const pe = elementOfField(key);
  const node = fieldNode(atom, key);
  const keep = ignored !== ALL && (ignored === undefined || !ignored.hasMember(pe));
  const childIgnored: Ignored = keep ? ignored?.child(pe) : ALL;
  const a = node === undefined ? undefined : w.schema.resolve(node, v !== null ? v : z === null ? undefined : z);
  if (z === null) {
    if (v === null) return;
    // Present in both: a granular list or map has its entries added; anything else is one modified leaf.
    if (a === undefined || isLeaf(a, v)) {
      if (keep && (stripped === undefined || !stripped.hasMember(pe))) push(w, pe, LEAF);
      return;
    }
    const f = a.kind === 'list' ? fillList(w, a, v as JsonValue[], childIgnored, stripped?.child(pe), false) : fillMap(w, a as MapAtom, v as JsonObject, childIgnored, stripped?.child(pe), false);
    if (f !== undefined) push(w, pe, f);
    return;
  }
  if (!isMap(z)) throw UNSETTLED;
  // Anything but a granular map where the zero object has a map is for the updater, but for
  // an empty map on both sides (equal) and a field this endpoint does not track.
  if (a === undefined || a.kind !== 'map' || !isMap(v) || isEmpty(v)) {
    if (!keep || (isMap(v) && isEmpty(v) && isEmpty(z) && a !== undefined)) return;
    throw UNSETTLED;
  }
  if (a.relationship === 'atomic') {
    if (!keep) return;
    throw UNSETTLED;
  }
  const f = fillHeld(w, a, z, v, childIgnored, stripped?.child(pe));
  if (f !== undefined) push(w, pe, f);
}

/** Marks a subtree that is walked only for the errors the comparison would raise in it. */
const ALL = Symbol('ignored');
type Ignored = PathSet | typeof ALL | undefined;

/**
 * The entries of the node being filled, on two stacks shared by the whole
 * walk: a node pushes its entries, then pops them into its FieldsV1.
 */
interface Walk {
  schema: Schema;
  pes: PathElement[];
  values: FieldsV1[];
  /** Entries in use: the stacks' arrays are written over, never shortened. */
  top: number;
}

const LEAF: FieldsV1 = Object.freeze({}) as FieldsV1;
/** listItemElement reads the path only to word an error, and errors end the walk. */
const NO_PATH: PathElement[] = [];

const hasOwn = Object.prototype.hasOwnProperty;
const isArray = Array.isArray;
const elementOfField = fieldElement;
const elementOfItem = listItemElement;
const compareEls = compareElements;

function isMap(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !isArray(v);
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

function fieldNode(atom: MapAtom, key: string): TypeNode | undefined {
  return hasOwn.call(atom.fields, key) ? atom.fields[key] : atom.element;
}

function push(w: Walk, pe: PathElement, f: FieldsV1): void {
  const i = w.top++;
  w.pes[i] = pe;
  w.values[i] = f;
}

/** Whether the comparison takes `v` of this type as one leaf (scalars, atomic, empty or mistyped values). */
function isLeaf(atom: Atom, v: JsonValue | undefined): boolean {
  if (atom.kind === 'scalar') return true;
  if (atom.kind === 'list') return !isArray(v) || v.length === 0 || atom.relationship === 'atomic';
  return !isMap(v) || atom.relationship === 'atomic' || isEmpty(v);
}

/** The map entry `key` of a map added as a whole: a leaf for an undeclared field of a struct, else its value. */
function entry(w: Walk, atom: MapAtom, key: string, v: JsonValue, ignored: Ignored, stripped: PathSet | undefined): void {
  const pe = elementOfField(key);
  const node = fieldNode(atom, key);
  if (ignored === ALL || (ignored !== undefined && ignored.hasMember(pe))) {
    if (node !== undefined) added(w, node, v, ALL, undefined, false);
    return;
  }
  const self = stripped === undefined || !stripped.hasMember(pe);
  if (node === undefined) {
    if (self) push(w, pe, LEAF);
    return;
  }
  const f = added(w, node, v, ignored?.child(pe), stripped?.child(pe), self);
  if (f !== undefined) push(w, pe, f);
}

/**
 * The FieldsV1 of a value added as a whole: `{}` for a leaf, `"."` (when
 * `self`) and its entries for a granular list or map; undefined when none
 * of it is kept.
 */
function added(w: Walk, node: TypeNode, v: JsonValue, ignored: Ignored, stripped: PathSet | undefined, self: boolean): FieldsV1 | undefined {
  const atom = w.schema.resolve(node, v === null ? undefined : v);
  if (isLeaf(atom, v)) return self && ignored !== ALL ? LEAF : undefined;
  if (atom.kind === 'list') return fillList(w, atom, v as JsonValue[], ignored, stripped, self);
  return fillMap(w, atom as MapAtom, v as JsonObject, ignored, stripped, self);
}

function fillMap(w: Walk, atom: MapAtom, v: JsonObject, ignored: Ignored, stripped: PathSet | undefined, self: boolean): FieldsV1 | undefined {
  const from = w.top;
  for (const key in v) if (hasOwn.call(v, key)) entry(w, atom, key, v[key], ignored, stripped);
  return ignored === ALL ? undefined : emitNode(w, from, self);
}

function fillList(w: Walk, atom: ListAtom, list: JsonValue[], ignored: Ignored, stripped: PathSet | undefined, self: boolean): FieldsV1 | undefined {
  // Every item's key first (the comparison checks them all before visiting any); a repeated key keeps its first item.
  const pes: PathElement[] = new Array<PathElement>(list.length);
  let n = 0;
  const seen = list.length > 8 ? new Set<string>() : undefined;
  const items: JsonValue[] = new Array<JsonValue>(list.length);
  for (let i = 0; i < list.length; i++) {
    const pe = elementOfItem(atom, i, list[i], NO_PATH);
    let dup = false;
    if (seen) {
      dup = seen.has(pe.id);
      seen.add(pe.id);
    } else {
      for (let j = 0; j < n && !dup; j++) dup = pes[j].id === pe.id;
    }
    if (dup) continue;
    pes[n] = pe;
    items[n++] = list[i];
  }
  const from = w.top;
  for (let i = 0; i < n; i++) {
    const pe = pes[i];
    if (ignored === ALL || (ignored !== undefined && ignored.hasMember(pe))) {
      added(w, atom.element, items[i], ALL, undefined, false);
      continue;
    }
    const itemSelf = stripped === undefined || !stripped.hasMember(pe);
    const f = added(w, atom.element, items[i], ignored?.child(pe), stripped?.child(pe), itemSelf);
    if (f !== undefined) push(w, pe, f);
  }
  return ignored === ALL ? undefined : emitNode(w, from, self);
}

/** Pops the entries pushed since `from` into one FieldsV1 node, sorted and frozen (as setToFieldsV1's); a member without entries is a leaf. */
function emitNode(w: Walk, from: number, self: boolean): FieldsV1 | undefined {
  const end = w.top;
  if (end === from) return self ? LEAF : undefined;
  const { pes, values } = w;
  sortEntries(pes, values, from, end);
  const out: FieldsV1 = {};
  if (self) out['.'] = LEAF;
  for (let i = from; i < end; i++) out[pes[i].id] = values[i];
  w.top = from;
  return Object.freeze(out);
}

/** Sorts pes[from..end) by element, values alongside (insertion sort: entries mostly come in order, and nodes are small). */
function sortEntries(pes: PathElement[], values: FieldsV1[], from: number, end: number): void {
  let sorted = true;
  for (let i = from + 1; i < end && sorted; i++) sorted = compareEls(pes[i - 1], pes[i]) < 0;
  if (sorted) return;
  if (end - from > 32) {
    const order = pes.slice(from, end).map((pe, i) => ({ pe, f: values[from + i] }));
    order.sort((a, b) => compareEls(a.pe, b.pe));
    for (let i = 0; i < order.length; i++) {
      pes[from + i] = order[i].pe;
      values[from + i] = order[i].f;
    }
    return;
  }
  for (let i = from + 1; i < end; i++) {
    const pe = pes[i];
    const f = values[i];
    let j = i - 1;
    while (j >= from && compareEls(pes[j], pe) > 0) {
      pes[j + 1] = pes[j];
      values[j + 1] = values[j];
      j--;
    }
    pes[j + 1] = pe;
    values[j + 1] = f;
  }
}
