/**
 * Scalars on the wire: reading and writing one proto scalar as its JSON value
 * (int64 as a JSON number, bytes as base64), over protobufjs' Reader and Writer.
 */
import { Reader, Writer, util } from 'protobufjs/minimal.js';
import { mismatch } from './errors';
import type { ScalarType } from './schema';

export { Reader, Writer };

/** protobufjs returns 64-bit integers as Long when the long package is present, else as numbers. */
type LongLike = { low: number; high: number; unsigned?: boolean } | number;

function longToNumber(v: LongLike, unsigned: boolean): number {
  if (typeof v === 'number') return v;
  return (unsigned ? v.high >>> 0 : v.high) * 4294967296 + (v.low >>> 0);
}

function longToBigInt(v: LongLike): bigint {
  if (typeof v === 'number') return BigInt(v);
  return BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
}

export function bigIntToLong(v: bigint): { low: number; high: number; unsigned: boolean } {
  const bits = BigInt.asUintN(64, v);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0, unsigned: false };
}

export function readInt64Big(r: Reader): bigint {
  return longToBigInt(r.int64() as LongLike);
}

export function readInt64(r: Reader): number {
  return longToNumber(r.int64() as LongLike, false);
}

/** Reads one scalar as its JSON value. */
export function readScalar(r: Reader, type: ScalarType): string | number | boolean {
  switch (type) {
    case 'string': return r.string();
    case 'bytes': {
      const b = r.bytes();
      return util.base64.encode(b, 0, b.length);
    }
    case 'bool': return r.bool();
    case 'int32': return r.int32();
    case 'uint32': return r.uint32();
    case 'sint32': return r.sint32();
    case 'fixed32': return r.fixed32();
    case 'sfixed32': return r.sfixed32();
    case 'int64': return longToNumber(r.int64() as LongLike, false);
    case 'uint64': return longToNumber(r.uint64() as LongLike, true);
    case 'sint64': return longToNumber(r.sint64() as LongLike, false);
    case 'fixed64': return longToNumber(r.fixed64() as LongLike, true);
    case 'sfixed64': return longToNumber(r.sfixed64() as LongLike, false);
    case 'double': return r.double();
    case 'float': return r.float();
  }
}

/** The zero value Go writes for a non-pointer field and drops from `omitempty` JSON. */
export function isZeroScalar(v: string | number | boolean): boolean {
  return v === '' || v === 0 || v === false;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function integer(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw mismatch('an integer', v);
}

/** Writes one JSON value as a scalar (the tag is already written). */
export function writeScalar(w: Writer, type: ScalarType, v: unknown): void {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') throw mismatch('a string', v);
      w.string(v);
      return;
    case 'bytes':
      // Go's encoding/json carries []byte as standard, padded base64.
      if (typeof v !== 'string' || !BASE64.test(v)) throw mismatch('base64 data', v);
      w.bytes(v);
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw mismatch('a boolean', v);
      w.bool(v);
      return;
    case 'int32': w.int32(integer(v)); return;
    case 'uint32': w.uint32(integer(v)); return;
    case 'sint32': w.sint32(integer(v)); return;
    case 'fixed32': w.fixed32(integer(v)); return;
    case 'sfixed32': w.sfixed32(integer(v)); return;
    case 'int64': w.int64(integer(v)); return;
    case 'uint64': w.uint64(integer(v)); return;
    case 'sint64': w.sint64(integer(v)); return;
    case 'fixed64': w.fixed64(integer(v)); return;
    case 'sfixed64': w.sfixed64(integer(v)); return;
    case 'double':
    case 'float':
      if (typeof v !== 'number') throw mismatch('a number', v);
      if (type === 'double') w.double(v);
      else w.float(v);
      return;
  }
}

/** Reads a length prefix and returns where the delimited bytes end. */
export function readEnd(r: Reader): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new RangeError(`length ${len} at offset ${r.pos} runs past the end (${r.len})`);
  return end;
}
