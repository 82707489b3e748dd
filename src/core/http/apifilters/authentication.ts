/**
 * withAuthentication (k8s.io/apiserver/pkg/endpoints/filters/authentication.go):
 * the authenticators are asked in order and the first that recognises the
 * credential decides; a rejected credential is 401 even when anonymous
 * access is on; a request with no credential is anonymous when allowed.
 * Every authenticated user also gets `system:authenticated`.
 */
import type { AuthenticationOutcome, RequestAuthenticator } from '../../auth/authenticator/types';
import { allAuthenticated, anonymousUserInfo, type UserInfo } from '../../auth/user';
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

/**
 * The authenticated users made lately, by the user their method returned: a method that returns the
 * same object for the same credential (a static token) gets the same user back, made once.
 */
const withGroup = new WeakMap<UserInfo, UserInfo>();

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(allAuthenticated)) return user;
  let out = withGroup.get(user);
  if (out) return out;
  // Field by field: a spread of an object with optional fields makes a slow copy.
  out = { username: user.username, groups: [...user.groups, allAuthenticated] };
  if (user.uid !== undefined) out.uid = user.uid;
  if (user.extra !== undefined) out.extra = user.extra;
  Object.freeze(out.groups);
  withGroup.set(user, Object.freeze(out));
  return out;
}

export function withAuthentication(handler: Handler, config: AuthenticationConfig): Handler {
  const authenticated = (request: Request, outcome: Extract<AuthenticationOutcome, { kind: 'authenticated' }>) => {
    const user = withAuthenticatedGroup(outcome.response.user);
    traceSink(request)?.({ stage: 'authentication', message: `authenticated by ${outcome.authenticator} as ${user.username}`, details: { authenticator: outcome.authenticator, user } });
    withUser(request, user);
    return handler(request);
  };
  const unauthenticated = (request: Request, rejections: string[] | undefined) => {
    if (rejections) {
      addTrace(request, { stage: 'authentication', message: `rejected by ${rejections.join('; ')}` });
      return Promise.resolve(writeError(newUnauthorized(), request));
    }
    if (!config.anonymous || (config.anonymousPaths && !config.anonymousPaths.includes(requestUrl(request).pathname))) {
      addTrace(request, { stage: 'authentication', message: 'no credential and anonymous access is off' });
      return Promise.resolve(writeError(newUnauthorized(), request));
    }
    withUser(request, anonymousUserInfo);
    traceSink(request)?.({ stage: 'authentication', message: 'anonymous request (no credential)' });
    return handler(request);
  };
  /**
   * A union, as upstream: a method's rejection counts only when no later
   * method authenticates. Methods that answer at once (no credential of
   * theirs, a static token) are not awaited, so most requests go on in
   * the same turn.
   */
  const authenticate = (request: Request, from: number, rejections: string[] | undefined): Promise<Response> => {
    for (let i = from; i < config.authenticators.length; i++) {
      const out = config.authenticators[i]!.authenticate(request);
      if (out instanceof Promise) {
        return out.then((outcome) => {
          if (outcome.kind === 'authenticated') return authenticated(request, outcome);
          if (outcome.kind === 'rejected') (rejections ??= []).push(`${outcome.authenticator}: ${outcome.reason}`);
          return authenticate(request, i + 1, rejections);
        });
      }
      if (out.kind === 'authenticated') return authenticated(request, out);
      if (out.kind === 'rejected') (rejections ??= []).push(`${out.authenticator}: ${out.reason}`);
    }
    return unauthenticated(request, rejections);
  };
  return (request) => authenticate(request, 0, undefined);
}
