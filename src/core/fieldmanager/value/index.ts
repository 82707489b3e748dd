/**
 * Package value: the data structured-merge-diff works on. Values are plain
 * JSON (what a decoded request body or a stored object is); this package
 * gives them the few operations the other packages need: deep equality that
 * ignores key order, a total order, a canonical encoding and Go-like printing.
 * It imports nothing.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isList(v: unknown): v is JsonValue[] {
  return Array.isArray(v);
}

/** Deep equality where object key order does not matter (as Go maps compare). */
export function equals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false;
    return true;
  }
  if (typeof a === 'object') {
    if (typeof b !== 'object' || Array.isArray(b)) return false;
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    for (const k of ak) {
      if (!Object.prototype.hasOwnProperty.call(b, k) || !equals(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}

function rank(v: JsonValue): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'number':
      return 1;
    case 'string':
      return 2;
    case 'boolean':
      return 3;
    default:
      return Array.isArray(v) ? 4 : 5;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A total order on values: null < numbers < strings < booleans < lists < maps. */
export function compare(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return (a as number) - (b as number);
    case 2:
      return compareStrings(a as string, b as string);
    case 3:
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 4: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compare(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length - lb.length;
    }
    default: {
      const ma = a as JsonObject;
      const mb = b as JsonObject;
      const ka = Object.keys(ma).sort();
      const kb = Object.keys(mb).sort();
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c = compareStrings(ka[i], kb[i]) || compare(ma[ka[i]], mb[kb[i]]);
        if (c !== 0) return c;
      }
      return ka.length - kb.length;
    }
  }
}

/** JSON with object keys sorted, so equal values encode identically. */
export function canonicalJSON(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`).join(',')}}`;
}

/** Prints a value as Go's value.ToString does: strings quoted, others as JSON. */
export function toGoString(v: JsonValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  return canonicalJSON(v);
}

/** A copy sharing no object or list with `v` (plain JSON: cheaper than structuredClone). */
export function deepCopy<T extends JsonValue>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array<JsonValue>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopy(v[i]);
    return out as T;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) out[k] = deepCopy((v as JsonObject)[k]);
  return out as T;
}

export { goFloat, goQuote, goSharpV, goType, goV } from './goFormat';
