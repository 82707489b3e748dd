import { fieldElement, type PathSet } from '../fieldpath';
import type { Schema, TypeNode } from '../schema';
import { isList, isObject, type JsonObject, type JsonValue } from '../value';
import { listItemElement } from './listItems';

/**
 * The value without the paths in `toRemove` (fields, map keys, list
 * entries). A map or list left without entries disappears from its parent.
 */
export function removeItems(schema: Schema, node: TypeNode, value: JsonValue, toRemove: PathSet): JsonValue {
  if (toRemove.empty()) return value;
  return remove(schema, node, value, toRemove) ?? (isObject(value) ? {} : value);
}

function remove(schema: Schema, node: TypeNode, v: JsonValue, toRemove: PathSet): JsonValue | undefined {
  const atom = schema.resolve(node, v);
  if (atom.kind === 'scalar') return v;
  if (atom.kind === 'list') {
    if (!isList(v)) return v;
    if (v.length === 0) return undefined;
    if (atom.relationship === 'atomic') return undefined;
    const out: JsonValue[] = [];
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      const pe = listItemElement(atom, i, item, []);
      if (toRemove.hasMember(pe)) continue;
      const sub = toRemove.child(pe);
      const kept = sub === undefined ? item : remove(schema, atom.element, item, sub);
      if (kept !== undefined) out.push(kept);
    }
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(v)) return v;
  const keys = Object.keys(v);
  if (keys.length === 0) return undefined;
  if (atom.relationship === 'atomic') return undefined;
  const out: JsonObject = {};
  for (const key of keys) {
    const child = v[key];
    const pe = fieldElement(key);
    if (toRemove.hasMember(pe)) continue;
    const sub = toRemove.child(pe);
    if (sub === undefined) {
      out[key] = child;
      continue;
    }
    const declared = hasOwn.call(atom.fields, key);
    const childNode = declared ? atom.fields[key] : atom.element;
    const kept = childNode === undefined ? child : remove(schema, childNode, child, sub);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const hasOwn = Object.prototype.hasOwnProperty;
