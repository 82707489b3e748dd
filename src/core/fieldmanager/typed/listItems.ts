import { indexElement, KeyElementEncoder, valueElement, type Path, type PathElement } from '../fieldpath';
import type { ListAtom } from '../schema';
import { isList, isObject, type JsonValue } from '../value';
import { TypedError } from './errors';

/** Per list type: the key encoder and a scratch array for the key values of one item. */
interface KeyScheme {
  encoder: KeyElementEncoder;
  values: JsonValue[];
}
const schemes = new WeakMap<ListAtom, KeyScheme>();

function schemeFor(atom: ListAtom): KeyScheme {
  let s = schemes.get(atom);
  if (!s) schemes.set(atom, (s = { encoder: new KeyElementEncoder(atom.keys), values: new Array<JsonValue>(atom.keys.length) }));
  return s;
}

/**
 * The element that identifies one item of a list, as its list type says.
 * `path` is the list's path, read only to report an error.
 */
export function listItemElement(atom: ListAtom, index: number, item: JsonValue, path: Path): PathElement {
  if (atom.relationship !== 'associative') return indexElement(index);
  if (atom.keys.length === 0) {
    if (isObject(item) || isList(item)) {
      throw new TypedError([...path], `element ${index}: associative list without keys has an element that's a map type`);
    }
    return valueElement(item);
  }
  if (!isObject(item)) {
    throw new TypedError([...path], `element ${index}: associative list with keys has an element that's not a map type`);
  }
  const scheme = schemeFor(atom);
  const keys = atom.keys;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = item[k];
    if (v !== undefined && v !== null) scheme.values[i] = v;
    else if (k in atom.keyDefaults) scheme.values[i] = atom.keyDefaults[k];
    else {
      throw new TypedError(
        [...path],
        `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
      );
    }
  }
  return scheme.encoder.element(scheme.values);
}
