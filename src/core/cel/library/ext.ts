// cel-go extension libraries: strings, lists, sets, math, encoders and the
// helpers behind the two-variable comprehension macros.

import { celCompare, celEquals, formatDouble, mapGet, mapKeys } from '../common/ops';
import { formatDuration, formatTimestamp } from '../common/time';
import {
  CelDuration,
  CelError,
  CelMap,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  actualSize,
  isPlainObject,
  typeOfValue,
  utf8Encode,
  type CelValue,
  type JsonObject,
} from '../common/values';
import { def, type Library, type OverloadDecl } from '../interpreter/functions';
import { addR, fixed, factorR, mulR, range, stringTraversal, STRING_TRAVERSAL_FACTOR } from './costs';
import { i64 } from './stdlib';
import { hexOfBytes } from '../../util/hex';

const cps = (s: string): string[] => Array.from(s);
const idxErr = (i: bigint | number): CelError => new CelError(`index out of range: ${i}`);

function charAt(s: CelValue, i: CelValue): CelValue {
  const a = cps(s as string);
  const n = i as bigint;
  if (n < 0n || n > BigInt(a.length)) return idxErr(n);
  return a[Number(n)] ?? '';
}

function indexOf(s: CelValue, sub: CelValue, off?: CelValue): CelValue {
  const a = cps(s as string);
  const b = cps(sub as string);
  const start = off === undefined ? 0n : (off as bigint);
  if (start < 0n || start > BigInt(a.length)) return idxErr(start);
  if (b.length === 0) return start;
  for (let i = Number(start); i + b.length <= a.length; i++) {
    let ok = true;
    for (let j = 0; j < b.length; j++) if (a[i + j] !== b[j]) { ok = false; break; }
    if (ok) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(s: CelValue, sub: CelValue, off?: CelValue): CelValue {
  const a = cps(s as string);
  const b = cps(sub as string);
  const start = off === undefined ? BigInt(a.length) : (off as bigint);
  if (start < 0n || start > BigInt(a.length)) return idxErr(start);
  if (b.length === 0) return start;
  for (let i = Math.min(Number(start), a.length - b.length); i >= 0; i--) {
    let ok = true;
    for (let j = 0; j < b.length; j++) if (a[i + j] !== b[j]) { ok = false; break; }
    if (ok) return BigInt(i);
  }
  return -1n;
}

function replace(s: CelValue, o: CelValue, n: CelValue, count?: CelValue): CelValue {
  const str = s as string;
  const old = o as string;
  const rep = n as string;
  let limit = count === undefined ? -1 : Number(count as bigint);
  if (limit === 0) return str;
  if (old === '') {
    // Go inserts the replacement before each rune and at the end
    const a = cps(str);
    let out = '';
    let k = 0;
    for (let i = 0; i <= a.length; i++) {
      if (limit < 0 || k < limit) {
        out += rep;
        k++;
      }
      if (i < a.length) out += a[i];
    }
    return out;
  }
  let out = '';
  let pos = 0;
  for (;;) {
    if (limit === 0) break;
    const i = str.indexOf(old, pos);
    if (i < 0) break;
    out += str.slice(pos, i) + rep;
    pos = i + old.length;
    if (limit > 0) limit--;
  }
  return out + str.slice(pos);
}

function split(s: CelValue, sep: CelValue, count?: CelValue): CelValue {
  const str = s as string;
  const p = sep as string;
  const n = count === undefined ? -1 : Number(count as bigint);
  if (n === 0) return [];
  if (p === '') {
    const a = cps(str);
    if (n < 0 || n >= a.length) return a;
    return [...a.slice(0, n - 1), a.slice(n - 1).join('')];
  }
  const parts = str.split(p);
  if (n < 0 || n >= parts.length) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(p)];
}

function substring(s: CelValue, start: CelValue, end?: CelValue): CelValue {
  const a = cps(s as string);
  const st = start as bigint;
  const en = end === undefined ? BigInt(a.length) : (end as bigint);
  if (st < 0n || st > BigInt(a.length)) return idxErr(st);
  if (en < 0n || en > BigInt(a.length)) return idxErr(en);
  if (st > en) return new CelError(`invalid substring range. start: ${st}, end: ${en}`);
  return a.slice(Number(st), Number(en)).join('');
}

const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

function quote(s: CelValue): CelValue {
  let out = '"';
  for (const c of s as string) {
    switch (c) {
      case '\u0007': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\v': out += '\\v'; break;
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      default: out += c;
    }
  }
  return out + '"';
}

// ---- string.format (cel-go ext strings v1+) ----

function fmtStringValue(v: CelValue): string | CelError {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return String(v);
  if (v instanceof CelUint) return String(v.v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return formatDouble(v);
  }
  if (typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (v instanceof Uint8Array) {
    const s = new TextDecoder().decode(v);
    return s;
  }
  if (v instanceof CelTypeValue) return v.name;
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const e of v) {
      const s = fmtStringValue(e);
      if (s instanceof CelError) return s;
      parts.push(s);
    }
    return `[${parts.join(', ')}]`;
  }
  if (v instanceof CelMap || isPlainObject(v)) {
    const m = v as CelMap | JsonObject;
    const entries: [string, string][] = [];
    for (const k of mapKeys(m)) {
      const ks = fmtStringValue(k);
      const vs = fmtStringValue(mapGet(m, k)!);
      if (ks instanceof CelError) return ks;
      if (vs instanceof CelError) return vs;
      entries.push([ks, vs]);
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${entries.map(([k, x]) => `${k}: ${x}`).join(', ')}}`;
  }
  return new CelError(`string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeOfValue(v).name}`);
}

/** %.Nf with Go's exact round-half-to-even on the binary value. */
function fmtFixed(v: number, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Math.abs(v) >= 1e21) return v.toFixed(prec);
  const exact = Math.abs(v).toFixed(Math.min(100, prec + 60));
  const [ip, fp] = exact.split('.') as [string, string];
  const keep = fp.slice(0, prec);
  const rest = fp.slice(prec);
  let digits = BigInt(ip + keep);
  const half = rest[0]! > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1))) ? 1 : rest[0] === '5' ? 0 : -1;
  if (half > 0 || (half === 0 && digits % 2n === 1n)) digits += 1n;
  let str = digits.toString().padStart(prec + 1, '0');
  if (prec > 0) str = `${str.slice(0, -prec)}.${str.slice(-prec)}`;
  return (v < 0 || Object.is(v, -0) ? '-' : '') + str;
}

function fmtExp(v: number, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  const [m, e] = v.toExponential(prec).split('e') as [string, string];
  const x = Number(e);
  return `${m}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
}

