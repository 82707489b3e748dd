/**
 * The CBOR serializer (`application/cbor`, alpha behind CBORServingAndStorage),
 * writing what kube-apiserver's CBOR serializer writes for an object's JSON form:
 *
 * - one data item enclosed in the self-described CBOR tag (55799, bytes d9 d9 f7),
 *   which serves as the encoding's magic number;
 * - strings and map keys as byte strings (major type 2), as the apiserver's encode
 *   mode does to skip UTF-8 validation;
 * - map keys in RFC 8949 core deterministic order (bytewise lexical of the encoded
 *   key: shorter keys first), integers as integers, other numbers as the shortest
 *   float that keeps the value; definite lengths only.
 *
 * Decoding goes through cbor-x and accepts text or byte strings, indefinite lengths,
 * tags (21/22/23 turn bytes into base64url/base64/hex text, as the apiserver's
 * decoder does into strings) with or without the self-described tag; duplicate
 * map keys, undefined and non-finite floats are errors, as in kube's decode mode. A watch
 * streams a CBOR sequence (`application/cbor-seq`): one such item per event.
 */
import { Decoder, Tag } from 'cbor-x';
import { newBadRequest } from '../../errors';
import { maxNestingDepth } from './json';
import type { Serializer } from './types';

export const CBOR_MEDIA_TYPE = 'application/cbor';
export const CBOR_SEQ_MEDIA_TYPE = 'application/cbor-seq';
/** Head of tag 55799, "self-described CBOR". */
export const SELF_DESCRIBED_CBOR: Readonly<Uint8Array> = new Uint8Array([0xd9, 0xd9, 0xf7]);

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;

const utf8 = new TextEncoder();

