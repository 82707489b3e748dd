/**
 * GET on a discovery document (/api, /apis, /api/v1, /apis/{group},
 * /apis/{group}/{version}): negotiate the encoding and shape, then write it.
 * The aggregated list carries kube's cache headers (ETag of the document,
 * Cache-Control public, Vary Accept) and answers 304 to a matching
 * If-None-Match, as aggregated.ServeHTTPWithETag does.
 */
import { discoveryDocument, type DiscoveryOptions } from '../../discovery';
import type { ResourceRegistry } from '../../registry/registry';
import { errorToStatus } from '../../errors';
import { aggregatedContentType, negotiateDiscoveryOutput, type DiscoveryOutputChoice } from '../negotiationDiscovery';
import { protobufSerializer } from '../serializers/protobufSerializer';
import { writeBytes } from '../responseWriter';
import { digestHex } from '../../util/hex';

export interface DiscoveryServeOptions extends DiscoveryOptions {
  /** CBORServingAndStorage: the group version documents are offered in CBOR. */
  cbor: boolean;
}

/** Hex SHA-512 of the document's JSON, quoted (ETag values are quoted strings). */
async function etagOf(doc: unknown): Promise<string> {
  return `"${(await digestHex('SHA-512', new TextEncoder().encode(JSON.stringify(doc)))).toUpperCase()}"`;
}

/** The response for a discovery path, or undefined when the path names no served document (the caller's 404). */
export async function serveDiscoveryDocument(
  registry: ResourceRegistry,
  request: Request,
  url: URL,
  options: DiscoveryServeOptions,
): Promise<Response | undefined> {
  const doc = discoveryDocument(registry, url.pathname, options);
  if (!doc) return undefined;
  let choice: DiscoveryOutputChoice;
  try {
    choice = negotiateDiscoveryOutput(request.headers.get('accept'), {
      aggregated: doc.aggregated !== undefined,
      cbor: options.cbor && doc.endpoint === 'groupVersion',
      url,
      userAgent: request.headers.get('user-agent'),
    });
  } catch (err) {
    // WriteObjectNegotiated answers a failed negotiation with WriteRawJSON: indented JSON, whatever was asked for.
    const status = errorToStatus(err);
    return writeBytes(status.code, 'application/json', new TextEncoder().encode(JSON.stringify(status, null, 2)));
  }
  const { serializer, pretty } = choice;
  if (choice.aggregated && doc.aggregated) {
    const list = doc.aggregated(choice.aggregated);
    const etag = await etagOf(list);
    const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return writeBytes(200, aggregatedContentType(serializer, choice.aggregated), serializer.encode(list, { pretty }), { headers });
  }
  let body = doc.legacy();
  // APIVersions has no apiVersion in JSON; the protobuf envelope names the unversioned v1 it is registered in.
  if (serializer === protobufSerializer && !('apiVersion' in body)) body = { apiVersion: 'v1', ...body };
  const headers = doc.endpoint === 'root' ? { Vary: 'Accept' } : undefined;
  return writeBytes(200, serializer.mediaType, serializer.encode(body, { pretty }), { headers });
}
