/**
 * /openapi/v3 and its per-group-version documents (kubectl explain,
 * create/apply validation), and /openapi/v2 (kubectl's legacy client-side
 * validation, for kinds without a PATCH route such as the reviews).
 */
import { openApiV2Spec, openApiV3Document, openApiV3Root } from '../openapi';
import type { ResourceRegistry } from '../registry/registry';
import { parseAccept } from '../http/mediaType';
import { writeBytes, writeText } from '../http/responseWriter';

const encoder = new TextEncoder();

/** kube-openapi's answer is gnostic protobuf under this name, whichever of the two protobuf names was asked for. */
export const openApiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** What /openapi/v2 offers, in kube-openapi's order: the first one a clause matches is served. */
const V2_OFFERS = [
  { subtype: 'json', protobuf: false },
  { subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', protobuf: true },
  { subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', protobuf: true },
];

/** Whether the document is protobuf, JSON, or neither (406): the first Accept clause, by preference, that an offer matches. */
function negotiateOpenApiV2(accept: string | null): 'protobuf' | 'json' | undefined {
  for (const clause of parseAccept(accept?.trim() ? accept : '*/*')) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    const offer = V2_OFFERS.find((o) => clause.subtype === '*' || clause.subtype === o.subtype);
    if (offer) return offer.protobuf ? 'protobuf' : 'json';
  }
  return undefined;
}

/** Go's http.ServeContent preconditions: If-None-Match (weak comparison, `*`), else If-Modified-Since. */
function notModified(request: Request, etag: string, lastModified: Date): boolean {
  const inm = request.headers.get('if-none-match');
  if (inm !== null) {
    return inm.split(',').some((t) => {
      const tag = t.trim();
      return tag === '*' || tag.replace(/^W\//, '') === etag;
    });
  }
  const ims = Date.parse(request.headers.get('if-modified-since') ?? '');
  return Number.isFinite(ims) && lastModified.getTime() <= ims;
}

async function serveOpenApiV2(registry: ResourceRegistry, request: Request): Promise<Response> {
  // kube-openapi's gzip wrapper adds Accept-Encoding to every answer, compressed or not, before the handler adds Accept.
  const vary = { Vary: 'Accept-Encoding, Accept' };
  const format = negotiateOpenApiV2(request.headers.get('accept'));
  if (!format) return new Response(null, { status: 406, headers: { ...vary, 'Cache-Control': 'no-cache, private', 'Content-Length': '0' } });
  const spec = await openApiV2Spec(registry);
  // One ETag for both forms, as kube-openapi: the Vary header tells caches apart.
  const headers = { ...vary, ETag: spec.etag };
  if (notModified(request, spec.etag, spec.lastModified)) {
    return new Response(null, { status: 304, headers: { ...headers, 'Cache-Control': 'no-cache, private' } });
  }
  const body = format === 'protobuf' ? spec.protobuf() : spec.json;
  const contentType = format === 'protobuf' ? openApiV2ProtobufType : 'application/json';
  return writeBytes(200, contentType, body, { headers: { ...headers, 'Last-Modified': spec.lastModified.toUTCString() } });
}

export async function serveOpenApi(registry: ResourceRegistry, request: Request, url: URL): Promise<Response | undefined> {
  // kube registers /openapi/v2 as an exact path: /openapi/v2/ is not it.
  if (url.pathname === '/openapi/v2') return serveOpenApiV2(registry, request);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '/openapi/v3') {
    return writeBytes(200, 'application/json', encoder.encode(JSON.stringify(openApiV3Root(registry))));
  }
  if (path.startsWith('/openapi/v3/')) {
    const doc = openApiV3Document(registry, path.slice('/openapi/v3/'.length));
    if (!doc) return writeText(404, '404 page not found\n');
    // Documents are immutable per hash, so clients may cache them.
    const headers = url.searchParams.has('hash') ? { 'Cache-Control': 'public, immutable' } : undefined;
    return writeBytes(200, 'application/json', encoder.encode(JSON.stringify(doc)), { headers });
  }
  return undefined;
}
