import { canonicalJSON, compare, isObject, toGoString, type JsonObject, type JsonValue } from '../value';

/**
 * One step of a path: a struct field or map key (`f:`), an associative-list
 * entry identified by its key fields (`k:`), a set entry identified by its
 * value (`v:`), or a list index (`i:`, only for lists that have neither).
 * `id` is the FieldsV1 serialization, used as the identity everywhere.
 */
export type PathElement =
  | { readonly type: 'field'; readonly name: string; readonly id: string }
  | { readonly type: 'key'; readonly fields: readonly KeyField[]; readonly id: string }
  | { readonly type: 'value'; readonly value: JsonValue; readonly id: string }
  | { readonly type: 'index'; readonly index: number; readonly id: string };

export type KeyField = readonly [name: string, value: JsonValue];

export function fieldElement(name: string): PathElement {
  return { type: 'field', name, id: `f:${name}` };
}

export function keyElement(fields: Iterable<KeyField>): PathElement {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const body = sorted.map(([k, v]) => `${goJSON(k)}:${goJSON(v)}`).join(',');
  return { type: 'key', fields: sorted, id: `k:{${body}}` };
}

export function valueElement(value: JsonValue): PathElement {
  return { type: 'value', value, id: `v:${goJSON(value)}` };
}

export function indexElement(index: number): PathElement {
  return { type: 'index', index, id: `i:${index}` };
}

/** JSON as Go's encoder writes it: sorted keys and HTML-safe escapes. */
function goJSON(v: JsonValue): string {
  return canonicalJSON(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class PathElementError extends Error {}

/** Parses a FieldsV1 key back into an element. */
export function parseElement(id: string): PathElement {
  const colon = id.indexOf(':');
  const prefix = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  try {
    switch (prefix) {
      case 'f':
        return fieldElement(rest);
      case 'k': {
        const parsed: unknown = JSON.parse(rest);
        if (!isObject(parsed)) throw new PathElementError(`expected key fields in ${id}`);
        return keyElement(Object.entries(parsed as JsonObject));
      }
      case 'v':
        return valueElement(JSON.parse(rest) as JsonValue);
      case 'i': {
        const n = Number(rest);
        if (!Number.isInteger(n)) throw new PathElementError(`invalid index in ${id}`);
        return indexElement(n);
      }
    }
  } catch (e) {
    if (e instanceof PathElementError) throw e;
    throw new PathElementError(`parsing path element ${JSON.stringify(id)}: ${(e as Error).message}`);
  }
  throw new PathElementError(`unknown path element type ${JSON.stringify(id)}`);
}

const typeRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Order of elements: fields, then keys, then values, then indices. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.type !== b.type) return typeRank[a.type] - typeRank[b.type];
  switch (a.type) {
    case 'field': {
      const n = (b as typeof a).name;
      return a.name < n ? -1 : a.name > n ? 1 : 0;
    }
    case 'key': {
      const bf = (b as typeof a).fields;
      if (a.fields.length !== bf.length) return a.fields.length - bf.length;
      for (let i = 0; i < a.fields.length; i++) {
        const [an, av] = a.fields[i];
        const [bn, bv] = bf[i];
        if (an !== bn) return an < bn ? -1 : 1;
        const c = compare(av, bv);
        if (c !== 0) return c;
      }
      return 0;
    }
    case 'value':
      return compare(a.value, (b as typeof a).value);
    case 'index':
      return a.index - (b as typeof a).index;
  }
}

/** Human form used in conflict messages: `.name`, `[name="x"]`, `[="x"]`, `[0]`. */
export function elementToString(pe: PathElement): string {
  switch (pe.type) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${toGoString(v)}`).join(',')}]`;
    case 'value':
      return `[=${toGoString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}
