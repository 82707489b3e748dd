/**
 * The Kubernetes protobuf envelope: the magic prefix `k8s\0` followed by a
 * runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}
 * whose raw bytes are the object's message.
 */
import { decodeMessage } from './decode';
import { encodeMessage } from './encode';
import { ProtobufDecodeError, ProtobufEncodeError } from './errors';
import { messageNameFor, messagePlan } from './schema';
import { readEnd, Reader, Writer } from './wire';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** "k8s\0": a change of this prefix would signal an incompatible format. */
export const PROTOBUF_MAGIC: Readonly<Uint8Array> = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  /** The object in its JSON form, `kind` and `apiVersion` included. */
  object: Record<string, unknown>;
}

/** A kind is served as protobuf when it has a built-in message (never custom resources). */
export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return messageNameFor(apiVersion, kind) !== undefined;
}

/** Encodes a built-in object (JSON form, with apiVersion and kind) into the envelope. */
export function encodeProtobuf(obj: { readonly apiVersion?: unknown; readonly kind?: unknown; readonly [field: string]: unknown }): Uint8Array {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !kind) {
    throw new ProtobufEncodeError('object has no apiVersion or kind');
  }
  const name = messageNameFor(apiVersion, kind);
  if (!name) throw new ProtobufEncodeError(`${apiVersion}, Kind=${kind} has no protobuf message`);
  const w = new Writer();
  w.raw(PROTOBUF_MAGIC as Uint8Array);
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).fork();
  try {
    encodeMessage(w, messagePlan(name), obj);
  } catch (err) {
    if (err instanceof ProtobufEncodeError) err.within(kind);
    throw err;
  }
  w.ldelim();
  // Go writes contentEncoding and contentType even when empty.
  w.uint32(0x1a).string('').uint32(0x22).string('');
  return w.finish();
}

interface UnknownEnvelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
}

/** Reads runtime.Unknown from `r` to its end; raw is left in place as offsets. */
function readUnknown(r: Reader): UnknownEnvelope {
  const env: UnknownEnvelope = { apiVersion: '', kind: '', rawStart: r.pos, rawEnd: r.pos };
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 0x0a) {
      const end = readEnd(r);
      while (r.pos < end) {
        const t = r.uint32();
        if (t === 0x0a) env.apiVersion = r.string();
        else if (t === 0x12) env.kind = r.string();
        else r.skipType(t & 7);
      }
      if (r.pos !== end) throw new RangeError('typeMeta runs past its length');
    } else if (tag === 0x12) {
      env.rawEnd = readEnd(r);
      env.rawStart = r.pos;
      r.pos = env.rawEnd;
    } else {
      r.skipType(tag & 7); // contentEncoding, contentType: Go's decoder ignores them too
    }
  }
  return env;
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

/**
 * Decodes an envelope into the object's JSON form. `defaults` fills an apiVersion or
 * kind the envelope leaves empty (from the request path), as Go's decoder does.
 * Throws ProtobufDecodeError for a wrong prefix, malformed data or a kind without a message.
 */
export function decodeProtobuf(
  bytes: Uint8Array,
  defaults: { apiVersion?: string; kind?: string } = {},
): DecodedObject {
  if (bytes.length === 0) throw new ProtobufDecodeError('BadPrefix', 'empty data');
  if (!hasMagic(bytes)) {
    throw new ProtobufDecodeError('BadPrefix',
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  if (bytes.length === 4) throw new ProtobufDecodeError('Malformed', 'empty body');
  const r = new Reader(bytes);
  r.pos = 4;
  let env: UnknownEnvelope;
  try {
    env = readUnknown(r);
  } catch (err) {
    throw new ProtobufDecodeError('Malformed', `unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  const apiVersion = env.apiVersion || defaults.apiVersion || '';
  const kind = env.kind || defaults.kind || '';
  if (!kind || !apiVersion) {
    throw new ProtobufDecodeError('MissingKind',
      `Object '${kind ? 'apiVersion' : 'Kind'}' is missing in protobuf envelope {apiVersion:"${apiVersion}", kind:"${kind}"}`);
  }
  const name = messageNameFor(apiVersion, kind);
  if (!name) {
    throw new ProtobufDecodeError('UnknownKind',
      `no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`);
  }
  const object: Record<string, unknown> = { kind, apiVersion };
  r.pos = env.rawStart;
  try {
    decodeMessage(r, env.rawEnd, messagePlan(name), (embedded) => decodeProtobuf(embedded).object, object);
  } catch (err) {
    if (err instanceof ProtobufDecodeError && err.reason !== 'Malformed') throw err;
    throw new ProtobufDecodeError('Malformed', `unable to decode protobuf ${apiVersion}, Kind=${kind}: ${(err as Error).message}`);
  }
  return { apiVersion, kind, object };
}
