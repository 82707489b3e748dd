/** JWT (OIDC) authenticators through handle(): verification, audiences, claim rules, claim mappings and user rules. */
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer } from '../../testing/client';
import type { JwtAuthenticatorConfig } from './jwt';

const issuer = 'https://idp.example.com';
const now = 1767225600; // the test clock's 2026-01-01T00:00:00Z
let privateKey: CryptoKey;
let jwks: JWK[];
let otherKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey as CryptoKey;
  jwks = [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' }];
  otherKey = (await generateKeyPair('RS256')).privateKey as CryptoKey;
});

const sign = (claims: JWTPayload, key = privateKey, alg = 'RS256') => new SignJWT(claims).setProtectedHeader({ alg, kid: 'k1' }).sign(key);
const base = (extra: JWTPayload = {}): JWTPayload => ({ iss: issuer, aud: 'kubesim', exp: now + 600, iat: now, sub: 'u-123', ...extra });

function config(overrides: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig {
  return { issuer: { url: issuer, audiences: ['kubesim'] }, claimMappings: { username: { claim: 'sub', prefix: 'oidc:' } }, ...overrides };
}

async function setup(c: JwtAuthenticatorConfig, extra: Parameters<typeof newTestServer>[0] = {}) {
  const t = await newTestServer({ authentication: { jwt: [{ config: c, jwks: async () => jwks }] }, ...extra });
  const me = async (token: string) => t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, headers: { authorization: `Bearer ${token}` } });
  return { t, me };
}

describe('JWT authenticator', () => {
  it('[AC-AUTHN-100] [AC-AUTHN-065] a minimal token (iss, aud, exp, sub) authenticates with claim + prefix', async () => {
    const { me } = await setup(config());
    const r = await me(await sign({ iss: issuer, aud: 'kubesim', exp: now + 60, sub: 'u-123' }));
    expect(r.body.status.userInfo).toEqual({ username: 'oidc:u-123', groups: ['system:authenticated'] });
  });

  it('[AC-AUTHN-047] [AC-AUTHN-048] [AC-AUTHN-079] [AC-AUTHN-063] unknown key, expired, wrong audience, alg none or HS256: 401', async () => {
    const { me } = await setup(config());
    expect((await me(await sign(base(), otherKey))).status).toBe(401);
    expect((await me(await sign(base({ exp: now - 1 })))).status).toBe(401);
    expect((await me(await sign(base({ aud: ['other'] })))).status).toBe(401);
    const none = `${btoa(JSON.stringify({ alg: 'none' })).replace(/=+$/, '')}.${btoa(JSON.stringify(base())).replace(/=+$/, '')}.`;
    expect((await me(none)).status).toBe(401);
    const hs = await new SignJWT(base()).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode(JSON.stringify(jwks[0])));
    expect((await me(hs)).status).toBe(401);
    // Another issuer's token is not this authenticator's: the bearer token is then unknown (401 too).
    expect((await me(await sign(base({ iss: 'https://elsewhere' })))).status).toBe(401);
  });

  it('[AC-AUTHN-083] [AC-AUTHN-084] [AC-AUTHN-049] [AC-AUTHN-101] [AC-ERR-002] claim validation rules: claim/requiredValue and CEL', async () => {
    const { me } = await setup(config({ claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }, { expression: "!has(claims.tier) || claims.tier != 'banned'", message: 'banned' }] }));
    expect((await me(await sign(base({ hd: 'example.com' })))).status).toBe(201);
    expect((await me(await sign(base({ hd: 'other' })))).status).toBe(401);
    expect((await me(await sign(base()))).status).toBe(401);
    expect((await me(await sign(base({ hd: 'example.com', tier: 'banned' })))).status).toBe(401);
  });

  it('[API-AUTHN-001] [AC-AUTHN-090] [AC-AUTHN-091] [AC-AUTHN-096] claim mappings by CEL expression: username, groups, uid and extra', async () => {
    const { me } = await setup(config({
      claimMappings: {
        username: { expression: "'user:' + claims.sub" },
        groups: { expression: 'claims.roles' },
        uid: { claim: 'sub' },
        extra: [{ key: 'example.com/tid', valueExpression: 'claims.tid' }],
      },
    }));
    const r = await me(await sign(base({ roles: ['a', 'b'], tid: 't1' })));
    expect(r.body.status.userInfo).toEqual({ username: 'user:u-123', uid: 'u-123', groups: ['a', 'b', 'system:authenticated'], extra: { 'example.com/tid': ['t1'] } });
  });

  it('[AC-AUTHN-059] [AC-AUTHN-060] [AC-AUTHN-056] groups by claim with a prefix; an email username needs email_verified when present', async () => {
    const { me } = await setup(config({ claimMappings: { username: { claim: 'email', prefix: '' }, groups: { claim: 'groups', prefix: 'oidc:' } } }));
    const r = await me(await sign(base({ email: 'jane@example.com', email_verified: true, groups: ['dev'] })));
    expect(r.body.status.userInfo).toEqual({ username: 'jane@example.com', groups: ['oidc:dev', 'system:authenticated'] });
    expect((await me(await sign(base({ email: 'jane@example.com', email_verified: false })))).status).toBe(401);
  });

  it('[API-AUTHN-002] [AC-AUTHN-097] [AC-AUTHN-088] user validation rules over user; an empty username fails', async () => {
    const { me } = await setup(config({
      claimMappings: { username: { expression: 'claims.name' } },
      userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
    }));
    expect((await me(await sign(base({ name: 'alice' })))).status).toBe(201);
    expect((await me(await sign(base({ name: 'system:x' })))).status).toBe(401);
    expect((await me(await sign(base({ name: '' })))).status).toBe(401);
  });

  it('[AC-AUTHN-099] [AC-AUTHN-098] anonymous.conditions: anonymous requests only on the listed paths', async () => {
    const t = await newTestServer({ authentication: { anonymousPaths: ['/livez'] } });
    expect((await t.request('GET', '/livez')).status).toBe(200);
    expect((await t.request('GET', '/version')).status).toBe(401);
  });
});
