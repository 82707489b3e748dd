import { fieldElement, PathSetBuilder, type Path, type PathSet } from '../fieldpath';
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

function walk(schema: Schema, node: TypeNode, v: JsonValue, path: Path, b: PathSetBuilder): void {
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
    v.forEach((item, i) => {
      const p = [...path, listItemElement(atom, i, item, path)];
      walk(schema, atom.element, item, p, b);
      b.insert(p);
    });
    return;
  }
  if (!isObject(v) || atom.relationship === 'atomic') {
    b.insert(path);
    return;
  }
  for (const [key, child] of Object.entries(v)) {
    const declared = Object.prototype.hasOwnProperty.call(atom.fields, key);
    const childNode = declared ? atom.fields[key] : atom.element;
    const p = [...path, fieldElement(key)];
    if (childNode === undefined) {
      // Undeclared field of a closed struct: tracked as a leaf rather than rejected.
      b.insert(p);
      continue;
    }
    walk(schema, childNode, child, p, b);
    if (child === null || (isObject(child) && Object.keys(child).length === 0) || !declared) b.insert(p);
  }
}
