/** Service account tokens through handle(): TokenRequest, the JWT authenticator, revocation, TokenReview audiences, issuer discovery. */
import { base64url, compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const issuer = 'https://kubernetes.default.svc.cluster.local';

async function tokenFor(sa: string, spec: Record<string, unknown> = {}, ns = 'ns1') {
  return t.json('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
}
const me = (token: string) => t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}` } });
const review = (token: string, audiences?: string[]) =>
  t.json('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } } });

beforeEach(async () => {
  t = await newTestServer();
  await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  await t.json('POST', '/api/v1/namespaces/ns1/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } } });
});

describe('TokenRequest', () => {
  it('[AC-AUTHN-035] [AC-AUTHN-044] a signed JWT with iss, sub, aud, exp and the kubernetes.io claim; one hour by default', async () => {
    const sa = (await t.json('GET', '/api/v1/namespaces/ns1/serviceaccounts/sa1')).body;
    const r = await tokenFor('sa1');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'sa1', namespace: 'ns1', creationTimestamp: null },
      spec: { audiences: [issuer], expirationSeconds: 3600, boundObjectRef: null },
      status: { expirationTimestamp: '2026-01-01T01:00:00Z' },
    });
    const token: string = r.body.status.token;
    expect(token.split('.')).toHaveLength(3);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: issuer, sub: 'system:serviceaccount:ns1:sa1', aud: [issuer], iat: 1767225600, nbf: 1767225600, exp: 1767229200,
      'kubernetes.io': { namespace: 'ns1', serviceaccount: { name: 'sa1', uid: sa.metadata.uid } },
    });
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
  });

  it('[AC-AUTHN-040] [AC-AUTHN-041] [AC-AUTHN-009] [AC-AUTHN-019] the token authenticates as the service account with both groups', async () => {
    const sa = (await t.json('GET', '/api/v1/namespaces/ns1/serviceaccounts/sa1')).body;
    const token = (await tokenFor('sa1')).body.status.token;
    const r = await me(token);
    expect(r.body.status.userInfo).toEqual({
      username: 'system:serviceaccount:ns1:sa1', uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${decodeJwt(token).jti}`] },
    });
  });

  it('expirationSeconds below 10 minutes is 422; a missing account is 404; bound objects must exist and run as the account', async () => {
    const short = await tokenFor('sa1', { expirationSeconds: 599 });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe('TokenRequest.authentication.k8s.io "sa1" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    expect((await tokenFor('nope')).body.message).toBe('serviceaccounts "nope" not found');
    const noPod = await tokenFor('sa1', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1' } });
    expect(noPod.status).toBe(404);
    expect(noPod.body.message).toBe('pods "p1" not found');
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x' }] } } });
    const other = await tokenFor('sa1', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1' } });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('cannot bind token for serviceaccount "sa1" to pod running with different serviceaccount name.');
    const cm = await tokenFor('sa1', { boundObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' } });
    expect(cm.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
  });
});

describe('service account token authentication', () => {
  it('[AC-AUTHN-048] an expired token is 401 (after go-jose\'s one minute leeway)', async () => {
    const token = (await tokenFor('sa1', { expirationSeconds: 600 })).body.status.token;
    t.clock.advance(660_000);
    expect((await me(token)).status).toBe(201);
    t.clock.advance(1_000);
    expect((await me(token)).status).toBe(401);
    expect((await review(token)).body.status).toEqual({ user: {}, error: 'service account token has expired' });
  });

  it('[AC-AUTHN-039] deleting the account, or the Pod a token is bound to, revokes the token', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { serviceAccountName: 'sa1', containers: [{ name: 'c', image: 'x' }] } } });
    const bound = (await tokenFor('sa1', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1' } })).body.status.token;
    expect((await me(bound)).body.status.userInfo.extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['p1'] });
    await t.json('DELETE', '/api/v1/namespaces/ns1/pods/p1?gracePeriodSeconds=0');
    expect((await me(bound)).status).toBe(401);
    expect((await review(bound)).body.status.error).toBe('service account token has been invalidated');
    const plain = (await tokenFor('sa1')).body.status.token;
    await t.json('DELETE', '/api/v1/namespaces/ns1/serviceaccounts/sa1');
    expect((await me(plain)).status).toBe(401);
    // Re-created under the same name: a new uid, the old token stays revoked.
    await t.json('POST', '/api/v1/namespaces/ns1/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } } });
    expect((await review(plain)).body.status.error).toMatch(/^service account UID \(.+\) does not match claim \(.+\)$/);
  });

  it('[AC-REV-003] [AC-REV-004] [AC-REV-005] [AC-REV-007] TokenReview returns the requested audiences the token holds', async () => {
    const token = (await tokenFor('sa1', { audiences: ['a'] })).body.status.token;
    const ab = await review(token, ['a', 'b']);
    expect(ab.body.status).toMatchObject({ authenticated: true, audiences: ['a'], user: { username: 'system:serviceaccount:ns1:sa1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'] } });
    const apiOnly = await review(token);
    expect(apiOnly.body.status).toEqual({ user: {}, error: `token audiences ["a"] is invalid for the target audiences ["${issuer}"]` });
    expect((await me(token)).status).toBe(401);
  });

  it('alg none, an HS256 token keyed with the public key, a foreign key and a foreign issuer are all 401', async () => {
    const good = (await tokenFor('sa1')).body.status.token;
    const claims = decodeJwt(good);
    const none = new UnsecuredJWT(claims).encode();
    expect((await me(none)).status).toBe(401);
    const jwks = (await t.json('GET', '/openid/v1/jwks')).body;
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: jwks.keys[0].kid }).sign(new TextEncoder().encode(JSON.stringify(jwks.keys[0])));
    expect((await me(confused)).status).toBe(401);
    const { privateKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    expect((await me(foreign)).status).toBe(401);
    expect((await review(foreign)).body.status.error).toBe('go-jose/go-jose: error in cryptographic primitive');
    const otherIssuer = await new SignJWT({ ...claims, iss: 'https://elsewhere' }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    expect((await review(otherIssuer)).body.status).toEqual({ user: {} });
    // A tampered payload fails the signature.
    const [h, , s] = good.split('.');
    const tampered = `${h}.${base64url.encode(JSON.stringify({ ...claims, sub: 'system:serviceaccount:ns1:admin' }))}.${s}`;
    expect((await me(tampered)).status).toBe(401);
  });
});

describe('service account issuer discovery', () => {
  it('serves the OpenID configuration and a JWKS that verifies issued tokens', async () => {
    const conf = await t.request('GET', '/.well-known/openid-configuration');
    expect(conf.headers.get('content-type')).toBe('application/json');
    expect(await conf.json()).toEqual({
      issuer, jwks_uri: `${issuer}/openid/v1/jwks`, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwksRes = await t.request('GET', '/openid/v1/jwks');
    expect(jwksRes.headers.get('content-type')).toBe('application/jwk-set+json');
    const jwks = await jwksRes.json();
    expect(jwks.keys[0]).toMatchObject({ use: 'sig', kty: 'RSA', alg: 'RS256', e: 'AQAB' });
    const token = (await tokenFor('sa1')).body.status.token;
    await expect(compactVerify(token, createLocalJWKSet(jwks))).resolves.toBeTruthy();
  });
});