/** A growable output buffer. */
class Out {
  buf = new Uint8Array(4096);
  view = new DataView(this.buf.buffer);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** The head of a data item: major type and argument in the fewest bytes. */
  head(major: number, n: number): void {
    const m = major << 5;
    this.ensure(9);
    if (n < 24) this.buf[this.pos++] = m | n;
    else if (n < 0x100) {
      this.buf[this.pos++] = m | 24;
      this.buf[this.pos++] = n;
    } else if (n < 0x10000) {
      this.buf[this.pos++] = m | 25;
      this.view.setUint16(this.pos, n);
      this.pos += 2;
    } else if (n < 0x100000000) {
      this.buf[this.pos++] = m | 26;
      this.view.setUint32(this.pos, n);
      this.pos += 4;
    } else {
      this.buf[this.pos++] = m | 27;
      this.view.setUint32(this.pos, Math.floor(n / 0x100000000));
      this.view.setUint32(this.pos + 4, n >>> 0);
      this.pos += 8;
    }
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** Encoded byte-string keys, shared across encodes: objects repeat the same few hundred keys. */
const keyCache = new Map<string, Uint8Array>();

function keyBytes(key: string): Uint8Array {
  let b = keyCache.get(key);
  if (!b) {
    const raw = utf8.encode(key);
    const o = new Out();
    o.head(MAJOR_BYTES, raw.length);
    o.bytes(raw);
    b = o.finish();
    if (keyCache.size < 10_000) keyCache.set(key, b);
  }
  return b;
}

/** Bytewise lexical order of the encoded keys (RFC 8949 4.2.1). */
function compareKeys(a: string, b: string): number {
  const x = keyBytes(a);
  const y = keyBytes(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Sorted key orders per key set, keyed by the keys joined as they came. */
const orderCache = new Map<string, string[]>();

function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  const id = keys.join('\u0000');
  let sorted = orderCache.get(id);
  if (!sorted) {
    sorted = [...keys].sort(compareKeys);
    if (orderCache.size < 10_000) orderCache.set(id, sorted);
  }
  return sorted;
}

function writeString(out: Out, s: string): void {
  const n = s.length;
  // ASCII, the common case: one byte per code unit, written in place.
  out.ensure(n + 9);
  const start = out.pos;
  out.head(MAJOR_BYTES, n);
  const body = out.pos;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    out.buf[body + i] = c;
  }
  if (i === n) {
    out.pos = body + n;
    return;
  }
  out.pos = start;
  const raw = utf8.encode(s);
  out.head(MAJOR_BYTES, raw.length);
  out.bytes(raw);
}

/** float16 bits of v when v is exactly representable as a float16, else -1. */
function float16Bits(v: number): number {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a >= 2 ** -14) {
    const e = Math.floor(Math.log2(a));
    if (e > 15) return -1;
    const m = a / 2 ** e - 1; // in [0, 1)
    const frac = m * 1024;
    if (!Number.isInteger(frac) || (1 + frac / 1024) * 2 ** e !== a) return -1;
    return sign | ((e + 15) << 10) | frac;
  }
  const sub = a / 2 ** -24; // subnormal: multiples of 2^-24
  return Number.isInteger(sub) && sub < 1024 ? sign | sub : -1;
}

function writeNumber(out: Out, v: number): void {
  if (!Number.isFinite(v)) throw new Error(`cbor: cannot encode ${v}`);
  if (Number.isInteger(v) && Number.isSafeInteger(v) && !Object.is(v, -0)) {
    if (v >= 0) out.head(MAJOR_UNSIGNED, v);
    else out.head(MAJOR_NEGATIVE, -1 - v);
    return;
  }
  out.ensure(9);
  const half = float16Bits(v);
  if (half >= 0) {
    out.buf[out.pos++] = 0xf9;
    out.view.setUint16(out.pos, half);
    out.pos += 2;
  } else if (Math.fround(v) === v) {
    out.buf[out.pos++] = 0xfa;
    out.view.setFloat32(out.pos, v);
    out.pos += 4;
  } else {
    out.buf[out.pos++] = 0xfb;
    out.view.setFloat64(out.pos, v);
    out.pos += 8;
  }
}

function writeValue(out: Out, v: unknown): void {
  switch (typeof v) {
    case 'string':
      return writeString(out, v);
    case 'number':
      return writeNumber(out, v);
    case 'boolean':
      return out.byte(v ? 0xf5 : 0xf4);
    case 'object': {
      if (v === null) return out.byte(0xf6);
      if (Array.isArray(v)) {
        out.head(MAJOR_ARRAY, v.length);
        // JSON writes a missing element as null.
        for (const item of v) writeValue(out, item === undefined ? null : item);
        return;
      }
      const obj = v as Record<string, unknown>;
      const keys = sortedKeys(obj);
      let count = 0;
      for (const k of keys) if (obj[k] !== undefined) count++;
      out.head(MAJOR_MAP, count);
      for (const k of keys) {
        const value = obj[k];
        if (value === undefined) continue;
        out.bytes(keyBytes(k));
        writeValue(out, value);
      }
      return;
    }
    default:
      // undefined and functions are left out of objects, as JSON.stringify does; elsewhere they are null.
      return out.byte(0xf6);
  }
}

/** One self-described CBOR data item of a value in its JSON form. */
export function encodeCbor(value: unknown): Uint8Array {
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR as Uint8Array);
  writeValue(out, value);
  return out.finish();
}

/**
 * A watch event as one item of a CBOR sequence: {type, object}, the object
 * embedded as its own self-described item (a RawExtension's bytes, as the
 * apiserver's watch encoder nests them).
 */
export function encodeCborWatchEvent(type: string, object: unknown): Uint8Array {
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR as Uint8Array);
  out.head(MAJOR_MAP, 2);
  out.bytes(keyBytes('type'));
  writeString(out, type);
  out.bytes(keyBytes('object'));
  out.bytes(SELF_DESCRIBED_CBOR as Uint8Array);
  writeValue(out, object);
  return out.finish();
}

// ---------------------------------------------------------------------------

/** A text-string map key, boxed so that a Map keeps duplicates apart for the duplicate-key check. */
class TextKey {
  constructor(readonly text: string) {}
}

/**
 * cbor-x decoding maps into Maps whose keys stay distinct: its key hook (active
 * with a keyMap) boxes text keys, byte-string keys are distinct objects already.
 */
class KeyPreservingDecoder extends Decoder {
  constructor() {
    super({ useRecords: false, keyMap: {} });
    // A keyMap turns maps into objects; keep them Maps.
    (this as unknown as { mapsAsObjects: boolean }).mapsAsObjects = false;
  }

