/**
 * withAuthentication (k8s.io/apiserver/pkg/endpoints/filters/authentication.go):
 * the authenticators are asked in order and the first that recognises the
 * credential decides; a rejected credential is 401 even when anonymous
 * access is on; a request with no credential is anonymous when allowed.
 * Every authenticated user also gets `system:authenticated`.
 */
import type { RequestAuthenticator } from '../../auth/authenticator/types';
import { allAuthenticated, allUnauthenticated, anonymousUser, type UserInfo } from '../../auth/user';
import { newUnauthorized } from '../../errors';
import type { Handler } from '../chain';
import { addTrace, requestUrl, traceSink, withUser } from '../request/context';
import { writeError } from '../responseWriter';

export interface AuthenticationConfig {
  authenticators: RequestAuthenticator[];
  /** Whether requests without credentials proceed as system:anonymous. */
  anonymous: boolean;
  /** AuthenticationConfiguration anonymous.conditions: only these paths admit anonymous requests (absent: every path). */
  anonymousPaths?: string[];
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(allAuthenticated) ? user : { ...user, groups: [...user.groups, allAuthenticated] };
}

export function withAuthentication(handler: Handler, config: AuthenticationConfig): Handler {
  return async (request) => {
    // A union, as upstream: a method's rejection counts only when no later method authenticates.
    const rejections: string[] = [];
    for (const authenticator of config.authenticators) {
      const outcome = await authenticator.authenticate(request);
      if (outcome.kind === 'none') continue;
      if (outcome.kind === 'rejected') {
        rejections.push(`${outcome.authenticator}: ${outcome.reason}`);
        continue;
      }
      const user = withAuthenticatedGroup(outcome.response.user);
      traceSink(request)?.({ stage: 'authentication', message: `authenticated by ${outcome.authenticator} as ${user.username}`, details: { authenticator: outcome.authenticator, user } });
      withUser(request, user);
      return handler(request);
    }
    if (rejections.length) {
      addTrace(request, { stage: 'authentication', message: `rejected by ${rejections.join('; ')}` });
      return writeError(newUnauthorized(), request);
    }
    if (!config.anonymous || (config.anonymousPaths && !config.anonymousPaths.includes(requestUrl(request).pathname))) {
      addTrace(request, { stage: 'authentication', message: 'no credential and anonymous access is off' });
      return writeError(newUnauthorized(), request);
    }
    withUser(request, { username: anonymousUser, groups: [allUnauthenticated] });
    addTrace(request, { stage: 'authentication', message: 'anonymous request (no credential)' });
    return handler(request);
  };
}
