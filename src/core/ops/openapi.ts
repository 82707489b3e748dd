/** /openapi/v3 and its per-group-version documents (kubectl explain, create/apply validation). */
import { openApiV3Document, openApiV3Root } from '../openapi';
import type { ResourceRegistry } from '../registry/registry';
import { writeBytes, writeText } from '../http/responseWriter';

const encoder = new TextEncoder();

export function serveOpenApi(registry: ResourceRegistry, url: URL): Response | undefined {
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
  if (path === '/openapi/v2') return writeText(404, '404 page not found\n');
  return undefined;
}
