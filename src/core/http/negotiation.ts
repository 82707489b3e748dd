/**
 * Content negotiation: the only place that reads Accept and Content-Type.
 * Picks the response serializer and representation (object, Table,
 * PartialObjectMetadata) from an Accept list, and the request decoder from
 * Content-Type, with kube-apiserver's 406 and 415 errors.
 */
import { newNotAcceptable, newUnsupportedMediaType } from '../errors';
import { essence, parseAccept, parseMediaType, type MediaRange } from './mediaType';
import { jsonSerializer } from './serializers/json';
import type { Serializer } from './serializers/types';
import { yamlSerializer } from './serializers/yaml';
import { protobufSerializer } from './serializers/protobufSerializer';

export type Representation =
  | { as: 'object' }
  | { as: 'Table'; version: 'v1' | 'v1beta1' }
  | { as: 'PartialObjectMetadata' | 'PartialObjectMetadataList'; version: 'v1' | 'v1beta1' };

export interface OutputChoice {
  serializer: Serializer;
  representation: Representation;
  pretty: boolean;
}

const serializers = new Map<string, Serializer>([
  [jsonSerializer.mediaType, jsonSerializer],
  [yamlSerializer.mediaType, yamlSerializer],
  [protobufSerializer.mediaType, protobufSerializer],
]);

/** Adds a serializer (protobuf, CBOR) to the negotiable set. */
export function registerSerializer(s: Serializer): void {
  serializers.set(s.mediaType, s);
}

export function serializerFor(mediaType: string): Serializer | undefined {
  return serializers.get(mediaType);
}

export function supportedMediaTypes(): string[] {
  return [...serializers.keys()];
}

export interface NegotiateOptions {
  /** Whether the target object can be encoded in protobuf (false for custom resources). */
  protobuf?: boolean;
  /** Whether Table / PartialObjectMetadata conversions apply (resource GETs and lists). */
  transforms?: boolean;
  /** Watch requests also accept the stream media types. */
  url?: URL;
  userAgent?: string | null;
}

function representationFor(m: MediaRange, transforms: boolean): Representation | undefined {
  const as = m.params['as'];
  if (!as) return { as: 'object' };
  if (!transforms) return undefined;
  const g = m.params['g'];
  const v = m.params['v'];
  if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  if (as === 'Table' || as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as, version: v };
  return undefined;
}

/** Pretty printing: `?pretty=true`, or a human's user agent (curl, wget, browsers), as the apiserver does. */
function wantsPretty(url: URL | undefined, userAgent: string | null | undefined): boolean {
  const p = url?.searchParams.get('pretty');
  if (p !== null && p !== undefined) return p === '' || p === 'true' || p === '1';
  return !!userAgent && /^(curl|Wget|Mozilla\/)/.test(userAgent);
}

export function negotiateOutput(accept: string | null, options: NegotiateOptions = {}): OutputChoice {
  const pretty = wantsPretty(options.url, options.userAgent);
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { serializer: jsonSerializer, representation: { as: 'object' }, pretty };
  for (const m of ranges) {
    const ess = essence(m);
    if (ess === '*/*' || ess === 'application/*') {
      return { serializer: jsonSerializer, representation: { as: 'object' }, pretty };
    }
    const s = serializers.get(ess);
    if (!s) continue;
    if (s.mediaType === 'application/vnd.kubernetes.protobuf' && options.protobuf === false) continue;
    const representation = representationFor(m, options.transforms ?? false);
    if (!representation) continue;
    // Tables and partial metadata are JSON/YAML/protobuf documents of meta.k8s.io; keep them JSON for protobuf-less kinds.
    return { serializer: s, representation, pretty };
  }
  throw newNotAcceptable(supportedMediaTypes());
}

/** The decoder for a request body; empty Content-Type means JSON. */
export function negotiateInput(contentType: string | null, options: { protobuf?: boolean } = {}): Serializer {
  if (!contentType || !contentType.trim()) return jsonSerializer;
  const m = parseMediaType(contentType);
  const s = m ? serializers.get(essence(m)) : undefined;
  if (!s || (s.mediaType === 'application/vnd.kubernetes.protobuf' && options.protobuf === false)) {
    throw newUnsupportedMediaType(supportedMediaTypes().filter((t) => options.protobuf !== false || t !== 'application/vnd.kubernetes.protobuf'));
  }
  return s;
}

export const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof patchTypes)[number];

/** The patch type of a PATCH request; 415 for anything else. */
export function negotiatePatchType(contentType: string | null, allowed: readonly PatchType[] = patchTypes): PatchType {
  const m = contentType ? parseMediaType(contentType) : undefined;
  const ess = m ? essence(m) : '';
  const found = allowed.find((t) => t === ess);
  if (!found) throw newUnsupportedMediaType([...allowed]);
  return found;
}
