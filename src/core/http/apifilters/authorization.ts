/**
 * withAuthorization (k8s.io/apiserver/pkg/endpoints/filters/authorization.go):
 * after authentication (and impersonation), the request's attributes go to
 * the authorizer; Allow passes, an evaluation error without Allow is 500,
 * anything else is 403 with kube-apiserver's message and the reason appended.
 * Every decision and why it was made goes into the request trace.
 */
import { attributesFor, newAuthorizationForbidden } from '../../auth/authorizer/attributes';
import type { Attributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/types';
import { anonymousUserInfo } from '../../auth/user';
import { newInternalError } from '../../errors';
import type { Handler } from '../chain';
import { newRequestInfo } from '../requestInfo';
import { requestInfoFrom, requestUrl, traceSink, userFrom } from '../request/context';
import { writeError } from '../responseWriter';

export function withAuthorization(handler: Handler, authorizer: Authorizer): Handler {
  const decide = (request: Request, attrs: Attributes, result: AuthorizationResult): Promise<Response> | Response => {
    traceSink(request)?.({
      stage: 'authorization',
      message: `${result.decision}${result.reason ? `: ${result.reason}` : ''}`,
      details: { decision: result.decision, reason: result.reason, ...(result.error ? { error: result.error } : {}), ...result.explanation },
    });
    if (result.decision === 'Allow') return handler(request);
    if (result.error) return writeError(newInternalError(new Error(result.error)), request);
    return writeError(newAuthorizationForbidden(attrs, result.reason), request);
  };
  return (request) => {
    const url = requestUrl(request);
    const info = requestInfoFrom(request) ?? newRequestInfo(request.method, url);
    const user = userFrom(request) ?? anonymousUserInfo;
    const attrs = attributesFor(user, info, url);
    // An in-memory authorizer answers at once: the request goes on in the same turn.
    const result = authorizer.authorize(attrs);
    if (result instanceof Promise) return result.then((r) => decide(request, attrs, r));
    return Promise.resolve(decide(request, attrs, result));
  };
}
