/**
 * The protobuf serializer (`application/vnd.kubernetes.protobuf`) over the
 * generated codec: built-in kinds only, never custom resources.
 */
import { newBadRequest } from '../../errors';
import { decodeProtobuf, encodeProtobuf, encodeProtobufWatchFrame, ProtobufDecodeError, PROTOBUF_MEDIA_TYPE, supportsProtobuf } from './protobuf';
import type { Serializer } from './types';

export const protobufMediaType = PROTOBUF_MEDIA_TYPE;

export function supportsProtobufKind(apiVersion: string, kind: string): boolean {
  return supportsProtobuf(apiVersion, kind);
}

export const protobufSerializer: Serializer = {
  mediaType: PROTOBUF_MEDIA_TYPE,
  binary: true,
  encode(obj) {
    return encodeProtobuf(obj as { apiVersion: string; kind: string });
  },
  decode(body) {
    try {
      return decodeProtobuf(body).object;
    } catch (e) {
      if (e instanceof ProtobufDecodeError) throw newBadRequest(e.message);
      throw e;
    }
  },
  encodeWatchEvent(event) {
    const { type, object } = event as { type: string; object: { apiVersion?: unknown; kind?: unknown } };
    return encodeProtobufWatchFrame(type, object);
  },
  supports(obj) {
    return typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' && supportsProtobuf(obj.apiVersion, obj.kind);
  },
};
