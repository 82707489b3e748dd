/**
 * The Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`) of every
 * built-in kind, both directions, between the envelope bytes and the object's JSON
 * form (exactly what JSON.parse of the JSON encoding gives).
 *
 * - envelope.ts: the `k8s\0` + runtime.Unknown envelope; the public entry points.
 * - schema.ts: the bundled descriptor (generated/, from upstream generated.proto)
 *   compiled into per-message plans; kind -> message lookup.
 * - encode.ts / decode.ts: JSON <-> wire along a plan.
 * - watchEvent.ts: the length-prefixed WatchEvent frames of a watch stream.
 * - wellKnown.ts: Time, MicroTime, Duration, IntOrString, Quantity, RawExtension, FieldsV1.
 * - wire.ts: scalars; goDuration.ts: Go duration text.
 *
 * Runs wherever protobufjs/minimal does (browsers, service workers, Node), without eval and
 * without node: imports.
 */
export {
  PROTOBUF_MAGIC,
  PROTOBUF_MEDIA_TYPE,
  decodeProtobuf,
  encodeProtobuf,
  supportsProtobuf,
  type DecodedObject,
} from './envelope';
export { ProtobufDecodeError, ProtobufEncodeError, type ProtobufDecodeErrorReason } from './errors';
export { messageNameFor } from './schema';
export { encodeProtobufWatchFrame } from './watchEvent';
