/**
 * The protobuf serializer (`application/vnd.kubernetes.protobuf`) over the
 * generated codec: built-in kinds only, never custom resources.
 */
import { newBadRequest } from '../../errors';
import { decodeProtobuf, encodeProtobuf, encodeProtobufWatchFrame, ProtobufDecodeError } from './protobuf';
import { messageNameFor } from './protobuf/messageNames';
import type { Serializer } from './types';

/** Spelled here, not imported: the codec is a part the service worker loads on the first protobuf request (src/sw/chunkLoader.ts). */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

export function supportsProtobufKind(apiVersion: string, kind: string): boolean {
  return messageNameFor(apiVersion, kind) !== undefined;
}

export const protobufSerializer: Serializer = {
  mediaType: protobufMediaType,
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
    return typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' && supportsProtobufKind(obj.apiVersion, obj.kind);
  },
};
