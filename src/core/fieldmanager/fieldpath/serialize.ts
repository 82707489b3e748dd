import { compareElements, parseElement, PathElementError, type PathElement } from './element';
import { PathSet } from './set';

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
 */
export function setToFieldsV1(set: PathSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: PathSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf) out['.'] = {};
  const members = set.unsortedMembers();
  const children = set.unsortedChildren();
  if (children.length === 0) {
    // A node of leaves only (the most common): no child lookups.
    const elements = members.length > 1 ? members.slice() : members;
    if (elements.length > 1) sortElements(elements as PathElement[]);
    for (let i = 0; i < elements.length; i++) out[elements[i].id] = {};
    return out;
  }
  const elements: PathElement[] = members.slice();
  for (let i = 0; i < children.length; i++) if (!set.hasMember(children[i].pe)) elements.push(children[i].pe);
  sortElements(elements);
  for (const pe of elements) {
    const child = set.child(pe);
    out[pe.id] = child ? emit(child, set.hasMember(pe)) : {};
  }
  return out;
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

/** Decodes FieldsV1; unknown element kinds are dropped as the server does. */
export function fieldsV1ToSet(fields: unknown): PathSet {
  const root = PathSet.newNode();
  if (!read(fields, root)) pruneEmpty(root);
  return root.empty() ? PathSet.EMPTY : root;
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