  decodeKey(key: unknown): unknown {
    return typeof key === 'string' ? new TextKey(key) : key;
  }
}

const decoder = new KeyPreservingDecoder();
const text = new TextDecoder();

export class CborDecodeError extends Error {
  override readonly name = 'CborDecodeError';
}

function base64(bytes: Uint8Array, url: boolean): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const b = btoa(s);
  return url ? b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : b;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** RFC 3339 as Go's time.Time marshals it: fractional seconds only when present. */
function rfc3339(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

/** A decoded cbor-x value turned into its JSON form. */
function toJson(v: unknown, depth: number): unknown {
  if (depth > maxNestingDepth) throw new CborDecodeError(`cbor: exceeded max nested level ${maxNestingDepth}`);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new CborDecodeError(`cbor: ${v} is not a supported floating-point value`);
    return v;
  }
  if (typeof v === 'bigint') {
    if (v > 0x7fffffffffffffffn || v < -0x8000000000000000n) throw new CborDecodeError(`cbor: integer ${v} overflows int64`);
    return Number(v);
  }
  if (v === undefined) throw new CborDecodeError('cbor: the undefined simple value is not supported');
  if (v instanceof Uint8Array) return text.decode(v);
  if (v instanceof Tag) {
    const inner = v.value;
    if (inner instanceof Uint8Array) {
      if (v.tag === 21) return base64(inner, true);
      if (v.tag === 22) return base64(inner, false);
      if (v.tag === 23) return hex(inner);
    }
    return toJson(inner, depth + 1);
  }
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new CborDecodeError('cbor: invalid time');
    return rfc3339(v);
  }
  if (Array.isArray(v)) return v.map((item) => toJson(item, depth + 1));
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    let index = 0;
    for (const [rawKey, value] of v) {
      const key = rawKey instanceof TextKey ? rawKey.text : rawKey instanceof Uint8Array ? text.decode(rawKey) : typeof rawKey === 'string' ? rawKey : undefined;
      if (key === undefined) throw new CborDecodeError(`cbor: cannot unmarshal ${typeof rawKey} map key into Go value of type string`);
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new CborDecodeError(`cbor: found duplicate map key "${key}" at map element index ${index}`);
      // JSON.parse makes "__proto__" an own property; so does this.
      Object.defineProperty(out, key, { value: toJson(value, depth + 1), enumerable: true, writable: true, configurable: true });
      index++;
    }
    return out;
  }
  if (ArrayBuffer.isView(v)) throw new CborDecodeError('cbor: typed arrays are not supported');
  throw new CborDecodeError(`cbor: unsupported value of type ${typeof v}`);
}

/** Decodes one CBOR data item (self-described tag optional) into the value's JSON form. */
export function decodeCbor(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new CborDecodeError('cbor: empty data');
  let raw: unknown;
  try {
    raw = decoder.decode(bytes);
  } catch (e) {
    throw new CborDecodeError(`cbor: ${e instanceof Error ? e.message : String(e)}`);
  }
  return toJson(raw, 0);
}

/** Decodes a CBOR sequence (the items of a cbor-seq watch) into JSON-form values. */
export function decodeCborSequence(bytes: Uint8Array): unknown[] {
  if (bytes.length === 0) return [];
  let items: unknown[];
  try {
    items = decoder.decodeMultiple(bytes) as unknown[];
  } catch (e) {
    throw new CborDecodeError(`cbor: ${e instanceof Error ? e.message : String(e)}`);
  }
  return items.map((item) => toJson(item, 0));
}

export const cborSerializer: Serializer = {
  mediaType: CBOR_MEDIA_TYPE,
  binary: true,
  encode(obj) {
    return encodeCbor(obj);
  },
  decode(body) {
    try {
      return decodeCbor(body);
    } catch (e) {
      if (e instanceof CborDecodeError) throw newBadRequest(e.message);
      throw e;
    }
  },
  encodeWatchEvent(event) {
    const { type, object } = event as { type: string; object: unknown };
    return encodeCborWatchEvent(type, object);
  },
};
