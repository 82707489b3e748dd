/**
 * withTraceHeader: a request that asks with `X-Kubesim-Trace: 1` gets the
 * decisions recorded for it (authentication, impersonation, authorization,
 * admission...) back in the `X-Kubesim-Trace` response header, as
 * URI-encoded JSON, so a client such as the workbench can explain the
 * request. Other requests are answered untouched, and record nothing: their
 * stages skip building entries nobody reads.
 */
import { traceFrom, withTracing } from '../request/context';

export const traceHeader = 'X-Kubesim-Trace';
const traceHeaderKey = traceHeader.toLowerCase();

export function withTraceHeader(handler: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  const traced = async (request: Request) => {
    withTracing(request);
    const response = await handler(request);
    const headers = new Headers(response.headers);
    headers.set(traceHeader, encodeURIComponent(JSON.stringify(traceFrom(request))));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  // Looked up by its lower-case name: every request asks, and a name to lower-case first costs a string each time.
  return (request) => (request.headers.get(traceHeaderKey) === '1' ? traced(request) : handler(request));
}
