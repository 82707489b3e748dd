/**
 * Content negotiation: the only place that reads Accept and Content-Type.
 * Picks the response serializer and representation (object, Table,
 * PartialObjectMetadata) from an Accept list, and the request decoder from
 * Content-Type, with kube-apiserver's 406 and 415 errors.
 */
import { newNotAcceptable, newUnsupportedMediaType } from '../errors';
import { essence, parseAccept, parseMediaType, type MediaRange } from './mediaType';
import { cborSerializer } from './serializers/cborSerializer';
import { jsonSerializer } from './serializers/json';
import type { Serializer } from './serializers/types';
import { yamlSerializer } from './serializers/yaml';
import { protobufSerializer, supportsProtobufKind } from './serializers/protobufSerializer';
import { queryOf } from './queryParams';

export type Representation =
  | { as: 'object' }
  | { as: 'Table'; version: 'v1' | 'v1beta1' }
  | { as: 'PartialObjectMetadata' | 'PartialObjectMetadataList'; version: 'v1' | 'v1beta1' };

export interface OutputChoice {
  serializer: Serializer;
  representation: Representation;
  pretty: boolean;
}

/** In kube-apiserver's order: wildcards pick the first one a request is offered. */
const serializers = new Map<string, Serializer>([
  [jsonSerializer.mediaType, jsonSerializer],
  [yamlSerializer.mediaType, yamlSerializer],
  [protobufSerializer.mediaType, protobufSerializer],
  [cborSerializer.mediaType, cborSerializer],
]);

/** Adds a serializer to the negotiable set. */
export function registerSerializer(s: Serializer): void {
  serializers.set(s.mediaType, s);
}

export function serializerFor(mediaType: string): Serializer | undefined {
  return serializers.get(mediaType);
}

/** Media types a request may name; CBOR only with the CBORServingAndStorage gate. */
export function supportedMediaTypes(options: { cbor?: boolean } = {}): string[] {
  return [...serializers.keys()].filter((t) => t !== cborSerializer.mediaType || options.cbor === true);
}

export interface NegotiateOptions {
  /** Whether the target object can be encoded in protobuf (false for custom resources). */
  protobuf?: boolean;
  /** Whether Table / PartialObjectMetadata conversions apply (resource GETs, lists and watches). */
  transforms?: boolean;
  /** The CBORServingAndStorage gate: application/cbor is served. */
  cbor?: boolean;
  /** A watch: the chosen encoding must have a stream framing (JSON, protobuf, CBOR). */
  stream?: boolean;
  url?: URL;
  userAgent?: string | null;
}

/** The representation an Accept clause asks for, or undefined when this serializer cannot serve it. */
function representationFor(m: MediaRange, s: Serializer, transforms: boolean): Representation | undefined {
  const as = m.params['as'];
  if (!as) return { as: 'object' };
  if (!transforms) return undefined;
  const g = m.params['g'];
  const v = m.params['v'];
  if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  // Tables are JSON or YAML only; partial metadata goes in any encoding (kube's AllowsMediaTypeTransform).
  if (as === 'Table') return s === jsonSerializer || s === yamlSerializer ? { as, version: v } : undefined;
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as, version: v };
  return undefined;
}

/** Pretty printing: `?pretty=true`, `;pretty=1` in Accept, or a human's user agent (curl, wget, browsers). */
export function wantsPretty(url: URL | undefined, userAgent: string | null | undefined): boolean {
  const p = url && queryOf(url).get('pretty');
  if (p !== null && p !== undefined) return p === '' || p === 'true' || p === '1';
  return !!userAgent && /^(curl|Wget|Mozilla\/)/.test(userAgent);
}

function offered(s: Serializer, options: NegotiateOptions, representation: Representation): boolean {
  if (s === cborSerializer && options.cbor !== true) return false;
  if (s === protobufSerializer) {
    // Custom resources have no protobuf messages; their partial metadata does (where meta.k8s.io has one).
    if (representation.as === 'object') return options.protobuf !== false;
    return supportsProtobufKind(`meta.k8s.io/${representation.version}`, representation.as);
  }
  return true;
}

