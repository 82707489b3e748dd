import { fieldElement, PathSetBuilder, type PathElement, type PathSet } from '../fieldpath';
import type { Schema, TypeNode } from '../schema';
import { isList, isObject, type JsonValue } from '../value';
import { listItemElement } from './listItems';

/**
 * The set of fields a value sets: leaves, list and map entries, and struct
 * fields that hold null or an empty object. Atomic lists and maps count as
 * one leaf. This is what an applier owns.
 */
export function toFieldSet(schema: Schema, node: TypeNode, value: JsonValue): PathSet {
  const b = new PathSetBuilder();
  walk(schema, node, value, [], b);
  return b.build();
}

const hasOwn = Object.prototype.hasOwnProperty;

/** `path` is a stack the walk pushes to and pops from; the builder copies what it keeps. */
function walk(schema: Schema, node: TypeNode, v: JsonValue, path: PathElement[], b: PathSetBuilder): void {
  const atom = schema.resolve(node, v);
  if (atom.kind === 'scalar') {
    b.insert(path);
    return;
  }
  if (atom.kind === 'list') {
    if (!isList(v) || atom.relationship === 'atomic') {
      if (v !== null || atom.relationship === 'atomic') b.insert(path);
      return;
    }
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      path.push(listItemElement(atom, i, item, path));
      walk(schema, atom.element, item, path, b);
      b.insert(path);
      path.pop();
    }
    return;
  }
  if (!isObject(v) || atom.relationship === 'atomic') {
    b.insert(path);
    return;
  }
  for (const key in v) {
    if (!hasOwn.call(v, key)) continue;
    const child = v[key];
    const declared = hasOwn.call(atom.fields, key);
    const childNode = declared ? atom.fields[key] : atom.element;
    path.push(fieldElement(key));
    if (childNode === undefined) {
      // Undeclared field of a closed struct: tracked as a leaf rather than rejected.
      b.insert(path);
    } else {
      walk(schema, childNode, child, path, b);
      if (child === null || (isObject(child) && isEmpty(child)) || !declared) b.insert(path);
    }
    path.pop();
  }
}

function isEmpty(o: object): boolean {
  for (const k in o) if (hasOwn.call(o, k)) return false;
  return true;
}
