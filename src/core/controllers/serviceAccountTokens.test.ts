/** The service account and token controllers, and Secret stringData, through handle(). */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

/** Polls until check returns a value (controllers run on storage watches, asynchronously). */
async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}

const getStatus = async (t: TestServer, path: string) => (await t.json('GET', path)).status;

async function tokenSecret(t: TestServer, name = 's1', sa = 'sa1') {
  return t.json('POST', '/api/v1/namespaces/ns1/secrets', {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, annotations: { 'kubernetes.io/service-account.name': sa } }, type: 'kubernetes.io/service-account-token' },
  });
}

async function setup(options: Parameters<typeof newTestServer>[0] = {}) {
  const t = await newTestServer(options);
  await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  await t.json('POST', '/api/v1/namespaces/ns1/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } } });
  return t;
}

describe('service account controller', () => {
  it('every namespace gets a default ServiceAccount, re-created when deleted', async () => {
    const t = await setup();
    for (const ns of ['default', 'kube-system', 'kube-public', 'ns1']) await until(async () => (await getStatus(t, `/api/v1/namespaces/${ns}/serviceaccounts/default`)) === 200);
    const first = (await t.json('GET', '/api/v1/namespaces/ns1/serviceaccounts/default')).body.metadata.uid;
    await t.json('DELETE', '/api/v1/namespaces/ns1/serviceaccounts/default');
    const again = await until(async () => {
      const r = await t.json('GET', '/api/v1/namespaces/ns1/serviceaccounts/default');
      return r.status === 200 && r.body.metadata.uid;
    });
    expect(again).not.toBe(first);
  });
});

describe('Secret stringData', () => {
  it('is folded into data as base64 of its UTF-8 bytes and not stored', async () => {
    const t = await setup();
    const r = await t.json('POST', '/api/v1/namespaces/ns1/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { a: 'b2xk', k: 'b2xk' }, stringData: { k: 'héllo' } } });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ a: 'b2xk', k: 'aMOpbGxv' });
    expect(r.body.stringData).toBeUndefined();
    const u = await t.json('PATCH', '/api/v1/namespaces/ns1/secrets/x', { body: { stringData: { n: 'v' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(u.body.data).toEqual({ a: 'b2xk', k: 'aMOpbGxv', n: 'dg==' });
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets/x')).body.stringData).toBeUndefined();
  });
});

describe('legacy service account token Secrets', () => {
  it('[AC-AUTHN-039] [AC-AUTHN-045] the token controller fills the Secret; its token authenticates until the Secret is deleted', async () => {
    const t = await setup();
    const sa = (await t.json('GET', '/api/v1/namespaces/ns1/serviceaccounts/sa1')).body;
    await tokenSecret(t);
    const secret = await until(async () => {
      const s = (await t.json('GET', '/api/v1/namespaces/ns1/secrets/s1')).body;
      return s.data?.token && s;
    });
    expect(secret.metadata.annotations['kubernetes.io/service-account.uid']).toBe(sa.metadata.uid);
    expect(atob(secret.data.namespace)).toBe('ns1');
    const token = atob(secret.data.token);
    expect(decodeJwt(token)).toEqual({
      iss: 'kubernetes/serviceaccount', sub: 'system:serviceaccount:ns1:sa1',
      'kubernetes.io/serviceaccount/namespace': 'ns1', 'kubernetes.io/serviceaccount/secret.name': 's1',
      'kubernetes.io/serviceaccount/service-account.name': 'sa1', 'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
    });
    const me = () => t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } });
    expect((await me()).body.status.userInfo).toEqual({ username: 'system:serviceaccount:ns1:sa1', uid: sa.metadata.uid, groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] });
    await t.json('DELETE', '/api/v1/namespaces/ns1/secrets/s1');
    expect((await me()).status).toBe(401);
  });

  it('with --service-account-lookup=false a deleted Secret does not revoke its token', async () => {
    const t = await setup({ authentication: { serviceAccounts: { lookup: false } } });
    await tokenSecret(t);
    const token = atob(await until(async () => (await t.json('GET', '/api/v1/namespaces/ns1/secrets/s1')).body.data?.token));
    await t.json('DELETE', '/api/v1/namespaces/ns1/secrets/s1');
    expect((await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } })).status).toBe(201);
  });

  it('a Secret naming a missing account is deleted, and deleting an account deletes its token Secrets', async () => {
    const t = await setup();
    await tokenSecret(t, 'orphan', 'nobody');
    await until(async () => (await getStatus(t, '/api/v1/namespaces/ns1/secrets/orphan')) === 404);
    await tokenSecret(t, 's2');
    await until(async () => (await t.json('GET', '/api/v1/namespaces/ns1/secrets/s2')).body.data?.token);
    await t.json('DELETE', '/api/v1/namespaces/ns1/serviceaccounts/sa1');
    await until(async () => (await getStatus(t, '/api/v1/namespaces/ns1/secrets/s2')) === 404);
  });
});