/**
 * The response encoding for an Accept header: its clauses by preference, each
 * matched against the serializers in order (`*\/*` and `application/*` take the
 * first that fits), as kube's NegotiateMediaTypeOptions walks them. 406 when
 * none fits.
 */
export function negotiateOutput(accept: string | null, options: NegotiateOptions = {}): OutputChoice {
  const pretty = wantsPretty(options.url, options.userAgent);
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { serializer: jsonSerializer, representation: { as: 'object' }, pretty };
  // Clients repeat the same few Accept headers: the match for one parsed header and these options is kept.
  const bits = (options.protobuf === false ? 0 : 1) | (options.transforms ? 2 : 0) | (options.cbor ? 4 : 0) | (options.stream ? 8 : 0);
  let byOptions = matchedAccept.get(ranges);
  let match = byOptions?.[bits];
  if (!match) {
    match = matchAccept(ranges, options);
    if (!byOptions) matchedAccept.set(ranges, (byOptions = []));
    byOptions[bits] = match;
  }
  return { serializer: match.serializer, representation: match.representation, pretty: pretty || match.pretty };
}

/** What an Accept header's ranges choose for a set of options; shared by every request that sends it, so nobody may change it. */
const matchedAccept = new WeakMap<readonly MediaRange[], OutputChoice[]>();

function matchAccept(ranges: readonly MediaRange[], options: NegotiateOptions): OutputChoice {
  for (const m of ranges) {
    // `;stream=watch` is the only stream schema; any other makes the clause unacceptable.
    const stream = m.params['stream'];
    if (stream !== undefined && stream !== '' && stream !== 'watch') continue;
    for (const s of serializers.values()) {
      const [type, subtype] = s.mediaType.split('/');
      const matches = m.type === '*' ? m.subtype === '*' : m.type === type && (m.subtype === '*' || m.subtype === subtype);
      if (!matches) continue;
      const representation = representationFor(m, s, options.transforms ?? false);
      if (!representation || !offered(s, options, representation)) continue;
      // A watch takes the first match and fails when it has no stream framing (YAML), as NegotiateOutputMediaTypeStream does.
      if (options.stream && !s.encodeWatchEvent) throw newNotAcceptable(supportedMediaTypes(options));
      return { serializer: s, representation, pretty: m.params['pretty'] === '1' };
    }
  }
  throw newNotAcceptable(supportedMediaTypes(options));
}

/** The decoder for a request body; empty Content-Type means JSON. 415 for a type not served here. */
export function negotiateInput(contentType: string | null, options: { protobuf?: boolean; cbor?: boolean } = {}): Serializer {
  // Plain JSON, what nearly every client sends, is always accepted.
  if (!contentType || contentType === 'application/json' || !contentType.trim()) return jsonSerializer;
  const m = parseMediaType(contentType);
  const s = m ? serializers.get(essence(m)) : undefined;
  const accepted = supportedMediaTypes(options).filter((t) => options.protobuf !== false || t !== protobufSerializer.mediaType);
  if (!s || !accepted.includes(s.mediaType)) throw newUnsupportedMediaType(accepted);
  return s;
}

export const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
] as const;
export type PatchType = (typeof patchTypes)[number];

/**
 * The patch types a resource accepts: strategic merge only for built-in kinds,
 * server-side apply in CBOR only with CBORServingAndStorage. No CBOR forms of the
 * other patch types exist.
 */
export function allowedPatchTypes(options: { custom: boolean; cbor: boolean }): PatchType[] {
  return patchTypes.filter(
    (t) => !(options.custom && t === 'application/strategic-merge-patch+json') && !(!options.cbor && t === 'application/apply-patch+cbor'),
  );
}

/** The patch type of a PATCH request; 415 for anything else. */
export function negotiatePatchType(contentType: string | null, allowed: readonly PatchType[] = allowedPatchTypes({ custom: false, cbor: false })): PatchType {
  const m = contentType ? parseMediaType(contentType) : undefined;
  const ess = m ? essence(m) : '';
  const found = allowed.find((t) => t === ess);
  if (!found) throw newUnsupportedMediaType([...allowed]);
  return found;
}