function format(fmt: CelValue, args: CelValue): CelValue {
  const s = fmt as string;
  const list = args as CelValue[];
  let out = '';
  let ai = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    i++;
    if (s[i] === '%') {
      out += '%';
      continue;
    }
    let prec: number | undefined;
    if (s[i] === '.') {
      let j = i + 1;
      while (j < s.length && s[j]! >= '0' && s[j]! <= '9') j++;
      prec = Number(s.slice(i + 1, j));
      i = j;
    }
    const verb = s[i];
    if (verb === undefined) return new CelError('unexpected end of format string');
    if (ai >= list.length) return new CelError(`index ${ai} out of range`);
    const v = list[ai++]!;
    switch (verb) {
      case 's': {
        const r = fmtStringValue(v);
        if (r instanceof CelError) return r;
        out += r;
        break;
      }
      case 'd':
        if (typeof v === 'bigint') out += String(v);
        else if (v instanceof CelUint) out += String(v.v);
        else if (typeof v === 'number' && !Number.isFinite(v)) out += Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
        else return new CelError(`error during formatting: decimal clause can only be used on integers, was given ${typeOfValue(v).name}`);
        break;
      case 'f':
        if (typeof v !== 'number') {
          if (typeof v === 'bigint' || v instanceof CelUint) {
            out += fmtFixed(Number(typeof v === 'bigint' ? v : v.v), prec ?? 6);
            break;
          }
          return new CelError(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeOfValue(v).name}`);
        }
        out += fmtFixed(v, prec ?? 6);
        break;
      case 'e':
        if (typeof v !== 'number') return new CelError(`error during formatting: scientific clause can only be used on doubles, was given ${typeOfValue(v).name}`);
        out += fmtExp(v, prec ?? 6);
        break;
      case 'b':
        if (typeof v === 'bigint') out += v.toString(2);
        else if (v instanceof CelUint) out += v.v.toString(2);
        else if (typeof v === 'boolean') out += v ? '1' : '0';
        else return new CelError(`error during formatting: only integers and bools can be formatted as binary, was given ${typeOfValue(v).name}`);
        break;
      case 'o':
        if (typeof v === 'bigint') out += v.toString(8);
        else if (v instanceof CelUint) out += v.v.toString(8);
        else return new CelError(`error during formatting: octal clause can only be used on integers, was given ${typeOfValue(v).name}`);
        break;
      case 'x':
      case 'X': {
        let h: string;
        if (typeof v === 'bigint') h = v < 0n ? '-' + (-v).toString(16) : v.toString(16);
        else if (v instanceof CelUint) h = v.v.toString(16);
        else if (typeof v === 'string') h = hexOfBytes(utf8Encode(v));
        else if (v instanceof Uint8Array) h = hexOfBytes(v);
        else return new CelError(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeOfValue(v).name}`);
        out += verb === 'X' ? h.toUpperCase() : h;
        break;
      }
      default:
        return new CelError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
  }
  return out;
}

