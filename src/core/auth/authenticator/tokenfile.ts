/**
 * The static token file (--token-auth-file, k8s.io/apiserver/pkg/authentication/token/tokenfile):
 * CSV rows `token,user,uid[,"group1,group2"]`. Read once at start; a later
 * row with the same token wins, an empty token is skipped.
 */
import type { UserInfo } from '../user';
import { constantTimeEqual } from './constantTime';
import { parseCsv } from './csv';
import type { AuthenticationOutcome, TokenAuthenticator } from './types';

export interface StaticToken {
  token: string;
  user: UserInfo;
}

export class TokenFileError extends Error {}

export function parseTokenFile(text: string, path = 'tokens.csv'): StaticToken[] {
  const byToken = new Map<string, StaticToken>();
  for (const record of parseCsv(text)) {
    if (record.length < 3) throw new TokenFileError(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, username, uid] = record as [string, string, string];
    if (!token) continue;
    const user: UserInfo = { username, uid, groups: record.length >= 4 ? record[3]!.split(',') : [] };
    byToken.set(token, { token, user });
  }
  return [...byToken.values()];
}

export function tokenFileAuthenticator(tokens: readonly StaticToken[]): TokenAuthenticator {
  return {
    name: 'token-file',
    authenticateToken(token): AuthenticationOutcome {
      // Every row is compared, each in constant time: no early exit reveals which rows were close.
      let found: StaticToken | undefined;
      for (const row of tokens) if (constantTimeEqual(row.token, token) && !found) found = row;
      if (!found) return { kind: 'none' };
      // A copy: later stages add groups to the user they are given.
      const { username, uid, groups } = found.user;
      return { kind: 'authenticated', authenticator: 'token-file', response: { user: { username, uid, groups: [...groups] } } };
    },
  };
}
