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
 *   float that keeps the value; definite lengths only;
 * - a built-in kind's []byte fields (base64 text in JSON) as their raw bytes in tag 22.
 *   Custom resources are unstructured: their strings stay strings.
 *
 * Decoding accepts text or byte strings, indefinite lengths and tags (21/22/23
 * turn bytes into base64url/base64/hex text, as the apiserver's decoder does into
 * strings), with or without the self-described tag; duplicate map keys, non-string
 * keys, undefined, non-finite floats, integers beyond int64 and trailing bytes are
 * errors, as in kube's decode mode. Tests read what this writes with cbor-x. A watch
 * streams a CBOR sequence (`application/cbor-seq`): one such item per event.
 */
import { newBadRequest } from '../../errors';
import { maxNestingDepth } from './json';
import { messageNameFor, messagePlan, type FieldPlan, type MessagePlan, type ValuePlan } from './protobuf/schema';
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

// Typed objects: kube encodes a Go []byte field (Secret.data, caBundle...) as its raw
// bytes in tag 22 ("expected later base64"), where JSON carries base64 text. The
// protobuf schema says which fields are bytes.

/** A message's fields by JSON name, embedded structs' fields included. */
const fieldsByJson = new WeakMap<MessagePlan, Map<string, FieldPlan>>();

