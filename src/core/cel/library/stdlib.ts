// CEL's standard definitions: operators, conversions, size, string tests,
// timestamps and durations, and the optional-types library.

import { RE2JS } from 're2js';
import { concatLists } from '../common/lists';
import { celCompare, celEquals, formatDouble, mapGet, mapKeys, mapSize } from '../common/ops';
import {
  NANOS,
  checkDuration,
  checkTimestamp,
  floorDiv,
  formatDuration,
  formatTimestamp,
  parseDuration,
  parseTimestamp,
  timeParts,
  type TimeParts,
} from '../common/time';
import {
  CelDuration,
  CelError,
  CelMap,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  CelUnknown,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  actualSize,
  celTypes,
  codePointLength,
  isPlainObject,
  typeOfValue,
  utf8Encode,
  type CelValue,
  type JsonObject,
} from '../common/values';
import { def, type Library, type OverloadDecl } from '../interpreter/functions';
import { callEstimate, stringTraversal, type CostHelpers } from './costs';

export const NO_OVERLOAD = 'no such overload';

export function noOverload(): CelError {
  return new CelError(NO_OVERLOAD);
}

export function i64(v: bigint): CelValue {
  return v > INT64_MAX || v < INT64_MIN ? new CelError('integer overflow') : v;
}
export function u64(v: bigint): CelValue {
  return v < 0n || v > UINT64_MAX ? new CelError('unsigned integer overflow') : new CelUint(v);
}

// ---- regex cache: literal patterns compile once per process ----
const regexCache = new Map<string, RE2JS | CelError>();
export function compileRegex(pattern: string): RE2JS | CelError {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = new CelError(String((e as Error).message ?? e));
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

const matches = (s: CelValue, p: CelValue): CelValue => {
  const re = compileRegex(p as string);
  if (re instanceof CelError) return re;
  return re.test(s as string);
};

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function strToInt(s: string): CelValue {
  if (!/^[+-]?\d+$/.test(s)) return new CelError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > INT64_MAX || v < INT64_MIN) return new CelError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}
