// Runtime values of the CEL engine. Scalars use JavaScript primitives
// (int = bigint, double = number, string, boolean, null, bytes = Uint8Array),
// lists are arrays, maps are CelMap or plain JSON objects (string keys), and
// the remaining CEL kinds are small classes below. Errors and unknowns are
// values too: evaluation never throws for a CEL error.

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

export class CelUint {
  constructor(readonly v: bigint) {}
}

/** Nanoseconds since the Unix epoch, UTC. */
export class CelTimestamp {
  constructor(readonly nanos: bigint) {}
}

export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

/** A type used as a value (`type(1) == int`). */
export class CelTypeValue {
  constructor(readonly name: string) {}
}

/** Base of the two non-values (errors and unknowns), so one instanceof tells them apart. */
export abstract class CelFault {}

/** A CEL error value; exprId points at the failing sub-expression. */
export class CelError extends CelFault {
  constructor(
    readonly message: string,
    public exprId = 0,
  ) {
    super();
  }
}

export class CelUnknown extends CelFault {
  constructor(readonly ids: number[]) {
    super();
  }
}

export class CelOptional {
  static readonly NONE = new CelOptional(undefined);
  constructor(readonly value: CelValue | undefined) {}
  hasValue(): boolean {
    return this.value !== undefined;
  }
}

/** Library-defined values (Quantity, URL, IP, ...). */
export abstract class CelOpaque {
  abstract readonly typeName: string;
  abstract equal(other: CelValue): boolean;
  /** Size for cost accounting; 1 unless the value has a natural length. */
  size(): number {
    return 1;
  }
}

export type JsonObject = { [key: string]: unknown };

export type MapKey = bigint | string | boolean;

/** A CEL map with int, uint, bool or string keys. int and uint keys share one slot, as heterogeneous equality requires. */
export class CelMap {
  readonly entries = new Map<MapKey, [CelValue, CelValue]>();
  get size(): number {
    return this.entries.size;
  }
  static keyOf(k: CelValue): MapKey | undefined {
    if (typeof k === 'string' || typeof k === 'bigint' || typeof k === 'boolean') return k;
    if (k instanceof CelUint) return k.v;
    if (typeof k === 'number' && Number.isInteger(k)) return BigInt(k);
    return undefined;
  }
  set(k: CelValue, v: CelValue): boolean {
    const key = CelMap.keyOf(k);
    if (key === undefined) return false;
    this.entries.set(key, [k, v]);
    return true;
  }
  get(k: CelValue): CelValue | undefined {
    const key = CelMap.keyOf(k);
    if (key === undefined) return undefined;
    return this.entries.get(key)?.[1];
  }
  has(k: CelValue): boolean {
    const key = CelMap.keyOf(k);
    return key !== undefined && this.entries.has(key);
  }
  *keys(): IterableIterator<CelValue> {
    for (const [k] of this.entries.values()) yield k;
  }
}

export type CelValue =
  | bigint
  | number
  | string
  | boolean
  | null
  | Uint8Array
  | CelValue[]
  | CelMap
  | JsonObject
  | CelUint
  | CelTimestamp
  | CelDuration
  | CelTypeValue
  | CelOptional
  | CelOpaque
  | CelError
  | CelUnknown;

/** Marks lists typed from schemas with x-kubernetes-list-type set or map. */
export const LIST_TYPE = Symbol('listType');
export type ListTypeInfo = { type: 'set' } | { type: 'map'; keys: string[] };
export type TypedList = CelValue[] & { [LIST_TYPE]?: ListTypeInfo };

export function isPlainObject(v: unknown): v is JsonObject {
  if (v === null || typeof v !== 'object') return false;
  // JSON objects inherit Object's constructor; checking it first avoids a prototype lookup
  if ((v as { constructor?: unknown }).constructor === Object) return !Array.isArray(v);
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

const jsonListCache = new WeakMap<unknown[], CelValue[]>();

/**
 * Adapts a JSON value (as decoded from a request body) to a CEL value: integral
 * numbers become int, others double; arrays become lists (cached per array so
 * repeated evaluations over the same object do not convert twice); objects stay
 * as they are and are read lazily as maps.
 */
export function fromJson(v: unknown): CelValue {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'string':
    case 'boolean':
    case 'bigint':
      return v;
    case 'undefined':
      return null;
    case 'object':
      if (v === null) return null;
      if (Array.isArray(v)) {
        let c = jsonListCache.get(v);
        if (c === undefined) {
          c = v.map(fromJson);
          const lt = (v as TypedList)[LIST_TYPE];
          if (lt) (c as TypedList)[LIST_TYPE] = lt;
          jsonListCache.set(v, c);
        }
        return c;
      }
      return v as CelValue;
  }
  return null;
}

export const celTypes = {
  int: new CelTypeValue('int'),
  uint: new CelTypeValue('uint'),
  double: new CelTypeValue('double'),
  bool: new CelTypeValue('bool'),
  string: new CelTypeValue('string'),
  bytes: new CelTypeValue('bytes'),
  null_type: new CelTypeValue('null_type'),
  list: new CelTypeValue('list'),
  map: new CelTypeValue('map'),
  type: new CelTypeValue('type'),
  timestamp: new CelTypeValue('google.protobuf.Timestamp'),
  duration: new CelTypeValue('google.protobuf.Duration'),
  optional_type: new CelTypeValue('optional_type'),
  error: new CelTypeValue('error'),
  dyn: new CelTypeValue('dyn'),
};

export function typeOfValue(v: CelValue): CelTypeValue {
  switch (typeof v) {
    case 'bigint':
      return celTypes.int;
    case 'number':
      return celTypes.double;
    case 'string':
      return celTypes.string;
    case 'boolean':
      return celTypes.bool;
  }
  if (v === null) return celTypes.null_type;
  if (Array.isArray(v)) return celTypes.list;
  if (v instanceof Uint8Array) return celTypes.bytes;
  if (v instanceof CelMap || isPlainObject(v)) return celTypes.map;
  if (v instanceof CelUint) return celTypes.uint;
  if (v instanceof CelTimestamp) return celTypes.timestamp;
  if (v instanceof CelDuration) return celTypes.duration;
  if (v instanceof CelTypeValue) return celTypes.type;
  if (v instanceof CelOptional) return celTypes.optional_type;
  if (v instanceof CelOpaque) return new CelTypeValue(v.typeName);
  return celTypes.error;
}

export function isErrorOrUnknown(v: CelValue): v is CelError | CelUnknown {
  return v instanceof CelFault;
}

export function mergeUnknowns(a: CelUnknown, b: CelValue): CelUnknown {
  return b instanceof CelUnknown ? new CelUnknown([...a.ids, ...b.ids]) : a;
}

// ---- sizes (for cost) ----

const utf8 = new TextEncoder();

/** Number of Unicode code points, as CEL's size() counts. */
let lastString = '';
let lastLength = 0;
export function codePointLength(s: string): number {
  // literal arguments repeat on every evaluation; remember the last one
  if (s === lastString) return lastLength;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  lastString = s;
  lastLength = n;
  return n;
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function utf8Encode(s: string): Uint8Array {
  return utf8.encode(s);
}

/** Size of a value as cel-go's cost tracker sees it (traits.Sizer), else 1. */
export function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof CelOptional) return v.value === undefined ? 1 : actualSize(v.value);
  if (v instanceof CelOpaque) return v.size();
  if (isPlainObject(v)) return Object.keys(v).length;
  return 1;
}