export interface StringsOptions {
  version: number;
}

export function stringsLibrary(opts: StringsOptions = { version: 2 }): Library {
  const t = (n: number) => (args: CelValue[]) => stringTraversal(actualSize(args[0]!) * n);
  const est = (f: number) => (target: Parameters<NonNullable<OverloadDecl['estimate']>>[0]) =>
    target ? { cost: factorR(target.size(), STRING_TRAVERSAL_FACTOR * f) } : undefined;
  const ov: OverloadDecl[] = [
    def('string_char_at_int', 'string.charAt(int) -> string', charAt),
    def('string_index_of_string', 'string.indexOf(string) -> int', indexOf, { cost: (a) => Math.floor(utf8Len(a[0]!) * 0.1), estimate: est(1) }),
    def('string_index_of_string_int', 'string.indexOf(string, int) -> int', indexOf, { cost: (a) => Math.floor(utf8Len(a[0]!) * 0.1), estimate: est(1) }),
    def('string_last_index_of_string', 'string.lastIndexOf(string) -> int', lastIndexOf, { cost: (a) => Math.floor(utf8Len(a[0]!) * 0.1), estimate: est(1) }),
    def('string_last_index_of_string_int', 'string.lastIndexOf(string, int) -> int', lastIndexOf, { cost: (a) => Math.floor(utf8Len(a[0]!) * 0.1), estimate: est(1) }),
    def('string_lower_ascii', 'string.lowerAscii() -> string', (s) => (s as string).replace(/[A-Z]+/g, (m) => m.toLowerCase()), { cost: t(1), estimate: est(1) }),
    def('string_upper_ascii', 'string.upperAscii() -> string', (s) => (s as string).replace(/[a-z]+/g, (m) => m.toUpperCase()), { cost: t(1), estimate: est(1) }),
    def('string_replace_string_string', 'string.replace(string, string) -> string', replace, { cost: t(2), estimate: est(2) }),
    def('string_replace_string_string_int', 'string.replace(string, string, int) -> string', replace, { cost: t(2), estimate: est(2) }),
    def('string_split_string', 'string.split(string) -> list(string)', split, { cost: t(2), estimate: est(2) }),
    def('string_split_string_int', 'string.split(string, int) -> list(string)', split, { cost: t(2), estimate: est(2) }),
    def('string_substring_int', 'string.substring(int) -> string', substring, { cost: t(1), estimate: est(1) }),
    def('string_substring_int_int', 'string.substring(int, int) -> string', substring, { cost: t(1), estimate: est(1) }),
    def('string_trim', 'string.trim() -> string', (s) => (s as string).replace(TRIM, ''), { cost: t(1), estimate: est(1) }),
    def('list_join', 'list(string).join() -> string', (l) => (l as string[]).join(''), { cost: (_a, r) => stringTraversal(actualSize(r) * 2) }),
    def('list_join_string', 'list(string).join(string) -> string', (l, sep) => (l as string[]).join(sep as string), { cost: (_a, r) => stringTraversal(actualSize(r) * 2) }),
  ];
  if (opts.version >= 1) {
    ov.push(
      def('string_format', 'string.format(list(dyn)) -> string', format, { cost: (a) => stringTraversal(actualSize(a[0]!)) }),
      def('strings_quote', 'strings.quote(string) -> string', quote, {
        cost: (a) => stringTraversal(actualSize(a[0]!)),
        // every character may be escaped; the quotes are always added
        estimate: (_t, a) => {
          if (a.length !== 1) return undefined;
          const sz = a[0]!.size();
          return { cost: factorR(sz, STRING_TRAVERSAL_FACTOR), resultSize: range(sz.min + 2, sz.max * 2 + 2) };
        },
      }),
    );
  }
  if (opts.version >= 3) {
    ov.push(def('string_reverse', 'string.reverse() -> string', (s) => cps(s as string).reverse().join('')));
  }
  return { name: 'strings', overloads: ov };
}