function strToUint(s: string): CelValue {
  if (!/^\+?\d+$/.test(s)) return new CelError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) return new CelError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return new CelUint(v);
}
function strToDouble(s: string): CelValue {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(s)) {
    return new CelError(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`);
  }
  return Number(s);
}
function doubleToInt(d: number): CelValue {
  if (!Number.isFinite(d) || d <= -9223372036854775808 || d >= 9223372036854775807) return new CelError('integer overflow');
  return BigInt(Math.trunc(d));
}
function doubleToUint(d: number): CelValue {
  if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551615) return new CelError('unsigned integer overflow');
  return new CelUint(BigInt(Math.trunc(d)));
}

const BOOL_STRINGS: Record<string, boolean> = {
  '1': true, t: true, T: true, TRUE: true, true: true, True: true,
  '0': false, f: false, F: false, FALSE: false, false: false, False: false,
};

function indexList(l: CelValue[], i: CelValue): CelValue {
  let idx: bigint;
  if (typeof i === 'bigint') idx = i;
  else if (i instanceof CelUint) idx = i.v;
  else if (typeof i === 'number') {
    if (!Number.isInteger(i)) return new CelError(`unsupported index value ${formatDouble(i)} in list`);
    idx = BigInt(i);
  } else return new CelError(`unsupported index type '${typeOfValue(i).name}' in list`);
  if (idx < 0n || idx >= BigInt(l.length)) return new CelError(`index '${idx}' out of range in list size '${l.length}'`);
  return l[Number(idx)]!;
}

export function indexValue(c: CelValue, k: CelValue): CelValue {
  if (Array.isArray(c)) return indexList(c, k);
  if (c instanceof CelMap || isPlainObject(c)) {
    if (typeof k === 'number' && !Number.isInteger(k)) return new CelError(`no such key: ${formatDouble(k)}`);
    const v = mapGet(c as CelMap | JsonObject, k);
    if (v === undefined) {
      if (!(typeof k === 'string' || typeof k === 'bigint' || typeof k === 'boolean' || k instanceof CelUint || typeof k === 'number')) {
        return noOverload();
      }
      return new CelError(`no such key: ${keyText(k)}`);
    }
    return v;
  }
  return noOverload();
}

function keyText(k: CelValue): string {
  if (k instanceof CelUint) return String(k.v);
  if (typeof k === 'number') return formatDouble(k);
  return String(k);
}

/** Optional-aware index for `a[?k]` and `a.?f`. */
export function optionalIndex(c: CelValue, k: CelValue): CelValue {
  if (c instanceof CelOptional) {
    if (c.value === undefined) return c;
    c = c.value;
  }
  if (Array.isArray(c)) {
    const v = indexList(c, k);
    if (v instanceof CelError) return v.message.startsWith('index ') ? CelOptional.NONE : v;
    return new CelOptional(v);
  }
  if (c instanceof CelMap || isPlainObject(c)) {
    const v = mapGet(c as CelMap | JsonObject, k);
    return v === undefined ? CelOptional.NONE : new CelOptional(v);
  }
  return noOverload();
}

function inContainer(v: CelValue, c: CelValue): CelValue {
  if (Array.isArray(c)) {
    for (const e of c) if (celEquals(e, v)) return true;
    return false;
  }
  if (c instanceof CelMap || isPlainObject(c)) {
    if (typeof v === 'number' && !Number.isInteger(v)) return false;
    return mapGet(c as CelMap | JsonObject, v) !== undefined;
  }
  return noOverload();
}

export function isZeroValue(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof CelUint) return v.v === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof CelMap || isPlainObject(v)) return mapSize(v as CelMap | JsonObject) === 0;
  if (v instanceof CelTimestamp) return v.nanos === ZERO_TIME_NANOS;
  if (v instanceof CelDuration) return v.nanos === 0n;
  return false;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z: the zero timestamp (time.Time.IsZero), not the epoch. */
const ZERO_TIME_NANOS = -62135596800n * 1_000_000_000n;

function cmp(op: (c: number) => boolean) {
  return (a: CelValue, b: CelValue): CelValue => {
    const c = celCompare(a, b);
    return c === undefined ? (typeof a === 'number' && Number.isNaN(a)) || (typeof b === 'number' && Number.isNaN(b)) ? false : noOverload() : op(c);
  };
}

const ORDERED: [string, string][] = [
  ['bool', 'bool'], ['int', 'int'], ['int', 'uint'], ['int', 'double'], ['uint', 'uint'], ['uint', 'int'], ['uint', 'double'],
  ['double', 'double'], ['double', 'int'], ['double', 'uint'], ['string', 'string'], ['bytes', 'bytes'],
  ['timestamp', 'timestamp'], ['duration', 'duration'],
];
const ID_NAMES: Record<string, string> = {
  bool: 'bool', int: 'int64', uint: 'uint64', double: 'double', string: 'string', bytes: 'bytes', timestamp: 'timestamp', duration: 'duration',
};

function comparisons(h: CostHelpers): OverloadDecl[] {
  const out: OverloadDecl[] = [];
  const ops: [string, string, (c: number) => boolean][] = [
    ['_<_', 'less', (c) => c < 0],
    ['_<=_', 'less_equals', (c) => c <= 0],
    ['_>_', 'greater', (c) => c > 0],
    ['_>=_', 'greater_equals', (c) => c >= 0],
  ];
  for (const [fn, id, op] of ops) {
    const impl = cmp(op);
    for (const [a, b] of ORDERED) {
      const oid = a === b ? `${id}_${ID_NAMES[a]}` : `${id}_${ID_NAMES[a]}_${ID_NAMES[b]}`;
      const strLike = a === b && (a === 'string' || a === 'bytes');
      out.push(def(oid, `${fn}(${a}, ${b}) -> bool`, impl, strLike ? { cost: h.minSizeTraversal, estimate: h.estMinSizeTraversal } : {}));
    }
  }
  return out;
}

function tsPart(f: (p: TimeParts) => number) {
  return (t: CelValue, tz?: CelValue): CelValue => {
    const p = timeParts(t as CelTimestamp, (tz as string | undefined) ?? '');
    if (p instanceof CelError) return p;
    return BigInt(f(p));
  };
}

function timestampAccessors(): OverloadDecl[] {
  const parts: [string, string, (p: TimeParts) => number][] = [
    ['getFullYear', 'timestamp_to_year', (p) => p.year],
    ['getMonth', 'timestamp_to_month', (p) => p.month - 1],
    ['getDayOfYear', 'timestamp_to_day_of_year', (p) => p.dayOfYear],
    ['getDayOfMonth', 'timestamp_to_day_of_month', (p) => p.day - 1],
    ['getDate', 'timestamp_to_day_of_month_1_based', (p) => p.day],
    ['getDayOfWeek', 'timestamp_to_day_of_week', (p) => p.dayOfWeek],
    ['getHours', 'timestamp_to_hours', (p) => p.hours],
    ['getMinutes', 'timestamp_to_minutes', (p) => p.minutes],
    ['getSeconds', 'timestamp_to_seconds', (p) => p.seconds],
    ['getMilliseconds', 'timestamp_to_milliseconds', (p) => p.millis],
  ];
  const out: OverloadDecl[] = [];
  for (const [name, id, f] of parts) {
    out.push(def(id, `timestamp.${name}() -> int`, tsPart(f)));
    out.push(def(`${id}_with_tz`, `timestamp.${name}(string) -> int`, tsPart(f)));
  }
  const dur: [string, string, bigint][] = [
    ['getHours', 'duration_to_hours', 3600n * NANOS],
    ['getMinutes', 'duration_to_minutes', 60n * NANOS],
    ['getSeconds', 'duration_to_seconds', NANOS],
    ['getMilliseconds', 'duration_to_milliseconds', 1_000_000n],
  ];
  for (const [name, id, unit] of dur) {
    out.push(
      def(id, `duration.${name}() -> int`, (d) =>
        name === 'getMilliseconds' ? ((d as CelDuration).nanos % NANOS) / unit : (d as CelDuration).nanos / unit,
      ),
    );
  }
  return out;
}

export function standardLibrary(h: CostHelpers = callEstimate): Library {
  const ov: OverloadDecl[] = [
    // logic (planned specially; declared for the checker)
    def('logical_not', '!_(bool) -> bool', (a) => !a),
    def('logical_and', '_&&_(bool, bool) -> bool', (a, b) => (a as boolean) && (b as boolean), { nonStrict: true }),
    def('logical_or', '_||_(bool, bool) -> bool', (a, b) => (a as boolean) || (b as boolean), { nonStrict: true }),
    def('conditional', '_?_:_(bool, A, A) -> A', (c, a, b) => (c ? a : b), { nonStrict: true }),
    def('not_strictly_false', '@not_strictly_false(bool) -> bool', (a) => a !== false, { nonStrict: true }),
    // equality
    def('equals', '_==_(A, A) -> bool', (a, b) => celEquals(a, b), { cost: h.minSizeTraversal, estimate: h.estMinSizeTraversal }),
    def('not_equals', '_!=_(A, A) -> bool', (a, b) => !celEquals(a, b), { cost: h.minSizeTraversal, estimate: h.estMinSizeTraversal }),
    ...comparisons(h),
    // arithmetic
    def('negate_int64', '-_(int) -> int', (a) => i64(-(a as bigint))),
    def('negate_double', '-_(double) -> double', (a) => -(a as number)),
    def('add_int64', '_+_(int, int) -> int', (a, b) => i64((a as bigint) + (b as bigint))),
    def('add_uint64', '_+_(uint, uint) -> uint', (a, b) => u64((a as CelUint).v + (b as CelUint).v)),
    def('add_double', '_+_(double, double) -> double', (a, b) => (a as number) + (b as number)),
    def('add_string', '_+_(string, string) -> string', (a, b) => (a as string) + (b as string), { cost: h.sumSizeTraversal, estimate: h.estConcat }),
    def('add_bytes', '_+_(bytes, bytes) -> bytes', (a, b) => {
      const x = a as Uint8Array;
      const y = b as Uint8Array;
      const r = new Uint8Array(x.length + y.length);
      r.set(x);
      r.set(y, x.length);
      return r;
    }, { cost: h.sumSizeTraversal, estimate: h.estConcat }),
    def('add_list', '_+_(list(A), list(A)) -> list(A)', (a, b) => concatLists(a as CelValue[], b as CelValue[]), { estimate: h.estListConcat }),
    def('add_timestamp_duration', '_+_(timestamp, duration) -> timestamp', (a, b) => checkTimestamp((a as CelTimestamp).nanos + (b as CelDuration).nanos)),
    def('add_duration_timestamp', '_+_(duration, timestamp) -> timestamp', (a, b) => checkTimestamp((a as CelDuration).nanos + (b as CelTimestamp).nanos)),
    def('add_duration_duration', '_+_(duration, duration) -> duration', (a, b) => checkDuration((a as CelDuration).nanos + (b as CelDuration).nanos)),
    def('subtract_int64', '_-_(int, int) -> int', (a, b) => i64((a as bigint) - (b as bigint))),
    def('subtract_uint64', '_-_(uint, uint) -> uint', (a, b) => u64((a as CelUint).v - (b as CelUint).v)),
    def('subtract_double', '_-_(double, double) -> double', (a, b) => (a as number) - (b as number)),
    def('subtract_timestamp_timestamp', '_-_(timestamp, timestamp) -> duration', (a, b) => checkDuration((a as CelTimestamp).nanos - (b as CelTimestamp).nanos)),
    def('subtract_timestamp_duration', '_-_(timestamp, duration) -> timestamp', (a, b) => checkTimestamp((a as CelTimestamp).nanos - (b as CelDuration).nanos)),
    def('subtract_duration_duration', '_-_(duration, duration) -> duration', (a, b) => checkDuration((a as CelDuration).nanos - (b as CelDuration).nanos)),
    def('multiply_int64', '_*_(int, int) -> int', (a, b) => i64((a as bigint) * (b as bigint))),
    def('multiply_uint64', '_*_(uint, uint) -> uint', (a, b) => u64((a as CelUint).v * (b as CelUint).v)),
    def('multiply_double', '_*_(double, double) -> double', (a, b) => (a as number) * (b as number)),
    def('divide_int64', '_/_(int, int) -> int', (a, b) => (b === 0n ? new CelError('division by zero') : i64((a as bigint) / (b as bigint)))),
    def('divide_uint64', '_/_(uint, uint) -> uint', (a, b) => ((b as CelUint).v === 0n ? new CelError('division by zero') : new CelUint((a as CelUint).v / (b as CelUint).v))),
    def('divide_double', '_/_(double, double) -> double', (a, b) => (a as number) / (b as number)),
    def('modulo_int64', '_%_(int, int) -> int', (a, b) => {
      if (b === 0n) return new CelError('modulus by zero');
      if (b === -1n && a === INT64_MIN) return new CelError('integer overflow');
      return (a as bigint) % (b as bigint);
    }),
    def('modulo_uint64', '_%_(uint, uint) -> uint', (a, b) => ((b as CelUint).v === 0n ? new CelError('modulus by zero') : new CelUint((a as CelUint).v % (b as CelUint).v))),
    // indexing and membership
    def('index_list', '_[_](list(A), int) -> A', indexValue),
    def('index_list_uint', '_[_](list(A), uint) -> A', indexValue),
    def('index_list_double', '_[_](list(A), double) -> A', indexValue),
    def('index_map', '_[_](map(K, V), K) -> V', indexValue),
    def('index_map_dyn', '_[_](map(K, V), dyn) -> V', indexValue),
    def('in_list', '@in(A, list(A)) -> bool', inContainer, { cost: (args) => actualSize(args[1]!), estimate: h.estInList }),
    def('in_map', '@in(K, map(K, V)) -> bool', inContainer),
    def('in_map_dyn', '@in(dyn, map(K, V)) -> bool', inContainer),
    // size
    def('size_string', 'size(string) -> int', (s) => BigInt(codePointLength(s as string))),
    def('size_bytes', 'size(bytes) -> int', (s) => BigInt((s as Uint8Array).length)),
    def('size_list', 'size(list(A)) -> int', (s) => BigInt((s as CelValue[]).length)),
    def('size_map', 'size(map(K, V)) -> int', (s) => BigInt(mapSize(s as CelMap))),
    def('string_size', 'string.size() -> int', (s) => BigInt(codePointLength(s as string))),
    def('bytes_size', 'bytes.size() -> int', (s) => BigInt((s as Uint8Array).length)),
    def('list_size', 'list(A).size() -> int', (s) => BigInt((s as CelValue[]).length)),
    def('map_size', 'map(K, V).size() -> int', (s) => BigInt(mapSize(s as CelMap))),
    // strings
    def('contains_string', 'string.contains(string) -> bool', (a, b) => (a as string).includes(b as string), { cost: h.containsCost, estimate: h.estContains }),
    // the runtime charges the receiver's length, the estimate the argument's (celcoststability: 4 and 3 for 'Rook takes 👑'.startsWith('Rook'))
    def('starts_with_string', 'string.startsWith(string) -> bool', (a, b) => (a as string).startsWith(b as string), { cost: (args) => stringTraversal(actualSize(args[0]!)), estimate: h.estArgTraversal }),
    def('ends_with_string', 'string.endsWith(string) -> bool', (a, b) => (a as string).endsWith(b as string), { cost: (args) => stringTraversal(actualSize(args[0]!)), estimate: h.estArgTraversal }),
    def('matches_string', 'string.matches(string) -> bool', matches, { cost: h.regexCost, estimate: h.estRegex }),
    def('matches', 'matches(string, string) -> bool', matches, { cost: h.regexCost, estimate: h.estRegex }),
    // conversions
    def('int64_to_int64', 'int(int) -> int', (a) => a),
    def('uint64_to_int64', 'int(uint) -> int', (a) => i64((a as CelUint).v)),
    def('double_to_int64', 'int(double) -> int', (a) => doubleToInt(a as number)),
    def('string_to_int64', 'int(string) -> int', (a) => strToInt(a as string)),
    def('timestamp_to_int64', 'int(timestamp) -> int', (a) => floorDiv((a as CelTimestamp).nanos, NANOS)),
    def('uint64_to_uint64', 'uint(uint) -> uint', (a) => a),
    def('int64_to_uint64', 'uint(int) -> uint', (a) => u64(a as bigint)),
    def('double_to_uint64', 'uint(double) -> uint', (a) => doubleToUint(a as number)),
    def('string_to_uint64', 'uint(string) -> uint', (a) => strToUint(a as string)),
    def('double_to_double', 'double(double) -> double', (a) => a),
    def('int64_to_double', 'double(int) -> double', (a) => Number(a as bigint)),
    def('uint64_to_double', 'double(uint) -> double', (a) => Number((a as CelUint).v)),
    def('string_to_double', 'double(string) -> double', (a) => strToDouble(a as string)),
    def('string_to_string', 'string(string) -> string', (a) => a),
    def('int64_to_string', 'string(int) -> string', (a) => String(a)),
    def('uint64_to_string', 'string(uint) -> string', (a) => String((a as CelUint).v)),
    def('double_to_string', 'string(double) -> string', (a) => formatDouble(a as number)),
    def('bool_to_string', 'string(bool) -> string', (a) => String(a)),
    def('bytes_to_string', 'string(bytes) -> string', (a) => {
      try {
        return utf8Decoder.decode(a as Uint8Array);
      } catch {
        return new CelError('invalid UTF-8 in bytes, cannot convert to string');
      }
    }, { cost: (args) => stringTraversal(actualSize(args[0]!)), estimate: h.estFirstArgTraversal }),
    def('timestamp_to_string', 'string(timestamp) -> string', (a) => formatTimestamp(a as CelTimestamp)),
    def('duration_to_string', 'string(duration) -> string', (a) => formatDuration(a as CelDuration)),
    def('bytes_to_bytes', 'bytes(bytes) -> bytes', (a) => a),
    def('string_to_bytes', 'bytes(string) -> bytes', (a) => utf8Encode(a as string), { cost: (args) => stringTraversal(actualSize(args[0]!)), estimate: h.estFirstArgTraversal }),
    def('bool_to_bool', 'bool(bool) -> bool', (a) => a),
    def('string_to_bool', 'bool(string) -> bool', (a) => {
      const b = BOOL_STRINGS[a as string];
      return b === undefined ? new CelError(`strconv.ParseBool: parsing ${JSON.stringify(a)}: invalid syntax`) : b;
    }),
    def('timestamp_to_timestamp', 'timestamp(timestamp) -> timestamp', (a) => a),
    def('string_to_timestamp', 'timestamp(string) -> timestamp', (a) => parseTimestamp(a as string)),
    def('int64_to_timestamp', 'timestamp(int) -> timestamp', (a) => checkTimestamp((a as bigint) * NANOS)),
    def('duration_to_duration', 'duration(duration) -> duration', (a) => a),
    def('string_to_duration', 'duration(string) -> duration', (a) => parseDuration(a as string)),
    def('type', 'type(A) -> type(A)', (a) => typeOfValue(a)),
    def('to_dyn', 'dyn(A) -> dyn', (a) => a),
    ...timestampAccessors(),
  ];
  return { name: 'stdlib', overloads: ov };
}

export function optionalLibrary(): Library {
  return {
    name: 'optional',
    overloads: [
      def('optional_of', 'optional.of(A) -> optional(A)', (a) => new CelOptional(a)),
      def('optional_ofNonZeroValue', 'optional.ofNonZeroValue(A) -> optional(A)', (a) => (isZeroValue(a) ? CelOptional.NONE : new CelOptional(a))),
      def('optional_none', 'optional.none() -> optional(A)', () => CelOptional.NONE),
      def('optional_value', 'optional(A).value() -> A', (o) => (o as CelOptional).value ?? new CelError('optional.none() dereference')),
      def('optional_hasValue', 'optional(A).hasValue() -> bool', (o) => (o as CelOptional).value !== undefined),
      def('optional_or_optional', 'optional(A).or(optional(A)) -> optional(A)', (a, b) => ((a as CelOptional).value !== undefined ? a : b)),
      def('optional_orValue_value', 'optional(A).orValue(A) -> A', (a, b) => (a as CelOptional).value ?? b),
      def('select_optional_field', '_?._(dyn, string) -> optional(dyn)', optionalIndex),
      def('list_optindex_optional_int', '_[?_](list(A), int) -> optional(A)', optionalIndex),
      def('optional_list_optindex_optional_int', '_[?_](optional(list(A)), int) -> optional(A)', optionalIndex),
      def('map_optindex_optional_value', '_[?_](map(K, V), K) -> optional(V)', optionalIndex),
      def('optional_map_optindex_optional_value', '_[?_](optional(map(K, V)), K) -> optional(V)', optionalIndex),
      def('optional_list_index_int', '_[_](optional(list(A)), int) -> optional(A)', (o, i) => ((o as CelOptional).value === undefined ? o : optionalIndexStrict((o as CelOptional).value!, i))),
      def('optional_map_index_value', '_[_](optional(map(K, V)), K) -> optional(V)', (o, k) => ((o as CelOptional).value === undefined ? o : optionalIndex((o as CelOptional).value!, k))),
    ],
  };
}

function optionalIndexStrict(c: CelValue, k: CelValue): CelValue {
  const v = indexValue(c, k);
  return v instanceof CelError ? v : new CelOptional(v);
}

/** Type identifiers usable as values: `type(x) == int`. */
export const TYPE_IDENTS: Record<string, CelTypeValue> = {
  int: celTypes.int,
  uint: celTypes.uint,
  double: celTypes.double,
  bool: celTypes.bool,
  string: celTypes.string,
  bytes: celTypes.bytes,
  null_type: celTypes.null_type,
  list: celTypes.list,
  map: celTypes.map,
  type: celTypes.type,
  optional_type: celTypes.optional_type,
  'google.protobuf.Timestamp': celTypes.timestamp,
  'google.protobuf.Duration': celTypes.duration,
};

export { CelUnknown, mapKeys };
