/** withRequestInfo (k8s.io/apiserver/pkg/endpoints/filters/requestinfo.go): resolves the request's attributes once, for every later filter. */
import { requestUrl, withRequestInfo as setRequestInfo } from '../request/context';
import { newRequestInfo } from '../requestInfo';
import type { Handler } from '../chain';

export function withRequestInfo(handler: Handler): Handler {
  return (request) => {
    setRequestInfo(request, newRequestInfo(request.method, requestUrl(request)));
    return handler(request);
  };
}
