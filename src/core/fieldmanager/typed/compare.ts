import { fieldElement, PathSet, PathSetBuilder, type Path, type PathElement } from '../fieldpath';
import type { Atom, Schema, TypeNode } from '../schema';
import { deepCopy, equals, type JsonObject, type JsonValue } from '../value';
import { listItemElement } from './listItems';
import { mergeWalk, type MergeRules } from './merge';

/** What changed between two versions of an object, as field sets. */
export interface Comparison {
  added: PathSet;
  modified: PathSet;
  removed: PathSet;
}

/**
 * Compares two values of one type. Leaves are added, removed or modified;
 * maps, lists and entries that appear or disappear as a whole are added or
 * removed themselves too (so a new map carries `.` in FieldsV1).
 */
export function compare(schema: Schema, node: TypeNode, lhs: JsonValue, rhs: JsonValue): Comparison {
  const added = new PathSetBuilder();
  const modified = new PathSetBuilder();
  const removed = new PathSetBuilder();
  const rules: MergeRules = {
    leaf(path, l, r) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
      else if (!equals(l, r)) modified.insert(path);
      return undefined;
    },
    post(path, l, r) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
    },
    // A subtree on one side only (all of a created object but its top-level
    // stubs) is all added or all removed: no pairing of sides to do.
    oneSided: oneSidedWalks ? oneSided : undefined,
    discardOutput: true,
  };
  function oneSided(n: TypeNode, path: Path, l: JsonValue | undefined, r: JsonValue | undefined): void {
    if (l === undefined) insertAll(schema, n, r, path as PathElement[], added, false);
    else insertAll(schema, n, l, path as PathElement[], removed, true);
  }
  mergeWalk(schema, node, lhs, rhs, rules);
  return { added: added.build(), modified: modified.build(), removed: removed.build() };
}

/**
 * merge(lhs, rhs) (typed/index.ts) and, from the same walk, what it changes
 * in lhs: the same sets as compare(lhs, merged), none removed (a merge
 * removes nothing). A leaf the configuration sets is added when lhs lacks
 * it and modified when it differs; a map or list that lhs lacks is added.
 * What the configuration leaves out is lhs's, unchanged.
 */
export function mergeComparing(schema: Schema, node: TypeNode, lhs: JsonValue, rhs: JsonValue): { merged: JsonValue; comparison: Comparison } {
  // The walk visits each node once, depth first.
  const added = new PathSetBuilder(true);
  const modified = new PathSetBuilder(true);
  const rules: MergeRules = {
    leaf(path, l, r) {
      if (r === undefined) return deepCopy(l as JsonValue);
      if (l === undefined) added.insert(path);
      // Scalars (most leaves) compare by value here; lists and maps deeply.
      else if (l !== r && (typeof l !== 'object' || typeof r !== 'object' || !equals(l, r))) modified.insert(path);
      return typeof r === 'object' && r !== null ? deepCopy(r) : r;
    },
    post(path, l) {
      if (l === undefined) added.insert(path);
    },
    strictRHS: true,
  };
  const merged = mergeWalk(schema, node, lhs, rhs, rules) ?? {};
  return { merged, comparison: { added: added.build(), modified: modified.build(), removed: PathSet.EMPTY } };
}

let oneSidedWalks = true;

/**
 * Tests only: with false, one-sided subtrees go through the general merging
 * walk, the reference the shortcut must agree with.
 */
export function setOneSidedWalks(enabled: boolean): void {
  oneSidedWalks = enabled;
}

const hasOwn = Object.prototype.hasOwnProperty;
// Module-level copies of what the walk calls per node: a call through an
// import binding may cost a getter call when modules are compiled to CommonJS.
const { addMemberTo, childNodeOf } = PathSet;
const elementOfField = fieldElement;
const elementOfItem = listItemElement;
const isArray = Array.isArray;

/**
 * Inserts into `b` what the merging walk reports for a value present on one
 * side only (`v`, at `path`): every node of it, itself included. `left`
 * says whether `v` is the left side (the walk then types a null by the
 * null). Lists keep the first entry of a repeated key, and all their keys
 * are checked before any entry is visited, so errors are the walk's too.
 */
function insertAll(schema: Schema, node: TypeNode, v: JsonValue | undefined, path: PathElement[], b: PathSetBuilder, left: boolean): void {
  const n = path.length;
  if (n === 0) {
    // The root is no path of its own: only what is below it.
    const atom = schema.resolve(node, v === null && !left ? undefined : v);
    if (!isLeaf(atom, v)) fill(schema, atom, v as JsonObject | JsonValue[], b.nodeAt(path), path, left);
    return;
  }
  const pe = path[n - 1];
  path.pop();
  const parent = b.nodeAt(path);
  path.push(pe);
  insertBelow(schema, node, v, parent, pe, path, left);
}

/** Whether the walk takes `v` of this type as one leaf (scalars, atomic, empty or mistyped values). */
function isLeaf(atom: Atom, v: JsonValue | undefined): boolean {
  if (atom.kind === 'scalar') return true;
  if (atom.kind === 'list') return !isArray(v) || v.length === 0 || atom.relationship === 'atomic';
  return typeof v !== 'object' || v === null || isArray(v) || atom.relationship === 'atomic' || isEmpty(v);
}

/**
 * Adds `pe` (the last element of `path`) as a member of `parent`, and what
 * `v` holds below it. Nodes are filled directly, children first, in the
 * order the walk inserts them; `path` serves error messages and is restored.
 */
function insertBelow(
  schema: Schema,
  node: TypeNode,
  v: JsonValue | undefined,
  parent: PathSet,
  pe: PathElement,
  path: PathElement[],
  left: boolean,
): void {
  const atom = schema.resolve(node, v === null && !left ? undefined : v);
  if (!isLeaf(atom, v)) fill(schema, atom, v as JsonObject | JsonValue[], childNodeOf(parent, pe), path, left);
  addMemberTo(parent, pe);
}

/** Fills `self` (the node at `path`) with the entries of a non-empty granular list or map. */
function fill(schema: Schema, atom: Atom, v: JsonObject | JsonValue[], self: PathSet, path: PathElement[], left: boolean): void {
  if (atom.kind === 'list') {
    const list = v as JsonValue[];
    const pes: PathElement[] = [];
    const items: JsonValue[] = [];
    const seen = list.length > 8 ? new Set<string>() : undefined;
    for (let i = 0; i < list.length; i++) {
      const pe = elementOfItem(atom, i, list[i], path);
      let dup = false;
      if (seen) {
        dup = seen.has(pe.id);
        seen.add(pe.id);
      } else {
        for (let j = 0; j < pes.length && !dup; j++) dup = pes[j].id === pe.id;
      }
      if (dup) continue;
      pes.push(pe);
      items.push(list[i]);
    }
    for (let i = 0; i < pes.length; i++) {
      path.push(pes[i]);
      insertBelow(schema, atom.element, items[i], self, pes[i], path, left);
      path.pop();
    }
    return;
  }
  if (atom.kind !== 'map') return;
  const obj = v as JsonObject;
  for (const key in obj) {
    if (!hasOwn.call(obj, key)) continue;
    const child = hasOwn.call(atom.fields, key) ? atom.fields[key] : atom.element;
    const pe = elementOfField(key);
    if (child === undefined) {
      addMemberTo(self, pe);
      continue;
    }
    path.push(pe);
    insertBelow(schema, child, obj[key], self, pe, path, left);
    path.pop();
  }
}

// As the merging walk tests it.
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

export function comparisonIsSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}
