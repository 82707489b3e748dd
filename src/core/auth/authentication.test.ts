/** Authentication through handle(): the static token file, anonymous requests, TokenReview and SelfSubjectReview. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../testing/client';
import { traceFrom } from '../http/request/context';
import { parseTokenFile, TokenFileError } from './authenticator/tokenfile';

const csv = 't1,alice,u1,"g1,g2"\n t2,bob,u2\n\nt3,carol,u3,ops\n';
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('static token file', () => {
  it('[AC-AUTHN-030] [AC-AUTHN-031] [AC-AUTHN-004] [AC-AUTHN-003] [AC-AUTHN-005] [AC-REV-014] [AC-REV-015] [AC-AUTHN-009] [AC-AUTHN-033] a CSV row authenticates as its user, uid and quoted groups', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: bearer('t1') });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'alice', uid: 'u1', groups: ['g1', 'g2', 'system:authenticated'] } },
    });
    const bob = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: bearer('t2') });
    expect(bob.body.status.userInfo).toEqual({ username: 'bob', uid: 'u2', groups: ['system:authenticated'] });
    expect((await t.json('GET', '/api', { headers: bearer('t3') })).status).toBe(200);
  });

  it('[AC-AUTHN-117] [AC-ERR-001] [API-ERR-020] an unknown bearer token is 401 even with anonymous access on', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const r = await t.json('GET', '/api/v1/namespaces', { headers: bearer('nope') });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('[AC-AUTHN-115] [AC-AUTHN-116] [AC-AUTHN-118] [AC-AUTHN-001] no credential, or another scheme, is anonymous', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami });
    expect(r.body.status.userInfo).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    const basic = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: 'Basic YTpi' } });
    expect(basic.body.status.userInfo.username).toBe('system:anonymous');
    const empty = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: 'Bearer ' } });
    expect(empty.body.status.userInfo.username).toBe('system:anonymous');
    expect((await t.json('GET', '/version')).status).toBe(200);
  });

  it('[AC-AUTHN-121] [AC-AUTHN-001] --anonymous-auth=false: no credential is 401, a valid token still works', async () => {
    const t = await newTestServer({ anonymousAuth: false, authentication: { tokenFile: parseTokenFile(csv) } });
    expect((await t.json('GET', '/version')).status).toBe(401);
    expect((await t.json('GET', '/version', { headers: bearer('t2') })).status).toBe(200);
  });

  it('[AC-AUTHN-020] users are not API objects: no users resource in discovery, and no path for one', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const core = await t.json('GET', '/api/v1', { headers: bearer('t1') });
    expect(core.status).toBe(200);
    const names = (core.body.resources as { name: string }[]).map((r) => r.name);
    expect(names).toContain('serviceaccounts');
    expect(names.filter((n) => /^(users|groups)(\/|$)/.test(n))).toEqual([]);
    const groups = await t.json('GET', '/apis', { headers: bearer('t1') });
    for (const g of groups.body.groups as { preferredVersion: { groupVersion: string } }[]) {
      const list = await t.json('GET', `/apis/${g.preferredVersion.groupVersion}`, { headers: bearer('t1') });
      expect((list.body.resources as { name: string }[]).map((r) => r.name)).not.toContain('users');
    }
    const users = await t.json('GET', '/api/v1/users', { headers: bearer('t1') });
    expect(users.status).toBe(404);
    expect(users.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
    expect((await t.json('GET', '/api/v1/users/alice', { headers: bearer('t1') })).status).toBe(404);
  });

  it('rows need three columns; later duplicates win; empty tokens are skipped', () => {
    expect(() => parseTokenFile('t1,alice\n', '/etc/tokens.csv')).toThrow(new TokenFileError("token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2"));
    expect(parseTokenFile('t1,a,1\nt1,b,2\n,c,3\n')).toEqual([{ token: 't1', user: { username: 'b', uid: '2', groups: [] } }]);
  });
});

describe('TokenReview', () => {
  const review = (token: string, audiences?: string[]) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });

  it('[AC-REV-001] [AC-REV-003] [AC-REV-007] [AC-REV-008] a valid token: authenticated, its user, the API server audience', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: review('t1') });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null },
      spec: { token: 't1' },
      status: { authenticated: true, user: { username: 'alice', uid: 'u1', groups: ['g1', 'g2'] }, audiences: ['https://kubernetes.default.svc.cluster.local'] },
    });
  });

  it('[AC-REV-006] [AC-REV-005] a garbage token, or a static token for another audience, is not authenticated', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile(csv) } });
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: review('garbage') });
    expect(r.body.status).toEqual({ user: {} });
    const other = await t.json('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: review('t1', ['other']) });
    expect(other.body.status).toEqual({ user: {} });
  });

  it('an empty token is 400', async () => {
    const t = await newTestServer();
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: review('') });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('token is required for TokenReview in authentication');
  });
});

describe('credentials stay out of answers and traces', () => {
  it('neither a valid nor an invalid token appears in the response or the request trace', async () => {
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile('s3cr3t-valid,alice,1\n') } });
    for (const token of ['s3cr3t-valid', 's3cr3t-invalid']) {
      const request = new Request('http://127.0.0.1/api/v1/namespaces/nope', { headers: { authorization: `Bearer ${token}`, 'X-Kubesim-Trace': '1' } });
      const res = await t.server.handle(request);
      const text = await res.text() + JSON.stringify(traceFrom(request));
      expect(traceFrom(request).length).toBeGreaterThan(0);
      expect(text).not.toContain('s3cr3t');
    }
  });
});

