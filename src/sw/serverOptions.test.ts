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

describe('simulated nodes in the worker', () => {
  it('simulatedNodes acts as --simulated-nodes', async () => {
    const url = new URL(workerUrlWith('/sw.js', { simulatedNodes: '2' }), 'http://127.0.0.1:5173');
    expect(url.search).toBe('?simulatedNodes=2');
    const options = serverOptionsFrom(settingsFromUrl(url));
    expect(options.simulatedNodes).toBe(2);
    const server = createApiServer({ storage: createMemoryStorage(), ...options });
    await server.ready;
    let names: string[] = [];
    for (let i = 0; i < 500 && names.length < 2; i++) {
      names = (await (await server.handle(new Request('http://127.0.0.1:5173/api/v1/nodes'))).json()).items.map((n: { metadata: { name: string } }) => n.metadata.name);
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(names).toEqual(['node-1', 'node-2']);
    await server.close();
    expect(() => serverOptionsFrom({ simulatedNodes: 'many' })).toThrow('invalid simulatedNodes "many"');
  });
});

describe('deletion settings of the worker', () => {
  it('[API-DEL-022] featureGates, controllers and fakeClock act as --feature-gates, --controllers and --fake-clock', async () => {
    const url = new URL(workerUrlWith('/sw.js', { featureGates: 'AllowUnsafeMalformedObjectDeletion=true', controllers: '*,-namespace-controller', fakeClock: '2026-02-01T00:00:00Z' }), 'http://127.0.0.1:5173');
    const options = serverOptionsFrom(settingsFromUrl(url));
    expect(options.featureGates).toEqual({ AllowUnsafeMalformedObjectDeletion: true });
    expect(options.controllers).toEqual(['*', '-namespace-controller']);
    const server = createApiServer({ storage: createMemoryStorage(), ...options });
    await server.ready;
    const clock = await server.handle(new Request('http://127.0.0.1:5173/debug/kubesim/clock?advance=1h', { method: 'POST' }));
    expect((await clock.json()).now).toBe('2026-02-01T01:00:00Z');
    await server.close();
    expect(() => serverOptionsFrom({ controllers: '*,-kubelet' })).toThrow('"kubelet" is not in the list of known controllers');
    expect(() => serverOptionsFrom({ featureGates: 'Nope=true' })).toThrow('unrecognized feature gate: Nope');
  });
});
