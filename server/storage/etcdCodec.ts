/**
 * How values are written to etcd (--storage-media-type), as kube-apiserver
 * stores them: built-in kinds as `application/vnd.kubernetes.protobuf` (the
 * `k8s\0` envelope, through the same codec the API serves protobuf with),
 * custom resources and anything without a protobuf message as JSON.
 *
 * The storage interface carries the registry's JSON text; decoding an
 * envelope gives that text back in the registry's stored layout (kind,
 * apiVersion, canonical metadata with an empty resourceVersion, the rest), so
 * the registry's fast paths apply. An object the protobuf messages cannot
 * carry losslessly (a field the message lacks) is stored as JSON instead of
 * being silently trimmed. Reading tells the two apart by the envelope's magic
 * bytes, so data written under either media type stays readable.
 */
import { canonicalMetadata, jsonEqual } from '../../src/core/api/equality';
import { PROTOBUF_MAGIC, PROTOBUF_MEDIA_TYPE, decodeProtobuf, encodeProtobuf, supportsProtobuf } from '../../src/core/http/serializers/protobuf';

export const storageMediaTypes = ['application/json', PROTOBUF_MEDIA_TYPE] as const;
export type StorageMediaType = (typeof storageMediaTypes)[number];
export const defaultStorageMediaType: StorageMediaType = PROTOBUF_MEDIA_TYPE;

export interface EtcdValueCodec {
  encode(value: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function etcdValueCodec(mediaType: StorageMediaType = defaultStorageMediaType): EtcdValueCodec {
  const protobuf = mediaType === PROTOBUF_MEDIA_TYPE;
  return {
    encode: (value) => (protobuf ? encodeBuiltin(value) : undefined) ?? utf8.encode(value),
    decode: (bytes) => (hasMagic(bytes) ? storedJson(decodeProtobuf(bytes).object) : fromUtf8.decode(bytes)),
  };
}

/** The envelope of a registry value of a built-in kind; undefined when it must stay JSON. */
function encodeBuiltin(value: string): Uint8Array | undefined {
  // The registry writes `{"kind":...,"apiVersion":...`; anything else is opaque text.
  if (!value.startsWith('{"kind":')) return undefined;
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(value) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !supportsProtobuf(apiVersion, kind)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = encodeProtobuf(obj);
  } catch {
    return undefined;
  }
  const back = JSON.parse(storedJson(decodeProtobuf(bytes).object)) as unknown;
  return jsonEqual(back, withEmptyResourceVersion(obj)) ? bytes : undefined;
}

/** The registry's stored layout of a decoded object. */
function storedJson(object: Record<string, unknown>): string {
  const { kind, apiVersion, metadata, ...rest } = object;
  return JSON.stringify({ kind, apiVersion, metadata: canonicalMetadata({ ...(metadata as Record<string, unknown> | undefined), resourceVersion: '' }), ...rest });
}

function withEmptyResourceVersion(obj: Record<string, unknown>): Record<string, unknown> {
  return { ...obj, metadata: { ...(obj['metadata'] as Record<string, unknown> | undefined), resourceVersion: '' } };
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => bytes[i] === b);
}
