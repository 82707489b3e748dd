/**
 * withCompression: gzip for get and list responses of at least 128 KiB when
 * the client sends `Accept-Encoding: gzip` (the APIResponseCompression gate,
 * on by default). Streams without a known length (watch) are never compressed.
 */
export const gzipThresholdBytes = 128 * 1024;

function acceptsGzip(request: Request): boolean {
  const ae = request.headers.get('accept-encoding');
  if (!ae) return false;
  return ae.split(',').some((p) => {
    const [coding, ...params] = p.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** The response gzipped when it is large enough and not encoded already; otherwise as it was. */
function compressed(response: Response): Response {
  if (response.headers.has('content-encoding')) return response;
  const length = Number(response.headers.get('content-length') ?? NaN);
  if (!(length >= gzipThresholdBytes) || !response.body) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-encoding', 'gzip');
  // A handler that varies by encoding whatever it writes (kube-openapi's gzip wrapper) has said so already.
  if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(headers.get('vary') ?? '')) headers.append('vary', 'Accept-Encoding');
  return new Response(response.body.pipeThrough(new CompressionStream('gzip')), { status: response.status, headers });
}

export function withCompression(handler: (request: Request) => Promise<Response>, enabled: boolean): (request: Request) => Promise<Response> {
  if (!enabled) return handler;
  // Only GETs from clients that take gzip look at the response: a host's lightweight Response
  // (the Node host's) builds its Headers, and its body stream, only when asked for them. No async
  // wrapper: the others get the handler's own promise, and those one then() on it.
  return (request) => (request.method === 'GET' && acceptsGzip(request) ? handler(request).then(compressed) : handler(request));
}
