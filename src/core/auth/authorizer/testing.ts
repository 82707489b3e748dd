/**
 * Test-only authenticators. The header one: `X-Test-User` names the user and `X-Test-Groups`
 * (comma list) its groups. Lets authorization tests act as anyone without
 * token files; never wired into a host.
 */
import type { RequestAuthenticator } from '../authenticator/types';

export const testUserHeader = 'x-test-user';
export const testGroupsHeader = 'x-test-groups';

export const headerAuthenticator: RequestAuthenticator = {
  name: 'test-header',
  authenticate(request) {
    const username = request.headers.get(testUserHeader);
    if (!username) return { kind: 'none' };
    const groups = (request.headers.get(testGroupsHeader) ?? '').split(',').map((g) => g.trim()).filter(Boolean);
    return { kind: 'authenticated', authenticator: 'test-header', response: { user: { username, groups } } };
  },
};

/** Headers acting as a user. */
export function asUser(username: string, ...groups: string[]): Record<string, string> {
  const h: Record<string, string> = { [testUserHeader]: username };
  if (groups.length) h[testGroupsHeader] = groups.join(',');
  return h;
}


/**
 * For in-process tests and scenarios (never a host flag): a bearer token
 * `<user>[,<group>...]` authenticates as that user with those groups.
 */
export const tokenNamesUserAuthenticator: RequestAuthenticator = {
  name: 'insecure-token-users',
  authenticate(request) {
    const auth = request.headers.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) return { kind: 'none' };
    const [username, ...groups] = m[1]!.split(',');
    if (!username) return { kind: 'rejected', authenticator: 'insecure-token-users', reason: 'empty user name' };
    return { kind: 'authenticated', authenticator: 'insecure-token-users', response: { user: { username, groups } } };
  },
};