function jsonFields(plan: MessagePlan): Map<string, FieldPlan> {
  let fields = fieldsByJson.get(plan);
  if (!fields) {
    fields = new Map();
    for (const f of plan.fields) {
      if (f.inline && f.value.kind === 'message') for (const [k, v] of jsonFields(f.value.message())) fields.set(k, v);
      else fields.set(f.json, f);
    }
    fieldsByJson.set(plan, fields);
  }
  return fields;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Padded standard base64 as tag 22 around the raw bytes; any other text stays a string. */
function writeBase64Bytes(out: Out, s: string): void {
  if (!BASE64.test(s)) return writeString(out, s);
  const bin = atob(s);
  out.byte(0xd6);
  out.head(MAJOR_BYTES, bin.length);
  out.ensure(bin.length);
  for (let i = 0; i < bin.length; i++) out.buf[out.pos++] = bin.charCodeAt(i);
}

function writeByPlan(out: Out, vp: ValuePlan, v: unknown): void {
  if (vp.kind === 'scalar') {
    if (vp.scalar === 'bytes' && typeof v === 'string') return writeBase64Bytes(out, v);
    return writeValue(out, v);
  }
  writeTyped(out, vp.message(), v);
}

function writeField(out: Out, f: FieldPlan, v: unknown): void {
  if (f.mapKey && v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const obj = v as Record<string, unknown>;
    const keys = sortedKeys(obj).filter((k) => obj[k] !== undefined);
    out.head(MAJOR_MAP, keys.length);
    for (const k of keys) {
      out.bytes(keyBytes(k));
      writeByPlan(out, f.value, obj[k]);
    }
    return;
  }
  if (f.repeated && Array.isArray(v)) {
    out.head(MAJOR_ARRAY, v.length);
    for (const item of v) writeByPlan(out, f.value, item === undefined ? null : item);
    return;
  }
  writeByPlan(out, f.value, v);
}

function writeTyped(out: Out, plan: MessagePlan, v: unknown): void {
  if (plan.wellKnown || v === null || typeof v !== 'object') return writeValue(out, v);
  if (Array.isArray(v)) return plan.listWrapper ? writeField(out, plan.listWrapper, v) : writeValue(out, v);
  const obj = v as Record<string, unknown>;
  const fields = jsonFields(plan);
  const keys = sortedKeys(obj);
  let count = 0;
  for (const k of keys) if (obj[k] !== undefined) count++;
  out.head(MAJOR_MAP, count);
  for (const k of keys) {
    const value = obj[k];
    if (value === undefined) continue;
    out.bytes(keyBytes(k));
    const f = fields.get(k);
    if (f) writeField(out, f, value);
    else writeValue(out, value);
  }
}

/** A value at the top of an item: typed by its apiVersion and kind when it names a built-in kind. */
function writeTop(out: Out, value: unknown): void {
  const { apiVersion, kind } = (value ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const name = typeof apiVersion === 'string' && typeof kind === 'string' ? messageNameFor(apiVersion, kind) : undefined;
  if (name) writeTyped(out, messagePlan(name), value);
  else writeValue(out, value);
}

/** One self-described CBOR data item of a value in its JSON form. */
export function encodeCbor(value: unknown): Uint8Array {
  const out = new Out();
  out.bytes(SELF_DESCRIBED_CBOR as Uint8Array);
  writeTop(out, value);
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
  writeTop(out, object);
  return out.finish();
}

// ---------------------------------------------------------------------------
// Decoding, straight into the JSON form: every string may come as a byte string,
// so a general-purpose decoder (one Buffer per string, Maps for byte-string keys)
// costs several times JSON.parse; this reads only what kube's decode mode accepts.

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

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

/** float16 bits to a number (RFC 8949 Appendix D). */
function float16(bits: number): number {
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

const MAJOR_TEXT = 3;
const MAJOR_TAG = 6;
const BREAK = 0xff;
/** A byte string's raw bytes, kept for tags 21-23 before it becomes text. */
class RawBytes {
  constructor(readonly bytes: Uint8Array) {}
}

class In {
  pos = 0;
  readonly view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new CborDecodeError('cbor: unexpected EOF');
  }

  /** The argument of a head with additional information `info`; -1 for indefinite length. */
  argument(info: number, major: number): number {
    if (info < 24) return info;
    switch (info) {
      case 24:
        this.need(1);
        return this.buf[this.pos++]!;
      case 25: {
        this.need(2);
        const v = this.view.getUint16(this.pos);
        this.pos += 2;
        return v;
      }
      case 26: {
        this.need(4);
        const v = this.view.getUint32(this.pos);
        this.pos += 4;
        return v;
      }
      case 27: {
        this.need(8);
        const hi = this.view.getUint32(this.pos);
        const lo = this.view.getUint32(this.pos + 4);
        this.pos += 8;
        // Kube decodes integers into int64: anything above it does not fit.
        if (hi >= 0x80000000) throw new CborDecodeError(`cbor: ${major === 1 ? 'negative ' : ''}integer overflows int64`);
        return hi * 0x100000000 + lo;
      }
      case 31:
        if (major >= 2 && major <= 5) return -1;
        throw new CborDecodeError(`cbor: invalid additional information 31 for type ${major}`);
      default:
        throw new CborDecodeError(`cbor: invalid additional information ${info} for type ${major}`);
    }
  }

  /** The bytes of a byte or text string whose head is read (chunks joined when indefinite). */
  stringBytes(major: number, length: number): Uint8Array {
    if (length >= 0) {
      this.need(length);
      const b = this.buf.subarray(this.pos, this.pos + length);
      this.pos += length;
      return b;
    }
    const chunks: Uint8Array[] = [];
    for (;;) {
      this.need(1);
      const b = this.buf[this.pos++]!;
      if (b === BREAK) break;
      if (b >> 5 !== major) throw new CborDecodeError(`cbor: wrong element type in indefinite-length string`);
      const n = this.argument(b & 0x1f, major);
      if (n < 0) throw new CborDecodeError('cbor: nested indefinite-length string');
      chunks.push(this.stringBytes(major, n));
    }
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let off = 0;
    for (const c of chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }

  text(major: number, bytes: Uint8Array): string {
    const n = bytes.length;
    if (n < 64) {
      let ascii = true;
      for (let i = 0; i < n; i++) if (bytes[i]! >= 0x80) { ascii = false; break; }
      if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
    }
    if (major !== MAJOR_TEXT) return lenientUtf8.decode(bytes);
    try {
      return fatalUtf8.decode(bytes);
    } catch {
      throw new CborDecodeError('cbor: invalid UTF-8 string');
    }
  }

  atBreak(): boolean {
    this.need(1);
    if (this.buf[this.pos] !== BREAK) return false;
    this.pos++;
    return true;
  }

  /** One data item in its JSON form (a RawBytes for a byte string directly under a tag). */
  item(depth: number, underTag = false): unknown {
    if (depth > maxNestingDepth) throw new CborDecodeError(`cbor: exceeded max nested level ${maxNestingDepth}`);
    this.need(1);
    const b = this.buf[this.pos++]!;
    const major = b >> 5;
    const info = b & 0x1f;
    if (major === 7) return this.simple(info);
    const n = this.argument(info, major);
    switch (major) {
      case MAJOR_UNSIGNED:
        return n;
      case MAJOR_NEGATIVE:
        return -1 - n;
      case MAJOR_BYTES: {
        const bytes = this.stringBytes(major, n);
        return underTag ? new RawBytes(bytes) : this.text(major, bytes);
      }
      case MAJOR_TEXT:
        return this.text(major, this.stringBytes(major, n));
      case MAJOR_ARRAY: {
        // Every element takes a byte at least: a longer count cannot be real.
        if (n > this.buf.length - this.pos) throw new CborDecodeError('cbor: unexpected EOF');
        const out: unknown[] = [];
        if (n >= 0) for (let i = 0; i < n; i++) out.push(this.item(depth + 1));
        else while (!this.atBreak()) out.push(this.item(depth + 1));
        return out;
      }
      case MAJOR_MAP: {
        if (n > (this.buf.length - this.pos) / 2) throw new CborDecodeError('cbor: unexpected EOF');
        const out: Record<string, unknown> = {};
        for (let i = 0; n < 0 ? !this.atBreak() : i < n; i++) {
          const key = this.key();
          if (Object.prototype.hasOwnProperty.call(out, key)) throw new CborDecodeError(`cbor: found duplicate map key "${key}" at map element index ${i}`);
          const value = this.item(depth + 1);
          // JSON.parse makes "__proto__" an own property; so does this.
          if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
          else out[key] = value;
        }
        return out;
      }
      case MAJOR_TAG: {
        const content = this.item(depth + 1, true);
        if (content instanceof RawBytes) {
          // Expected later encodings (RFC 8949 3.4.5.2): kube decodes such bytes into a string as that text.
          if (n === 21) return base64(content.bytes, true);
          if (n === 22) return base64(content.bytes, false);
          if (n === 23) return hex(content.bytes);
          return this.text(MAJOR_BYTES, content.bytes);
        }
        // Epoch time: the RFC 3339 text JSON would carry.
        if (n === 1 && typeof content === 'number') return new Date(content * 1000).toISOString().replace('.000Z', 'Z');
        return content; // self-described CBOR (55799), RFC 3339 time (0) and unrecognized tags: the content
      }
    }
    throw new CborDecodeError(`cbor: invalid major type ${major}`);
  }

  /** A map key: a text or byte string, as kube's decoder requires for objects. */
  key(): string {
    this.need(1);
    const b = this.buf[this.pos];
    const major = b! >> 5;
    if (major !== MAJOR_BYTES && major !== MAJOR_TEXT) throw new CborDecodeError(`cbor: cannot unmarshal map key of major type ${major} into Go value of type string`);
    this.pos++;
    return this.text(major, this.stringBytes(major, this.argument(b! & 0x1f, major)));
  }

  simple(info: number): unknown {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 23:
        throw new CborDecodeError('cbor: the undefined simple value is not supported');
      case 25:
      case 26:
      case 27: {
        const size = info === 25 ? 2 : info === 26 ? 4 : 8;
        this.need(size);
        const v = size === 2 ? float16(this.view.getUint16(this.pos)) : size === 4 ? this.view.getFloat32(this.pos) : this.view.getFloat64(this.pos);
        this.pos += size;
        if (!Number.isFinite(v)) throw new CborDecodeError(`cbor: floating-point value ${v} is not supported`);
        return v;
      }
      default:
        throw new CborDecodeError(`cbor: simple value ${info} is not supported`);
    }
  }
}

/** Decodes one CBOR data item (self-described tag optional) into the value's JSON form. */
export function decodeCbor(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new CborDecodeError('cbor: empty data');
  const r = new In(bytes);
  const value = r.item(0);
  if (r.pos !== bytes.length) throw new CborDecodeError(`cbor: ${bytes.length - r.pos} bytes of extraneous data starting at index ${r.pos}`);
  return value;
}

/** Decodes a CBOR sequence (the items of a cbor-seq watch) into JSON-form values. */
export function decodeCborSequence(bytes: Uint8Array): unknown[] {
  const r = new In(bytes);
  const out: unknown[] = [];
  while (r.pos < bytes.length) out.push(r.item(0));
  return out;
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