function utf8Len(v: CelValue): number {
  return typeof v === 'string' ? utf8Encode(v).length : actualSize(v);
}

// ---- lists (cel-go ext, version 3) ----

function sortKeys(list: CelValue[], keys: CelValue[]): CelValue {
  if (list.length !== keys.length) return new CelError(`@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively.`);
  const idx = list.map((_, i) => i);
  let err: CelError | undefined;
  idx.sort((a, b) => {
    const c = celCompare(keys[a]!, keys[b]!);
    if (c === undefined || typeOfValue(keys[a]!).name !== typeOfValue(keys[b]!).name) {
      err ??= new CelError('list elements must have the same type');
      return 0;
    }
    return c;
  });
  return err ?? idx.map((i) => list[i]!);
}

function flatten(l: CelValue[], depth: number): CelValue[] | CelError {
  if (depth < 0) return new CelError('level must be non-negative');
  const out: CelValue[] = [];
  for (const v of l) {
    if (Array.isArray(v) && depth > 0) {
      const f = flatten(v, depth - 1);
      if (f instanceof CelError) return f;
      out.push(...f);
    } else out.push(v);
  }
  return out;
}

export function listsExtLibrary(): Library {
  const comparable = ['int', 'uint', 'double', 'bool', 'duration', 'timestamp', 'string', 'bytes'];
  const outSize = (_a: CelValue[], r: CelValue): number => actualSize(r);
  const ov: OverloadDecl[] = [
    def('list_slice', 'list(T).slice(int, int) -> list(T)', (l, s, e) => {
      const a = l as CelValue[];
      const st = s as bigint;
      const en = e as bigint;
      if (st < 0n || en < 0n) return new CelError(`cannot slice(${st}, ${en}), negative indexes not supported`);
      if (st > en) return new CelError(`cannot slice(${st}, ${en}), start index must be less than or equal to end index`);
      if (BigInt(a.length) < en) return new CelError(`cannot slice(${st}, ${en}), list is length ${a.length}`);
      return a.slice(Number(st), Number(en));
    }, { cost: outSize }),
    def('list_flatten', 'list(list(T)).flatten() -> list(T)', (l) => flatten(l as CelValue[], 1)),
    def('list_flatten_int', 'list(dyn).flatten(int) -> list(dyn)', (l, d) => flatten(l as CelValue[], Number(d as bigint))),
    def('lists_range', 'lists.range(int) -> list(int)', (n) => {
      const k = n as bigint;
      if (k < 0n) return new CelError(`lists.range: size must be non-negative, got ${k}`);
      if (k > 1_000_000n) return new CelError(`lists.range: size ${k} exceeds maximum allowed (1000000)`);
      return Array.from({ length: Number(k) }, (_, i) => BigInt(i));
    }, { cost: outSize }),
    def('list_reverse', 'list(T).reverse() -> list(T)', (l) => (l as CelValue[]).slice().reverse(), { cost: outSize }),
    def('list_distinct', 'list(T).distinct() -> list(T)', (l) => {
      const out: CelValue[] = [];
      for (const v of l as CelValue[]) if (!out.some((x) => celEquals(x, v))) out.push(v);
      return out;
    }),
  ];
  for (const t of comparable) {
    ov.push(def(`list_${t}_sort`, `list(${t}).sort() -> list(${t})`, (l) => sortKeys(l as CelValue[], l as CelValue[])));
    ov.push(def(`list_${t}_sortByAssociatedKeys`, `list(T).@sortByAssociatedKeys(list(${t})) -> list(T)`, (l, k) => sortKeys(l as CelValue[], k as CelValue[])));
  }
  return { name: 'lists', overloads: ov };
}

// ---- sets ----

const contains = (a: CelValue, b: CelValue): boolean => (b as CelValue[]).every((x) => (a as CelValue[]).some((y) => celEquals(x, y)));

/** cel-go's sets costs: one for the call plus factor × |a| × |b| comparisons (equivalence may compare both ways). */
function setsCost(factor: number): Pick<OverloadDecl, 'cost' | 'estimate'> {
  return {
    cost: (args) => 1 + Math.floor(actualSize(args[0]!) * actualSize(args[1]!) * factor),
    estimate: (_t, args) => (args.length === 2 ? { cost: addR(factorR(mulR(args[0]!.size(), args[1]!.size()), factor), fixed(1)) } : undefined),
  };
}

