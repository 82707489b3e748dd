/** withRequestInfo (k8s.io/apiserver/pkg/endpoints/filters/requestinfo.go): resolves the request's attributes once, for every later filter. */
import { requestUrl, withRequestInfo as setRequestInfo } from '../request/context';
import { newRequestInfo } from '../requestInfo';
import type { Handler } from '../chain';
import { writeError } from '../responseWriter';

export function withRequestInfo(handler: Handler): Handler {
  // Not async: the handler's promise is the answer, with no promise around it.
  return (request) => {
    try {
      setRequestInfo(request, newRequestInfo(request.method, requestUrl(request)));
    } catch (err) {
      // A path the resolver cannot read (a malformed escape) is the client's error.
      return Promise.resolve(writeError(err, request));
    }
    return handler(request);
  };
}
