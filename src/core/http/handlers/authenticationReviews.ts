/**
 * The authentication.k8s.io review resources (pkg/registry/authentication):
 * TokenReview asks the token methods about spec.token for spec.audiences
 * (the API server's own when absent); SelfSubjectReview answers with the
 * caller as the filters left it, impersonation applied.
 */
import { isObject, type KubeObject } from '../../api/types';
import { intersectAudiences } from '../../auth/authenticator/audiences';
import type { TokenAuthenticator } from '../../auth/authenticator/types';
import type { UserInfo } from '../../auth/user';
import { newBadRequest, newInternalError } from '../../errors';
import { userFrom } from '../request/context';
import { writeObject } from '../responseWriter';
import { readReview } from './reviews';
import type { RequestScope } from './scope';

export interface TokenReviewer {
  tokenAuthenticator: TokenAuthenticator;
  apiAudiences: readonly string[];
}

/** authentication/v1 UserInfo as Go serializes it: uid and extra omitted when empty. */
export function userInfoObject(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out['uid'] = user.uid;
  if (user.groups.length) out['groups'] = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out['extra'] = structuredClone(user.extra);
  return out;
}

async function tokenReviewStatus(obj: KubeObject, reviewer: TokenReviewer): Promise<Record<string, unknown>> {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const token = typeof spec['token'] === 'string' ? spec['token'] : '';
  if (!token) throw newBadRequest('token is required for TokenReview in authentication');
  const requested = Array.isArray(spec['audiences']) && spec['audiences'].length ? (spec['audiences'] as string[]) : [...reviewer.apiAudiences];
  const outcome = await reviewer.tokenAuthenticator.authenticateToken(token, requested);
  if (outcome.kind !== 'authenticated') {
    const status: Record<string, unknown> = { user: {} };
    if (outcome.kind === 'rejected') status['error'] = outcome.reason;
    return status;
  }
  const audiences = outcome.response.audiences;
  // An audience-aware method answered with audiences outside the request: a method bug, never a success.
  if (audiences && !intersectAudiences(audiences, requested).length) throw newInternalError(new Error('error validating audiences'));
  const status: Record<string, unknown> = { authenticated: true, user: userInfoObject(outcome.response.user) };
  if (audiences?.length) status['audiences'] = audiences;
  return status;
}

export async function createAuthenticationReview(scope: RequestScope, reviewer: TokenReviewer): Promise<Response> {
  const { request, type } = scope;
  const { choice, obj } = await readReview(scope);
  const metadata = { ...obj.metadata, creationTimestamp: null };
  let out: Record<string, unknown>;
  if (type.resource === 'tokenreviews') {
    out = { ...obj, metadata, spec: isObject(obj['spec']) ? obj['spec'] : {}, status: await tokenReviewStatus(obj, reviewer) };
  } else {
    const user = userFrom(request);
    out = { ...obj, metadata, status: { userInfo: user ? userInfoObject(user) : {} } };
  }
  return writeObject(choice.serializer, 201, out, { pretty: choice.pretty });
}
