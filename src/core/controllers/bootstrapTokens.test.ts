/** Bootstrap tokens through handle(): authentication, the tokencleaner and the bootstrapsigner. */
import { compactVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const token = 'abcdef.0123456789abcdef';

async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}

function bootstrapSecret(stringData: Record<string, string>, overrides: { name?: string; type?: string } = {}) {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: overrides.name ?? 'bootstrap-token-abcdef' }, type: overrides.type ?? 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...stringData },
  };
}

async function server(controllers = false): Promise<TestServer> {
  return newTestServer({ authentication: { bootstrapTokens: true, controllers: { bootstrapSigner: controllers, tokenCleaner: controllers } } });
}
const me = (t: TestServer, bearer = token) => t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${bearer}` } });
const put = (t: TestServer, body: unknown, ns = 'kube-system') => t.json('POST', `/api/v1/namespaces/${ns}/secrets`, { body });

describe('bootstrap token authentication', () => {
  it('[AC-BOOT-009] [AC-BOOT-011] [AC-BOOT-004] [AC-BOOT-012] system:bootstrap:<id> in system:bootstrappers plus auth-extra-groups', async () => {
    const t = await server();
    await put(t, bootstrapSecret({ 'auth-extra-groups': 'system:bootstrappers:worker, system:bootstrappers:kubeadm:default-node-token' }));
    expect((await me(t)).body.status.userInfo).toEqual({
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
    });
    expect((await me(t, 'abcdef0123456789abcdef')).status).toBe(401);
    expect((await me(t, 'abcdef.0123456789abcdex')).status).toBe(401);
  });

  it('[AC-BOOT-001] [AC-BOOT-002] [AC-BOOT-003] [AC-BOOT-005] [AC-BOOT-006] [AC-BOOT-007] [AC-BOOT-009] [AC-BOOT-011] [AC-LIM-009] each check failing is 401', async () => {
    const cases: [string, unknown, string?][] = [
      ['other namespace', bootstrapSecret({}), 'default'],
      ['other name', bootstrapSecret({}, { name: 'token-abcdef' })],
      ['Opaque', bootstrapSecret({}, { type: 'Opaque' })],
      ['id mismatch', bootstrapSecret({ 'token-id': 'abcdeg' })],
      ['short secret', bootstrapSecret({ 'token-secret': '0123456789abcde' })],
      ['expired', bootstrapSecret({ expiration: '2025-12-31T23:59:59Z' })],
      ['no auth usage', bootstrapSecret({ 'usage-bootstrap-authentication': 'false' })],
      ['bad extra group', bootstrapSecret({ 'auth-extra-groups': 'system:masters' })],
    ];
    for (const [what, secret, ns] of cases) {
      const t = await server();
      await put(t, secret, ns);
      expect([what, (await me(t)).status]).toEqual([what, 401]);
    }
    const t = await server();
    await put(t, bootstrapSecret({}));
    expect((await me(t, 'abcde.0123456789abcdef')).status).toBe(401);
  });

  it('off without --enable-bootstrap-token-auth: the token is not recognised', async () => {
    const t = await newTestServer();
    await put(t, bootstrapSecret({}));
    expect((await me(t)).status).toBe(401);
  });
});

describe('tokencleaner', () => {
  it('deletes a bootstrap token Secret when its expiration passes', async () => {
    const t = await server(true);
    await put(t, bootstrapSecret({ expiration: '2026-01-01T00:10:00Z' }));
    await put(t, bootstrapSecret({}, { name: 'bootstrap-token-keep00' }));
    expect((await me(t)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 20));
    t.clock.advance(600_001);
    await until(async () => (await t.json('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef')).status === 404);
    expect((await t.json('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-keep00')).status).toBe(200);
  });
});

describe('bootstrapsigner', () => {
  const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    certificate-authority-data: Q0E=\n    server: https://127.0.0.1:6443\n';
  const clusterInfo = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } };
  const getCm = async (t: TestServer) => (await t.json('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info')).body;

  it('[AC-BOOT-010] [AC-BOOT-014] [AC-BOOT-015] [AC-BOOT-016] [AC-BOOT-017] [AC-BOOT-021] [AC-BOOT-022] signs cluster-info with each signing token: a detached HS256 JWS', async () => {
    const t = await server(true);
    await t.json('POST', '/api/v1/namespaces/kube-public/configmaps', { body: clusterInfo });
    await put(t, bootstrapSecret({ 'usage-bootstrap-signing': 'true' }));
    const cm = await until(async () => {
      const c = await getCm(t);
      return c.data['jws-kubeconfig-abcdef'] && c;
    });
    const sig: string = cm.data['jws-kubeconfig-abcdef'];
    const [header, empty, signature] = sig.split('.');
    expect(empty).toBe('');
    expect(JSON.parse(atob(header!))).toEqual({ alg: 'HS256', kid: 'abcdef' });
    const payload = btoa(kubeconfig).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    const verified = await compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode('0123456789abcdef'), { algorithms: ['HS256'] });
    expect(new TextDecoder().decode(verified.payload)).toBe(kubeconfig);
    // Readable without credentials.
    expect((await t.json('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info')).status).toBe(200);
  });

  it('[AC-BOOT-008] [AC-BOOT-021] no signature for expired or non-signing tokens; a removed token\'s signature goes; nothing without the controller', async () => {
    const off = await server(false);
    await off.json('POST', '/api/v1/namespaces/kube-public/configmaps', { body: clusterInfo });
    await put(off, bootstrapSecret({ 'usage-bootstrap-signing': 'true' }));
    await new Promise((r) => setTimeout(r, 50));
    expect(Object.keys((await getCm(off)).data)).toEqual(['kubeconfig']);

    const t = await server(true);
    await t.json('POST', '/api/v1/namespaces/kube-public/configmaps', { body: clusterInfo });
    await put(t, bootstrapSecret({ 'usage-bootstrap-signing': 'true', expiration: '2025-01-01T00:00:00Z' }, { name: 'bootstrap-token-old000' }));
    await put(t, bootstrapSecret({ 'token-id': 'nosign' }, { name: 'bootstrap-token-nosign' }));
    await put(t, bootstrapSecret({ 'usage-bootstrap-signing': 'true' }));
    await until(async () => (await getCm(t)).data['jws-kubeconfig-abcdef']);
    expect(Object.keys((await getCm(t)).data).sort()).toEqual(['jws-kubeconfig-abcdef', 'kubeconfig']);
    await t.json('DELETE', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef');
    await until(async () => !(await getCm(t)).data['jws-kubeconfig-abcdef']);
  });
});
