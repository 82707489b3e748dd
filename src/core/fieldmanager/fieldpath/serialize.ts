import { compareElements, parseElement, PathElementError, type PathElement } from './element';
import { PathSet, type ChildNode } from './set';

/** The FieldsV1 form of a set: nested objects keyed by path elements, `{}` leaves. */
export type FieldsV1 = { [key: string]: FieldsV1 };

// Module-level copies of what encoding and decoding call per element: a call
// through an import binding may cost a getter call when modules are compiled to CommonJS.
const compareEls = compareElements;
const { addMemberTo, childNodeOf, pruneEmpty } = PathSet;
const elementOfKey = parseElement;

/**
 * Encodes a set as FieldsV1. Keys are written in element order, and a node
 * that is both a member and has children carries `".": {}` first.
 *
 * The result is frozen and shares its parts: every leaf is one empty
 * object, a node of leaves only is shared with every node listing the same
 * leaves (the fields of each of a thousand env entries), and a node's
 * encoding is kept on the node, which sets share when unchanged.
 */
export function setToFieldsV1(set: PathSet): FieldsV1 {
  return emit(set, false);
}

const LEAF: FieldsV1 = Object.freeze({}) as FieldsV1;

/** Nodes of leaves only, by their keys in order (bounded: sharing is an optimisation only). */
let leafNodes = new Map<string, FieldsV1>();
const MAX_LEAF_NODES = 1 << 12;

function emit(set: PathSet, includeSelf: boolean): FieldsV1 {
  const memo = includeSelf ? set.encodedWithSelf : set.encoded;
  if (memo !== undefined) return memo as FieldsV1;
  const children = set.unsortedChildren();
  const out = children.length === 0 ? leaves(set, includeSelf) : branch(set, includeSelf);
  if (includeSelf) set.encodedWithSelf = out;
  else set.encoded = out;
  return out;
}

function leaves(set: PathSet, includeSelf: boolean): FieldsV1 {
  const members = set.unsortedMembers();
  const elements = members.length > 1 ? members.slice() : members;
  if (elements.length > 1) sortElements(elements as PathElement[]);
  // Each id prefixed by its length: field names may hold any character.
  let key = includeSelf ? '.' : '';
  for (let i = 0; i < elements.length; i++) key += elements[i].id.length + ':' + elements[i].id;
  let out = leafNodes.get(key);
  if (out === undefined) {
    out = {};
    if (includeSelf) out['.'] = LEAF;
    for (let i = 0; i < elements.length; i++) out[elements[i].id] = LEAF;
    Object.freeze(out);
    if (leafNodes.size >= MAX_LEAF_NODES) leafNodes = new Map();
    leafNodes.set(key, out);
  }
  return out;
}

/**
 * A node with children: its members and its children, each sorted, merged
 * in one pass (an element that is both carries its own `"."`), with no
 * lookups by id.
 */
function branch(set: PathSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf) out['.'] = LEAF;
  const members = set.unsortedMembers().slice();
  const children = set.unsortedChildren().slice();
  sortElements(members);
  sortChildren(children);
  let i = 0;
  let j = 0;
  while (i < members.length || j < children.length) {
    const c = i === members.length ? 1 : j === children.length ? -1 : compareEls(members[i], children[j].pe);
    if (c < 0) out[members[i++].id] = LEAF;
    else {
      const child = children[j++];
      out[child.pe.id] = emit(child.set, c === 0);
      if (c === 0) i++;
    }
  }
  return Object.freeze(out);
}

function sortChildren(a: ChildNode[]): void {
  for (let i = 1; i < a.length; i++) {
    if (compareEls(a[i - 1].pe, a[i].pe) > 0) {
      a.sort((x, y) => compareEls(x.pe, y.pe));
      return;
    }
  }
}

/**
 * Sorts in place. Elements mostly arrive in order already (decoded sets keep
 * FieldsV1 order) and nodes are small, so check first and insertion-sort
 * small arrays: Array.prototype.sort allocates a work copy on every call.
 */
function sortElements(a: PathElement[]): void {
  let sorted = true;
  for (let i = 1; i < a.length; i++) {
    if (compareEls(a[i - 1], a[i]) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  if (a.length > 32) {
    a.sort(compareEls);
    return;
  }
  for (let i = 1; i < a.length; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= 0 && compareEls(a[j], x) > 0) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

export class FieldsV1Error extends Error {}

/**
 * Decodes FieldsV1; unknown element kinds are dropped as the server does.
 * The set is shared (PathSet.sharedDeep): decoding a manager's entry again
 * gives the nodes its last apply built.
 */
export function fieldsV1ToSet(fields: unknown): PathSet {
  const root = PathSet.newNode();
  if (!read(fields, root)) pruneEmpty(root);
  return root.empty() ? PathSet.EMPTY : PathSet.sharedDeep(root);
}

/** Fills `node` (a set under construction); false when a child may have been left empty. */
function read(fields: unknown, node: PathSet): boolean {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new FieldsV1Error('FieldsV1 must be a JSON object');
  }
  let clean = true;
  const obj = fields as Record<string, unknown>;
  for (const key in obj) {
    if (key === '.') continue;
    let pe: PathElement;
    try {
      pe = elementOfKey(key);
    } catch (e) {
      if (e instanceof PathElementError && e.message.startsWith('unknown path element type')) {
        clean = false;
        continue;
      }
      throw new FieldsV1Error((e as Error).message);
    }
    const grand = obj[key];
    // A node is a member when it is a leaf `{}` or carries `"."`; other keys are paths below it.
    let self = false;
    let below = false;
    if (typeof grand === 'object' && grand !== null) {
      for (const k in grand) {
        if (k === '.') self = true;
        else below = true;
        if (self && below) break;
      }
      if (!self && !below) self = true;
    } else {
      self = true;
    }
    if (self) addMemberTo(node, pe);
    if (below && !read(grand, childNodeOf(node, pe))) clean = false;
  }
  return clean;
}
