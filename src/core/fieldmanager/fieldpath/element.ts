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

/**
 * Elements are immutable, so equal ones are shared: walkers and decoders
 * build the same few thousand elements on every request, and sharing them
 * saves the allocations and lets tries compare paths by identity. The table
 * is bounded; when full it starts over (sharing is an optimisation only).
 */
const MAX_INTERNED = 1 << 14;
let byId = new Map<string, PathElement>();
let fieldsByName = new Map<string, PathElement>();

function intern(pe: PathElement): PathElement {
  if (byId.size >= MAX_INTERNED) byId = new Map();
  byId.set(pe.id, pe);
  return pe;
}

export function fieldElement(name: string): PathElement {
  let pe = fieldsByName.get(name);
  if (pe === undefined) {
    if (fieldsByName.size >= MAX_INTERNED) fieldsByName = new Map();
    pe = { type: 'field', name, id: `f:${name}` };
    fieldsByName.set(name, pe);
  }
  return pe;
}

export function keyElement(fields: Iterable<KeyField>): PathElement {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const body = sorted.map(([k, v]) => `${goJSON(k)}:${goJSON(v)}`).join(',');
  const id = `k:{${body}}`;
  return byId.get(id) ?? intern({ type: 'key', fields: sorted, id });
}

/**
 * Builds key elements for one list type: key names fixed and sorted, their
 * encoding done once, so an entry costs one string and one table lookup.
 */
export class KeyElementEncoder {
  private readonly prefixes: string[];
  /** Single-key lists with scalar keys (the common case): element by raw key value. */
  private byScalar = new Map<string | number | boolean, PathElement>();
  /** Two-key lists with scalar keys (ports: port and protocol): element by the first value, then the second. */
  private byPair = new Map<string | number | boolean, Map<string | number | boolean, PathElement>>();
  private pairs = 0;

  /** `names` must be sorted (as list-map keys are). */
  constructor(private readonly names: readonly string[]) {
    this.prefixes = names.map((n, i) => `${i === 0 ? 'k:{' : ','}${goJSON(n)}:`);
  }

  /** The element for the key values given in name order. */
  element(values: readonly JsonValue[]): PathElement {
    if (this.names.length === 1) {
      const v = values[0];
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        let pe = this.byScalar.get(v);
        if (pe === undefined) {
          pe = this.build(values);
          if (this.byScalar.size >= MAX_INTERNED) this.byScalar = new Map();
          this.byScalar.set(v, pe);
        }
        return pe;
      }
    } else if (this.names.length === 2) {
      const v = values[0];
      const w = values[1];
      if (isScalar(v) && isScalar(w)) {
        let byW = this.byPair.get(v);
        let pe = byW?.get(w);
        if (pe === undefined) {
          pe = this.build(values);
          if (this.pairs >= MAX_INTERNED) {
            this.byPair = new Map();
            this.pairs = 0;
            byW = undefined;
          }
          if (byW === undefined) this.byPair.set(v, (byW = new Map()));
          byW.set(w, pe);
          this.pairs++;
        }
        return pe;
      }
    }
    return this.build(values);
  }

  private build(values: readonly JsonValue[]): PathElement {
    let id = '';
    for (let i = 0; i < this.prefixes.length; i++) id += this.prefixes[i] + goJSON(values[i]);
    id += '}';
    const pe = byId.get(id);
    if (pe !== undefined) return pe;
    const fields: KeyField[] = this.names.map((n, i) => [n, values[i]] as const);
    return intern({ type: 'key', fields, id });
  }
}

const isScalar = (v: JsonValue): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

export function valueElement(value: JsonValue): PathElement {
  const id = `v:${goJSON(value)}`;
  return byId.get(id) ?? intern({ type: 'value', value, id });
}

export function indexElement(index: number): PathElement {
  return { type: 'index', index, id: `i:${index}` };
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;

/** JSON as Go's encoder writes it: sorted keys and HTML-safe escapes. */
function goJSON(v: JsonValue): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : canonicalJSON(v);
  if (!HTML_UNSAFE.test(s)) return s;
  return s.replace(HTML_UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class PathElementError extends Error {}

// FieldsV1 keys are decoded on every write of an object: remember what each key parsed to.
let parsed = new Map<string, PathElement>();

/** Parses a FieldsV1 key back into an element. */
export function parseElement(id: string): PathElement {
  let pe = parsed.get(id);
  if (pe === undefined) {
    pe = parseElementUncached(id);
    if (parsed.size >= MAX_INTERNED) parsed = new Map();
    parsed.set(id, pe);
  }
  return pe;
}

function parseElementUncached(id: string): PathElement {
  const colon = id.indexOf(':');
  const prefix = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  try {
    switch (prefix) {
      case 'f':
        return fieldElement(rest);
      case 'k': {
        const fields: unknown = JSON.parse(rest);
        if (!isObject(fields)) throw new PathElementError(`expected key fields in ${id}`);
        return keyElement(Object.entries(fields as JsonObject));
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
  if (a === b) return 0;
  if (a.type !== b.type) return typeRank[a.type] - typeRank[b.type];
  // The common list-map key, one string field of the same name: compare the strings.
  if (a.type === 'key' && a.fields.length === 1) {
    const bf = (b as typeof a).fields;
    if (bf.length === 1 && a.fields[0][0] === bf[0][0]) {
      const av = a.fields[0][1];
      const bv = bf[0][1];
      if (typeof av === 'string' && typeof bv === 'string') return av < bv ? -1 : av > bv ? 1 : 0;
    }
  }
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