export function setsLibrary(): Library {
  return {
    name: 'sets',
    overloads: [
      def('list_sets_contains_list', 'sets.contains(list(T), list(T)) -> bool', contains, setsCost(1)),
      def('list_sets_equivalent_list', 'sets.equivalent(list(T), list(T)) -> bool', (a, b) => contains(a, b) && contains(b, a), setsCost(2)),
      def('list_sets_intersects_list', 'sets.intersects(list(T), list(T)) -> bool', (a, b) => (b as CelValue[]).some((x) => (a as CelValue[]).some((y) => celEquals(x, y))), setsCost(1)),
    ],
  };
}

// ---- two-variable comprehensions ----

export function comprehensionsLibrary(): Library {
  return {
    name: 'comprehensions',
    overloads: [
      def('cel_@mapInsert_map_key_value', 'cel.@mapInsert(map(K, V), K, V) -> map(K, V)', (m, k, v) => {
        const src = m as CelMap;
        if (src.has(k)) return new CelError(`insert failed: key ${String(k)} already exists`);
        const out = new CelMap();
        for (const [kk, [ok, ov]] of src.entries) out.entries.set(kk, [ok, ov]);
        out.set(k, v);
        return out;
      }),
      def('cel_@mapInsert_map_map', 'cel.@mapInsert(map(K, V), map(K, V)) -> map(K, V)', (m, e) => {
        const out = new CelMap();
        for (const [kk, [ok, ov]] of (m as CelMap).entries) out.entries.set(kk, [ok, ov]);
        for (const k of mapKeys(e as CelMap)) {
          if (out.has(k)) return new CelError(`insert failed: key ${String(k)} already exists`);
          out.set(k, mapGet(e as CelMap, k)!);
        }
        return out;
      }),
    ],
  };
}

// ---- math ----

function isNum(v: CelValue): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || v instanceof CelUint;
}

function extreme(sign: number) {
  return (...vals: CelValue[]): CelValue => {
    const list = vals.length === 1 && Array.isArray(vals[0]) ? (vals[0] as CelValue[]) : vals;
    if (list.length === 0) return new CelError(`math.@${sign > 0 ? 'max' : 'min'}(list) argument must not be empty`);
    let best: CelValue = list[0]!;
    if (!isNum(best)) return new CelError('no such overload');
    for (const v of list.slice(1)) {
      if (!isNum(v)) return new CelError('no such overload');
      const c = celCompare(v, best);
      if (c !== undefined && c * sign > 0) best = v;
    }
    return best;
  };
}

