/** withRequestInfo (k8s.io/apiserver/pkg/endpoints/filters/requestinfo.go): resolves the request's attributes once, for every later filter. */
import { hasSharedUrl, requestUrl, withRequestInfo as setRequestInfo } from '../request/context';
import { newRequestInfo, type RequestInfo } from '../requestInfo';
import type { Handler } from '../chain';
import { writeError } from '../responseWriter';

/**
 * The attributes of the URLs seen lately (requestUrl shares one URL object
 * per text), by method then URL: a request with a URL not seen lately (a GET
 * of each of many objects in turn) adds one entry and no table of its own.
 * They depend on nothing else, so a repeated request reuses them; they are
 * frozen, as every request that shares them reads them.
 */
const resolved = new Map<string, Map<URL, RequestInfo>>();
const resolvedLimit = 256;

function resolvedInfo(request: Request, method: string, url: URL): RequestInfo {
  let byUrl = resolved.get(method);
  const known = byUrl?.get(url);
  if (known) return known;
  const info = Object.freeze(newRequestInfo(method, url)) as RequestInfo;
  // A URL no other request holds is never looked up again.
  if (!hasSharedUrl(request)) return info;
  if (!byUrl) {
    // Any method text reaches here; the handful in use stay.
    if (resolved.size >= 16) resolved.clear();
    resolved.set(method, (byUrl = new Map()));
  }
  else if (byUrl.size >= resolvedLimit) byUrl.clear();
  byUrl.set(url, info);
  return info;
}

export function withRequestInfo(handler: Handler): Handler {
  // Not async: the handler's promise is the answer, with no promise around it.
  return (request) => {
    try {
      setRequestInfo(request, resolvedInfo(request, request.method, requestUrl(request)));
    } catch (err) {
      // A path the resolver cannot read (a malformed escape) is the client's error.
      return Promise.resolve(writeError(err, request));
    }
    return handler(request);
  };
}
