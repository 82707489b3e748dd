/**
 * CBOR decoding straight into the JSON form, accepting what kube-apiserver's
 * decode mode accepts: text or byte strings, indefinite lengths, tags (21/22/23
 * turn bytes into base64url/base64/hex text, as kube decodes them into strings),
 * with or without the self-described tag. Duplicate map keys, non-string keys,
 * undefined, non-finite floats, integers beyond int64 and trailing bytes are
 * errors. Every string may come as a byte string, so a general-purpose decoder
 * (a Buffer per string, Maps for byte-string keys) costs several times
 * JSON.parse; this one builds the JSON values directly.
 */
import { maxNestingDepth } from '../json';
import { hexOfBytes } from '../../../util/hex';
import { concatBytes } from '../../../util/bytes';

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

/** float16 bits to a number (RFC 8949 Appendix D). */
function float16(bits: number): number {
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
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
    return concatBytes(chunks);
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
          if (n === 23) return hexOfBytes(content.bytes);
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
