/**
 * Content negotiation for the discovery documents, kube's
 * NegotiateOutputMediaType with the discovery endpoints' restrictions:
 * the same Accept parsing, serializers and 406 as every endpoint, but
 * - no Table or partial-metadata transforms (DefaultEndpointRestrictions);
 * - /api and /apis also accept `as=APIGroupDiscoveryList` of
 *   apidiscovery.k8s.io v2 or v2beta1 (aggregated.DiscoveryEndpointRestrictions),
 *   in JSON, YAML or protobuf;
 * - CBOR only where the group version's codecs carry it (/api/v1 and
 *   /apis/{group}/{version} under CBORServingAndStorage); the root and group
 *   documents are written by the server-wide codecs, which never do.
 */
import { newNotAcceptable } from '../errors';
import type { AggregatedDiscoveryVersion } from '../discovery/aggregated';
import { parseAccept, type MediaRange } from './mediaType';
import { wantsPretty } from './negotiation';
import { cborSerializer } from './serializers/cborSerializer';
import { jsonSerializer } from './serializers/json';
import { protobufSerializer } from './serializers/protobufSerializer';
import type { Serializer } from './serializers/types';
import { yamlSerializer } from './serializers/yaml';

export interface DiscoveryOutputChoice {
  serializer: Serializer;
  /** Set when the client asked for (and gets) the aggregated APIGroupDiscoveryList. */
  aggregated?: AggregatedDiscoveryVersion;
  pretty: boolean;
}

export interface DiscoveryNegotiateOptions {
  /** /api and /apis: the aggregated form is on offer. */
  aggregated: boolean;
  /** The group version documents under CBORServingAndStorage. */
  cbor: boolean;
  url?: URL;
  userAgent?: string | null;
}

/** The conversion a clause asks for: absent, the aggregated list, or something discovery never serves. */
function conversion(m: MediaRange, s: Serializer, options: DiscoveryNegotiateOptions): AggregatedDiscoveryVersion | 'none' | undefined {
  const { as, g, v } = m.params;
  if (as === undefined && g === undefined && v === undefined) return 'none';
  if (!options.aggregated || s === cborSerializer) return undefined;
  if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) return v;
  return undefined;
}

/** The encoding and shape for a discovery document; 406 (NotAcceptable) when the Accept list has none. */
export function negotiateDiscoveryOutput(accept: string | null, options: DiscoveryNegotiateOptions): DiscoveryOutputChoice {
  const offered = [jsonSerializer, yamlSerializer, protobufSerializer];
  if (options.cbor) offered.push(cborSerializer);
  const pretty = wantsPretty(options.url, options.userAgent);
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { serializer: jsonSerializer, pretty };
  for (const m of ranges) {
    for (const s of offered) {
      const [type, subtype] = s.mediaType.split('/');
      const matches = m.type === '*' ? m.subtype === '*' : m.type === type && (m.subtype === '*' || m.subtype === subtype);
      if (!matches) continue;
      // `stream=watch` is allowed where the encoding has a stream form; the document is still written whole.
      const stream = m.params['stream'];
      if (stream !== undefined && stream !== '' && (stream !== 'watch' || !s.encodeWatchEvent)) continue;
      const conv = conversion(m, s, options);
      if (conv === undefined) continue;
      const choice: DiscoveryOutputChoice = { serializer: s, pretty: pretty || m.params['pretty'] === '1' };
      if (conv !== 'none') choice.aggregated = conv;
      return choice;
    }
  }
  throw newNotAcceptable(offered.map((s) => s.mediaType));
}

/** Content-Type of an aggregated document: the encoding plus the conversion it honoured (generateMediaTypeWithGVK). */
export function aggregatedContentType(serializer: Serializer, version: AggregatedDiscoveryVersion): string {
  return `${serializer.mediaType};g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

