// Equality and ordering with CEL's heterogeneous semantics: numbers compare
// across int, uint and double; lists and maps compare structurally; lists
// typed as sets or map-lists compare without regard to order.

import {
  CelDuration,
  CelMap,
  CelOpaque,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  LIST_TYPE,
  fromJson,
  isPlainObject,
  type CelValue,
  type TypedList,
} from './values';

/** Compare a bigint with a double exactly; NaN yields undefined. */
export function compareIntDouble(a: bigint, d: number): number | undefined {
  // cel-go converts the integer to double (lossy near 2^63), as the API server does
  if (Number.isNaN(d)) return undefined;
  const x = Number(a);
  return x < d ? -1 : x > d ? 1 : 0;
}

function numCompare(a: CelValue, b: CelValue): number | undefined {
  const ab = typeof a === 'bigint' ? a : a instanceof CelUint ? a.v : undefined;
  const bb = typeof b === 'bigint' ? b : b instanceof CelUint ? b.v : undefined;
  if (ab !== undefined && bb !== undefined) return ab < bb ? -1 : ab > bb ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (ab !== undefined && typeof b === 'number') return compareIntDouble(ab, b);
  if (bb !== undefined && typeof a === 'number') {
    const c = compareIntDouble(bb, a);
    return c === undefined ? undefined : -c;
  }
  return undefined;
}

export function isNumber(v: CelValue): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || v instanceof CelUint;
}

/** Code-point order of two strings (JavaScript's < compares UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates sort above the rest of the BMP in code-point order
    if (x >= 0xd800 && x <= 0xdfff) x += 0x10000;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x10000;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

/** Ordering for <, <=, >, >=; undefined when the operands are not comparable. */
export function celCompare(a: CelValue, b: CelValue): number | undefined {
  if (typeof a === 'string') return typeof b === 'string' ? compareStrings(a, b) : undefined;
  if (isNumber(a)) return numCompare(a, b);
  if (typeof a === 'boolean') return typeof b === 'boolean' ? (a === b ? 0 : a ? 1 : -1) : undefined;
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? compareBytes(a, b) : undefined;
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp ? sign(a.nanos - b.nanos) : undefined;
  if (a instanceof CelDuration) return b instanceof CelDuration ? sign(a.nanos - b.nanos) : undefined;
  if (a instanceof CelOpaque && 'compare' in a && typeof (a as { compare: unknown }).compare === 'function') {
    return (a as unknown as { compare(o: CelValue): number | undefined }).compare(b);
  }
  return undefined;
}

function sign(x: bigint): number {
  return x < 0n ? -1 : x > 0n ? 1 : 0;
}

export function mapGet(m: CelMap | Record<string, unknown>, k: CelValue): CelValue | undefined {
  if (m instanceof CelMap) {
    const v = m.get(k);
    if (v !== undefined) return v;
    if (typeof k === 'number' && !Number.isInteger(k)) return undefined;
    return undefined;
  }
  if (typeof k !== 'string') return undefined;
  if (!Object.prototype.hasOwnProperty.call(m, k)) return undefined;
  return fromJson(m[k]);
}

export function mapSize(m: CelMap | Record<string, unknown>): number {
  return m instanceof CelMap ? m.size : Object.keys(m).length;
}

export function mapKeys(m: CelMap | Record<string, unknown>): CelValue[] {
  return m instanceof CelMap ? [...m.keys()] : Object.keys(m);
}

/** CEL equality (never an error: values of different kinds are unequal). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  switch (typeof a) {
    case 'string':
    case 'boolean':
      return false;
    case 'bigint':
    case 'number':
      return numCompare(a, b) === 0;
  }
  if (a === null || b === null) return false;
  if (a instanceof CelUint) return numCompare(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    const la = (a as TypedList)[LIST_TYPE];
    const lb = (b as TypedList)[LIST_TYPE];
    if (la || lb) return a.every((x) => b.some((y) => celEquals(x, y)));
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (a instanceof CelMap || isPlainObject(a)) {
    if (!(b instanceof CelMap || isPlainObject(b))) return false;
    const ma = a as CelMap | Record<string, unknown>;
    const mb = b as CelMap | Record<string, unknown>;
    if (mapSize(ma) !== mapSize(mb)) return false;
    for (const k of mapKeys(ma)) {
      const vb = mapGet(mb, k);
      if (vb === undefined || !celEquals(mapGet(ma, k)!, vb)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.nanos === b.nanos;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.nanos === b.nanos;
  if (a instanceof CelTypeValue) return b instanceof CelTypeValue && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (a.value === undefined || b.value === undefined) return a.value === b.value;
    return celEquals(a.value, b.value);
  }
  if (a instanceof CelOpaque) return a.equal(b);
  return false;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which CEL's string(double) uses. */
export function formatDouble(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const exp = f.toExponential(); // shortest round-trip digits
  const [mant, e] = exp.split('e') as [string, string];
  const x = Number(e);
  if (x < -4 || x >= 6) {
    const es = Math.abs(x) < 10 ? '0' + Math.abs(x) : String(Math.abs(x));
    return `${mant}e${x < 0 ? '-' : '+'}${es}`;
  }
  return String(f);
}
