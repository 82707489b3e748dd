/**
 * Protobuf watch streams (`application/vnd.kubernetes.protobuf;stream=watch`), as
 * client-go's LengthDelimitedFramer and raw protobuf serializer read them: each
 * frame is a 4-byte big-endian length and a bare metav1.WatchEvent message (no
 * envelope of its own) {type = 1, object = 2 RawExtension{raw = 1}}, whose raw
 * bytes are the object in the full `k8s\0` envelope.
 */
import { encodeProtobuf } from './envelope';
import { Writer } from './wire';

export function encodeProtobufWatchFrame(type: string, object: { readonly apiVersion?: unknown; readonly kind?: unknown; readonly [field: string]: unknown }): Uint8Array {
  const w = new Writer();
  w.uint32(0x0a).string(type);
  w.uint32(0x12).fork().uint32(0x0a).bytes(encodeProtobuf(object)).ldelim();
  const message = w.finish();
  const frame = new Uint8Array(4 + message.length);
  new DataView(frame.buffer).setUint32(0, message.length);
  frame.set(message, 4);
  return frame;
}