export function mathLibrary(): Library {
  const nums = ['int', 'uint', 'double'];
  const ov: OverloadDecl[] = [];
  for (const [name, sign] of [['@max', 1], ['@min', -1]] as const) {
    const f = extreme(sign);
    for (const t of nums) {
      ov.push(def(`math_${name}_${t}`, `math.${name}(${t}) -> ${t}`, f));
      ov.push(def(`math_${name}_list_${t}`, `math.${name}(list(${t})) -> ${t}`, f));
      for (const u of nums) ov.push(def(`math_${name}_${t}_${u}`, `math.${name}(${t}, ${u}) -> ${t === u ? t : 'dyn'}`, f));
    }
    ov.push(def(`math_${name}_list_dyn`, `math.${name}(list(dyn)) -> dyn`, f));
  }
  const dbl = (id: string, f: (x: number) => CelValue) => def(`math_${id}_double`, `math.${id}(double) -> double`, (x) => f(x as number));
  ov.push(
    dbl('ceil', Math.ceil),
    dbl('floor', Math.floor),
    dbl('round', (x) => (x < 0 ? -Math.round(-x) : Math.round(x))),
    dbl('trunc', Math.trunc),
    dbl('sqrt', Math.sqrt),
    def('math_sqrt_int', 'math.sqrt(int) -> double', (x) => Math.sqrt(Number(x as bigint))),
    def('math_sqrt_uint', 'math.sqrt(uint) -> double', (x) => Math.sqrt(Number((x as CelUint).v))),
    def('math_isInf_double', 'math.isInf(double) -> bool', (x) => x === Infinity || x === -Infinity),
    def('math_isNaN_double', 'math.isNaN(double) -> bool', (x) => Number.isNaN(x)),
    def('math_isFinite_double', 'math.isFinite(double) -> bool', (x) => Number.isFinite(x)),
    def('math_abs_int', 'math.abs(int) -> int', (x) => i64((x as bigint) < 0n ? -(x as bigint) : (x as bigint))),
    def('math_abs_uint', 'math.abs(uint) -> uint', (x) => x),
    def('math_abs_double', 'math.abs(double) -> double', (x) => Math.abs(x as number)),
    def('math_sign_int', 'math.sign(int) -> int', (x) => ((x as bigint) > 0n ? 1n : (x as bigint) < 0n ? -1n : 0n)),
    def('math_sign_uint', 'math.sign(uint) -> uint', (x) => new CelUint((x as CelUint).v > 0n ? 1n : 0n)),
    def('math_sign_double', 'math.sign(double) -> double', (x) => (Number.isNaN(x) ? NaN : (x as number) > 0 ? 1 : (x as number) < 0 ? -1 : 0)),
    def('math_bitAnd_int_int', 'math.bitAnd(int, int) -> int', (a, b) => (a as bigint) & (b as bigint)),
    def('math_bitAnd_uint_uint', 'math.bitAnd(uint, uint) -> uint', (a, b) => new CelUint((a as CelUint).v & (b as CelUint).v)),
    def('math_bitOr_int_int', 'math.bitOr(int, int) -> int', (a, b) => (a as bigint) | (b as bigint)),
    def('math_bitOr_uint_uint', 'math.bitOr(uint, uint) -> uint', (a, b) => new CelUint((a as CelUint).v | (b as CelUint).v)),
    def('math_bitXor_int_int', 'math.bitXor(int, int) -> int', (a, b) => (a as bigint) ^ (b as bigint)),
    def('math_bitXor_uint_uint', 'math.bitXor(uint, uint) -> uint', (a, b) => new CelUint((a as CelUint).v ^ (b as CelUint).v)),
    def('math_bitNot_int_int', 'math.bitNot(int) -> int', (a) => ~(a as bigint)),
    def('math_bitNot_uint_uint', 'math.bitNot(uint) -> uint', (a) => new CelUint(BigInt.asUintN(64, ~(a as CelUint).v))),
    def('math_bitShiftLeft_int_int', 'math.bitShiftLeft(int, int) -> int', (a, b) => {
      const n = b as bigint;
      if (n < 0n) return new CelError(`math.bitShiftLeft() negative offset: ${n}`);
      return n > 63n ? 0n : BigInt.asIntN(64, (a as bigint) << n);
    }),
    def('math_bitShiftLeft_uint_int', 'math.bitShiftLeft(uint, int) -> uint', (a, b) => {
      const n = b as bigint;
      if (n < 0n) return new CelError(`math.bitShiftLeft() negative offset: ${n}`);
      return new CelUint(n > 63n ? 0n : BigInt.asUintN(64, (a as CelUint).v << n));
    }),
    def('math_bitShiftRight_int_int', 'math.bitShiftRight(int, int) -> int', (a, b) => {
      const n = b as bigint;
      if (n < 0n) return new CelError(`math.bitShiftRight() negative offset: ${n}`);
      // logical shift on the two's complement bits, as cel-go does
      return n > 63n ? 0n : BigInt.asIntN(64, BigInt.asUintN(64, a as bigint) >> n);
    }),
    def('math_bitShiftRight_uint_int', 'math.bitShiftRight(uint, int) -> uint', (a, b) => {
      const n = b as bigint;
      if (n < 0n) return new CelError(`math.bitShiftRight() negative offset: ${n}`);
      return new CelUint(n > 63n ? 0n : (a as CelUint).v >> n);
    }),
  );
  return { name: 'math', overloads: ov };
}

// ---- encoders ----

export function encodersLibrary(): Library {
  return {
    name: 'encoders',
    overloads: [
      def('base64_encode_bytes', 'base64.encode(bytes) -> string', (b) => {
        let s = '';
        for (const x of b as Uint8Array) s += String.fromCharCode(x);
        return btoa(s);
      }),
      def('base64_decode_string', 'base64.decode(string) -> bytes', (s) => {
        let str = s as string;
        if (str.length % 4 !== 0) str += '='.repeat(4 - (str.length % 4));
        try {
          const bin = atob(str);
          const out = new Uint8Array(bin.length);
          for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
          return out;
        } catch {
          return new CelError('illegal base64 data at input byte 0');
        }
      }),
    ],
  };
}

export { fixed, range };
