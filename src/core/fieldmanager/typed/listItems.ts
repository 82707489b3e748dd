import { indexElement, keyElement, valueElement, type KeyField, type Path, type PathElement } from '../fieldpath';
import type { ListAtom } from '../schema';
import { isList, isObject, type JsonValue } from '../value';
import { TypedError } from './errors';

/** The element that identifies one item of a list, as its list type says. */
// Key elements are costly to build and items are never mutated: remember them per list type.
const keyCache = new WeakMap<ListAtom, WeakMap<object, PathElement>>();

export function listItemElement(atom: ListAtom, index: number, item: JsonValue, path: Path): PathElement {
  if (atom.relationship !== 'associative') return indexElement(index);
  if (atom.keys.length > 0 && isObject(item)) {
    let cache = keyCache.get(atom);
    if (!cache) keyCache.set(atom, (cache = new WeakMap()));
    let pe = cache.get(item);
    if (!pe) cache.set(item, (pe = keyedElement(atom, index, item, path)));
    return pe;
  }
  return keyedElement(atom, index, item, path);
}

function keyedElement(atom: ListAtom, index: number, item: JsonValue, path: Path): PathElement {
  if (atom.keys.length === 0) {
    if (isObject(item) || isList(item)) {
      throw new TypedError(path, `element ${index}: associative list without keys has an element that's a map type`);
    }
    return valueElement(item);
  }
  if (!isObject(item)) {
    throw new TypedError(path, `element ${index}: associative list with keys has an element that's not a map type`);
  }
  const fields: KeyField[] = [];
  for (const k of atom.keys) {
    const v = item[k];
    if (v !== undefined && v !== null) fields.push([k, v]);
    else if (k in atom.keyDefaults) fields.push([k, atom.keyDefaults[k]]);
    else {
      throw new TypedError(
        path,
        `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
      );
    }
  }
  return keyElement(fields);
}
