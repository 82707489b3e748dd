/**
 * protobuf -> JSON: reads a message along its plan into the object a JSON client
 * would have sent. Unknown fields are skipped (as Go's generated unmarshallers
 * do); zero scalars that Go's JSON encoder would omit are left out; repeated
 * scalars are accepted packed or unpacked.
 */
import { ProtobufDecodeError } from './errors';
import type { FieldPlan, MessagePlan, ValuePlan } from './schema';
import { WIRE_LENGTH } from './schema';
import { decodeWellKnown } from './wellKnown';
import { isZeroScalar, readEnd, readScalar, type Reader } from './wire';

/** Decodes the object held in an embedded `k8s\0` envelope (a RawExtension holding protobuf). */
export type EmbeddedDecoder = (bytes: Uint8Array) => unknown;

/** Reads a message body from `r.pos` to `end`, into `out` (a fresh object, or the parent's for embedded structs). */
export function decodeMessage(
  r: Reader,
  end: number,
  plan: MessagePlan,
  decodeEmbedded: EmbeddedDecoder,
  out: Record<string, unknown> = {},
): unknown {
  if (plan.wellKnown) return decodeWellKnown(r, end, plan.wellKnown, decodeEmbedded);
  if (plan.listWrapper) {
    const holder: Record<string, unknown> = {};
    readFields(r, end, plan, decodeEmbedded, holder);
    return holder[plan.listWrapper.json] ?? [];
  }
  readFields(r, end, plan, decodeEmbedded, out);
  return out;
}

function readFields(
  r: Reader,
  end: number,
  plan: MessagePlan,
  decodeEmbedded: EmbeddedDecoder,
  out: Record<string, unknown>,
): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const field = plan.byId.get(tag >>> 3);
    const wire = tag & 7;
    if (!field) {
      r.skipType(wire);
      continue;
    }
    if (field.inline) {
      expectWire(field, wire, WIRE_LENGTH);
      decodeMessage(r, readEnd(r), (field.value as { message: () => MessagePlan }).message(), decodeEmbedded, out);
      continue;
    }
    if (field.mapKey) {
      expectWire(field, wire, WIRE_LENGTH);
      const map = (out[field.json] ??= {}) as Record<string, unknown>;
      readMapEntry(r, readEnd(r), field, decodeEmbedded, map);
      continue;
    }
    if (field.repeated) {
      const list = (out[field.json] ??= []) as unknown[];
      const v = field.value;
      if (v.kind === 'scalar' && wire === WIRE_LENGTH && v.wireType !== WIRE_LENGTH) {
        const packedEnd = readEnd(r); // packed scalars
        while (r.pos < packedEnd) list.push(readScalar(r, v.scalar));
        continue;
      }
      expectWire(field, wire, v.kind === 'scalar' ? v.wireType : WIRE_LENGTH);
      list.push(readValue(r, v, decodeEmbedded));
      continue;
    }
    const v = field.value;
    expectWire(field, wire, v.kind === 'scalar' ? v.wireType : WIRE_LENGTH);
    if (v.kind === 'scalar') {
      const scalar = readScalar(r, v.scalar);
      if (field.keepZero || !isZeroScalar(scalar)) out[field.json] = scalar;
      else delete out[field.json];
    } else {
      out[field.json] = readValue(r, v, decodeEmbedded);
    }
  }
  if (r.pos !== end) throw new ProtobufDecodeError('Malformed', 'a field runs past the end of its message');
}

function readValue(r: Reader, v: ValuePlan, decodeEmbedded: EmbeddedDecoder): unknown {
  if (v.kind === 'scalar') return readScalar(r, v.scalar);
  return decodeMessage(r, readEnd(r), v.message(), decodeEmbedded);
}

/** The JSON of a map value that the entry left out: Go's zero value. */
function zeroValue(v: ValuePlan, decodeEmbedded: EmbeddedDecoder, r: Reader): unknown {
  if (v.kind === 'message') return decodeMessage(r, r.pos, v.message(), decodeEmbedded);
  if (v.scalar === 'string' || v.scalar === 'bytes') return '';
  return v.scalar === 'bool' ? false : 0;
}

function readMapEntry(
  r: Reader,
  end: number,
  field: FieldPlan,
  decodeEmbedded: EmbeddedDecoder,
  map: Record<string, unknown>,
): void {
  let key: string | undefined;
  let value: unknown;
  let hasValue = false;
  while (r.pos < end) {
    const tag = r.uint32();
    const id = tag >>> 3;
    if (id === 1) {
      const keyType = field.mapKey ?? 'string';
      expectWire(field, tag & 7, keyType === 'string' ? WIRE_LENGTH : 0);
      key = String(readScalar(r, keyType));
    } else if (id === 2) {
      expectWire(field, tag & 7, field.value.kind === 'scalar' ? field.value.wireType : WIRE_LENGTH);
      value = readValue(r, field.value, decodeEmbedded);
      hasValue = true;
    } else r.skipType(tag & 7);
  }
  if (r.pos !== end) throw new ProtobufDecodeError('Malformed', `map entry of ${field.json} runs past its length`);
  map[key ?? ''] = hasValue ? value : zeroValue(field.value, decodeEmbedded, r);
}

function expectWire(field: FieldPlan, actual: number, expected: number): void {
  if (actual !== expected) {
    throw new ProtobufDecodeError('Malformed', `field ${field.json} (${field.id}) has wire type ${actual}, expected ${expected}`);
  }
}
