/**
 * An independent protobuf decoder for tests: protobufjs reflection loaded from the
 * upstream generated.proto files (../shared/data/proto, as scripts/generate-proto.ts
 * reads them), not from the bundled descriptor the codec under test uses.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = dirname(fileURLToPath(import.meta.url));
export const protoDir = join(here, '../../../../../../shared/data/proto');
export const protoFilesAvailable = existsSync(join(protoDir, 'k8s.io/apimachinery/pkg/runtime/generated.proto'));

let root: protobuf.Root | undefined;

/** Every generated.proto under protoDir, relative to it. */
function protoFiles(): string[] {
  return (readdirSync(protoDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.proto')).sort();
}

/** The Root of every upstream generated.proto. */
export function protoRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => join(protoDir, target);
  r.loadSync(protoFiles(), { keepCase: true });
  root = r;
  return r;
}

/** A message type by full name, e.g. "k8s.io.api.core.v1.ConfigMap". */
export function protoType(name: string): protobuf.Type {
  return protoRoot().lookupType(name);
}

export interface DecodedEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Checks the `k8s\0` magic and decodes runtime.Unknown with the reflected type. */
export function decodeEnvelope(bytes: Uint8Array): DecodedEnvelope {
  if (bytes[0] !== 0x6b || bytes[1] !== 0x38 || bytes[2] !== 0x73 || bytes[3] !== 0x00) throw new Error('no k8s\\0 prefix');
  const u = protoType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(bytes.subarray(4)) as unknown as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: Uint8Array;
    contentEncoding?: string;
    contentType?: string;
  };
  return {
    apiVersion: u.typeMeta?.apiVersion ?? '',
    kind: u.typeMeta?.kind ?? '',
    raw: u.raw ?? new Uint8Array(),
    contentEncoding: u.contentEncoding ?? '',
    contentType: u.contentType ?? '',
  };
}

/** Decodes the raw bytes of an envelope as the named message, into a plain object (longs as numbers). */
export function decodeRaw(messageName: string, raw: Uint8Array): Record<string, unknown> {
  const type = protoType(messageName);
  return type.toObject(type.decode(raw), { longs: Number, bytes: String, defaults: false }) as Record<string, unknown>;
}

/** Splits a protobuf watch stream into frames: a 4-byte big-endian length, then that many bytes. */
export function splitFrames(bytes: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let pos = 0;
  while (bytes.length - pos >= 4) {
    const len = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getUint32(0);
    if (bytes.length - pos - 4 < len) break;
    frames.push(bytes.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return { frames, rest: bytes.subarray(pos) };
}

/** A metav1.WatchEvent frame, decoded with the reflected type: its type and the enveloped object. */
export function decodeWatchFrame(frame: Uint8Array): { type: string; object: DecodedEnvelope } {
  const e = protoType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(frame) as unknown as { type?: string; object?: { raw?: Uint8Array } };
  return { type: e.type ?? '', object: decodeEnvelope(e.object?.raw ?? new Uint8Array()) };
}
