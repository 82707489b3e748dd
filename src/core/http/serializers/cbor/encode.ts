/**
 * CBOR encoding of an object's JSON form as kube-apiserver's encode mode writes it:
 * one data item in the self-described tag (55799, bytes d9 d9 f7, the encoding's
 * magic number); strings and map keys as byte strings (major type 2: kube skips
 * UTF-8 validation this way); keys in RFC 8949 core deterministic order (bytewise
 * lexical of the encoded key, so shorter keys first); integers as integers, other
 * numbers as the shortest float that keeps the value; definite lengths only; a
 * built-in kind's []byte fields as raw bytes in tag 22. Custom resources are
 * unstructured: their strings stay strings.
 */
import { messageNameFor, messagePlan, type FieldPlan, type MessagePlan, type ValuePlan } from '../protobuf/schema';

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

/** A map with its keys in kube's order; undefined values are left out, as JSON leaves them out. */
function writeMap(out: Out, obj: Record<string, unknown>, write: (key: string, value: unknown) => void): void {
  const keys = sortedKeys(obj);
  let count = 0;
  for (const k of keys) if (obj[k] !== undefined) count++;
  out.head(MAJOR_MAP, count);
  for (const k of keys) {
    const value = obj[k];
    if (value === undefined) continue;
    out.bytes(keyBytes(k));
    write(k, value);
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
      return writeMap(out, v as Record<string, unknown>, (_, value) => writeValue(out, value));
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
    return writeMap(out, v as Record<string, unknown>, (_, value) => writeByPlan(out, f.value, value));
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
  const fields = jsonFields(plan);
  writeMap(out, v as Record<string, unknown>, (key, value) => {
    const f = fields.get(key);
    if (f) writeField(out, f, value);
    else writeValue(out, value);
  });
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
