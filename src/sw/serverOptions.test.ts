import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage } from '../core';
import { serverOptionsFrom } from './serverOptions';
import { settingsFromUrl, workerUrlWith } from './settings';

const tokens = 'admin-token,admin,1,system:masters\nalice-token,alice,2,"developers"\n';

describe('worker settings as server options', () => {
  it('AC-AUTHN-001 AC-AUTHZ-001: the token table authenticates and RBAC decides, as --token-auth-file and --authorization-mode do on the Node host', async () => {
    const url = new URL(workerUrlWith('/sw.js', { tokens, authorizationMode: 'RBAC' }), 'http://127.0.0.1:5173');
    const server = createApiServer({ storage: createMemoryStorage(), ...serverOptionsFrom(settingsFromUrl(url)) });
    await server.ready;
    const get = (token: string) => server.handle(new Request('http://127.0.0.1:5173/api/v1/namespaces/default/configmaps', { headers: { Authorization: `Bearer ${token}` } }));
    expect((await get('admin-token')).status).toBe(200);
    const denied = await get('alice-token');
    expect(denied.status).toBe(403);
    expect((await denied.json()).message).toBe('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
    expect((await get('nobody')).status).toBe(401);
    await server.close();
  });

  it('an invalid table or mode list fails with the flag-style message (the worker answers it as a 503)', () => {
    expect(() => serverOptionsFrom({ authorizationMode: 'RBAC,Sometimes' })).toThrow('authorization-mode "Sometimes" is not a valid mode');
    expect(() => serverOptionsFrom({ tokens: 'only-a-token\n' })).toThrow();
    expect(serverOptionsFrom({})).toEqual({});
  });
});
