import { fieldElement, PathSet, type PathElement } from '../fieldpath';
import type { ListAtom, MapAtom, Schema, TypeNode } from '../schema';
import { isList, isObject, type JsonObject, type JsonValue } from '../value';
import { listItemElement } from './listItems';

/**
 * The set of fields a value sets: leaves, list and map entries, and struct
 * fields that hold null or an empty object. Atomic lists and maps count as
 * one leaf. This is what an applier owns.
 */
export function toFieldSet(schema: Schema, node: TypeNode, value: JsonValue): PathSet {
  const root = PathSet.newNode();
  const w: Walk = { schema, path: [], repeated: false };
  // The root is no path of its own: only what is below it.
  const atom = schema.resolve(node, value);
  if (atom.kind === 'list' && atom.relationship !== 'atomic' && isList(value)) fillList(w, atom, value, root, false);
  else if (atom.kind === 'map' && atom.relationship !== 'atomic' && isObject(value)) fillMap(w, atom, value, root, false);
  // A list with a repeated key may have left a node empty (and its nodes are not shared).
  if (w.repeated) pruneEmpty(root);
  if (root.empty()) return PathSet.EMPTY;
  return w.repeated ? root : shared(root);
}

/**
 * The walk fills the set's nodes directly. A map's keys are distinct, and
 * so are a list's items unless a key repeats: a node is then filled without
 * looking up what it holds, except below a list with a repeated key, whose
 * items share their nodes (`checked`).
 */
interface Walk {
  schema: Schema;
  /** Path of the node being filled, for errors (a stack). */
  path: PathElement[];
  /** Whether some list had a repeated key. */
  repeated: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;
// Module-level copies of what the walk calls per node: a call through an
// import binding may cost a getter call when modules are compiled to CommonJS.
const { addMemberTo, appendMember, appendChild, childNodeOf, newNode, pruneEmpty, shared } = PathSet;
const elementOfField = fieldElement;
const elementOfItem = listItemElement;

function member(parent: PathSet, pe: PathElement, checked: boolean): true {
  if (checked) addMemberTo(parent, pe);
  else appendMember(parent, pe);
  return true;
}

/**
 * Adds to `parent` what value `v` of type `node` sets below the element
 * `pe`: `pe` itself for a leaf, its entries for a granular list or map.
 * True when `pe` became a member.
 */
function add(w: Walk, node: TypeNode, v: JsonValue, parent: PathSet, pe: PathElement, checked: boolean): boolean {
  const atom = w.schema.resolve(node, v);
  if (atom.kind === 'scalar') return member(parent, pe, checked);
  if (atom.kind === 'list') {
    if (!isList(v) || atom.relationship === 'atomic') return v !== null || atom.relationship === 'atomic' ? member(parent, pe, checked) : false;
    if (v.length === 0) return false;
    const self = checked ? childNodeOf(parent, pe) : newNode();
    w.path.push(pe);
    const itemsChecked = fillList(w, atom, v, self, checked);
    w.path.pop();
    // Never empty: every item is a member. Items that share nodes may leave some empty, pruned at the end: not shared.
    if (!checked) appendChild(parent, pe, itemsChecked ? self : shared(self));
    return false;
  }
  if (!isObject(v) || atom.relationship === 'atomic') return member(parent, pe, checked);
  // A new node is attached once filled, if anything was; a checked one may be left empty (pruned at the end).
  const self = checked ? childNodeOf(parent, pe) : newNode();
  w.path.push(pe);
  fillMap(w, atom, v, self, checked);
  w.path.pop();
  if (!checked && !self.empty()) appendChild(parent, pe, shared(self));
  return false;
}

/** Fills `self` with the list's items; true when they share nodes (a key repeats). */
function fillList(w: Walk, atom: ListAtom, v: JsonValue[], self: PathSet, checked: boolean): boolean {
  const pes: PathElement[] = new Array<PathElement>(v.length);
  for (let i = 0; i < v.length; i++) pes[i] = elementOfItem(atom, i, v[i], w.path);
  const itemsChecked = checked || hasRepeats(pes);
  if (itemsChecked) w.repeated = true;
  for (let i = 0; i < v.length; i++) {
    // An item is a member whatever it holds.
    if (!add(w, atom.element, v[i], self, pes[i], itemsChecked)) member(self, pes[i], itemsChecked);
  }
  return itemsChecked;
}

function fillMap(w: Walk, atom: MapAtom, v: JsonObject, self: PathSet, checked: boolean): void {
  for (const key in v) {
    if (!hasOwn.call(v, key)) continue;
    const child = v[key];
    const declared = hasOwn.call(atom.fields, key);
    const childNode = declared ? atom.fields[key] : atom.element;
    const pe = elementOfField(key);
    // Undeclared field of a closed struct: tracked as a leaf rather than rejected.
    if (childNode === undefined) member(self, pe, checked);
    else if (!add(w, childNode, child, self, pe, checked) && (child === null || (isObject(child) && isEmpty(child)) || !declared)) {
      member(self, pe, checked);
    }
  }
}

/** Lists up to this long are searched for a repeated key by scanning (no set to allocate). */
const SCAN_UP_TO = 32;

function hasRepeats(pes: PathElement[]): boolean {
  if (pes.length <= SCAN_UP_TO) {
    for (let i = 1; i < pes.length; i++) for (let j = 0; j < i; j++) if (pes[i] === pes[j] || pes[i].id === pes[j].id) return true;
    return false;
  }
  const seen = new Set<string>();
  for (let i = 0; i < pes.length; i++) {
    if (seen.has(pes[i].id)) return true;
    seen.add(pes[i].id);
  }
  return false;
}

function isEmpty(o: object): boolean {
  for (const k in o) if (hasOwn.call(o, k)) return false;
  return true;
}
