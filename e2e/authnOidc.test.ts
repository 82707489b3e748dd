/**
 * OpenID Connect on the Node host, flag by flag (--oidc-*) and through
 * --authentication-config: a local identity provider over HTTPS with its own
 * authority signs id_tokens, and real kubectl presents them.
 */
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthnFlags } from '../server/authFlags';
import { startTestHost, type TestHost } from './support/host';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-oidc-'));
const caFile = join(dir, 'idp-ca.crt');
let idp: Server;
let issuer = '';
const discoveryHits: string[] = [];
const claimFetches: string[] = [];
let distributedGroups = '';
let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
let ec: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  const ca = await generate([{ name: 'commonName', value: 'idp-ca' }], { keySize: 2048, algorithm: 'sha256', extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true }] });
  writeFileSync(caFile, ca.cert);
  const serving = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048, algorithm: 'sha256', ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'basicConstraints', cA: false }, { name: 'extKeyUsage', serverAuth: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  rsa = await generateKeyPair('RS256');
  ec = await generateKeyPair('ES256');
  const keys = [{ ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256', use: 'sig' }, { ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256', use: 'sig' }];
  idp = createHttpsServer({ key: serving.private, cert: serving.cert }, (req, res) => {
    const url = req.url ?? '';
    res.setHeader('content-type', 'application/json');
    if (url === '/keys') return res.end(JSON.stringify({ keys }));
    if (url === '/claims') {
      claimFetches.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== 'Bearer claims-access') {
        res.statusCode = 401;
        return res.end();
      }
      res.setHeader('content-type', 'application/jwt');
      return res.end(distributedGroups);
    }
    discoveryHits.push(url);
    // Every discovery document names the provider's root as issuer, whatever path it is served at.
    if (url.endsWith('/.well-known/openid-configuration') || url === '/custom/discovery') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
  issuer = `https://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  distributedGroups = await idToken({ groups: ['dist-a', 'dist-b'] });
});
afterAll(async () => {
  await new Promise((r) => idp?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function idToken(claims: JWTPayload, opts: { alg?: 'RS256' | 'ES256'; aud?: string; iss?: string } = {}): Promise<string> {
  const alg = opts.alg ?? 'RS256';
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims).setProtectedHeader({ alg, kid: alg === 'RS256' ? 'rsa' : 'ec' }).setIssuer(opts.iss ?? issuer).setAudience(opts.aud ?? 'kubesim')
    .setIssuedAt(now).setExpirationTime(now + 300).sign(alg === 'RS256' ? rsa.privateKey : ec.privateKey);
}

async function withHost(authn: AuthnFlags, body: (h: TestHost) => Promise<void>): Promise<void> {
  const h = await startTestHost({ tls: true, authn });
  try {
    await body(h);
  } finally {
    await h.stop();
  }
}

/** The user kubectl's token authenticates as, or undefined when the server answers 401. */
async function whoami(h: TestHost, token: string): Promise<{ username: string; groups?: string[] } | undefined> {
  const r = await h.kubectl(['auth', 'whoami', '-o', 'json', `--token=${token}`]);
  if (r.code !== 0) {
    expect(r.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
    return undefined;
  }
  return JSON.parse(r.stdout).status.userInfo;
}

describe('--oidc-* flags', () => {
  it('[AC-AUTHN-054] [AC-AUTHN-055] [AC-AUTHN-058] [AC-AUTHN-062] the client id is the audience; sub is the user name, prefixed with the issuer URL and #; the provider CA comes from --oidc-ca-file', async () => {
    await withHost({ oidcIssuerUrl: issuer, oidcClientId: 'kubesim', oidcCaFile: caFile }, async (h) => {
      expect(await whoami(h, await idToken({ sub: 'u1', email: 'jane@example.com' }))).toEqual({ username: `${issuer}#u1`, groups: ['system:authenticated'] });
      expect(await whoami(h, await idToken({ sub: 'u1' }, { aud: 'another-client' }))).toBeUndefined();
    });
    // Without --oidc-ca-file the provider's certificate is checked against the host's roots: discovery fails, no token authenticates.
    await withHost({ oidcIssuerUrl: issuer, oidcClientId: 'kubesim' }, async (h) => {
      expect(await whoami(h, await idToken({ sub: 'u1' }))).toBeUndefined();
    });
  });

  it('[AC-AUTHN-057] [AC-AUTHN-061] [AC-AUTHN-064] prefix "-" keeps the claim as it is; required claims must match; only the listed signing algorithms verify', async () => {
    await withHost({ oidcIssuerUrl: issuer, oidcClientId: 'kubesim', oidcCaFile: caFile, oidcUsernamePrefix: '-', oidcRequiredClaims: { hd: 'example.com' }, oidcSigningAlgs: ['ES256'] }, async (h) => {
      expect(await whoami(h, await idToken({ sub: 'u1', hd: 'example.com' }, { alg: 'ES256' }))).toEqual({ username: 'u1', groups: ['system:authenticated'] });
      expect(await whoami(h, await idToken({ sub: 'u1' }, { alg: 'ES256' }))).toBeUndefined();
      expect(await whoami(h, await idToken({ sub: 'u1', hd: 'other.example' }, { alg: 'ES256' }))).toBeUndefined();
      // RS256 is not in --oidc-signing-algs here.
      expect(await whoami(h, await idToken({ sub: 'u1', hd: 'example.com' }, { alg: 'RS256' }))).toBeUndefined();
    });
    await expect(startTestHost({ authn: { oidcIssuerUrl: issuer, oidcClientId: 'kubesim', oidcSigningAlgs: ['HS256'] } })).rejects.toThrow('unsupported signing algorithm "HS256"');
  });
});

describe('--authentication-config issuers', () => {
  const configFile = (name: string, doc: unknown) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', ...(doc as object) }));
    return path;
  };
  const claimMappings = { username: { claim: 'sub', prefix: '' } };

  it('[AC-AUTHN-074] [AC-AUTHN-077] discoveryURL is fetched exactly as given; a discovery document naming another issuer rejects the tokens', async () => {
    // The provider's authority, as the file carries it.
    const certificateAuthority = readFileSync(caFile, 'utf8');
    const path = configFile('discovery', {
      jwt: [
        { issuer: { url: issuer, discoveryURL: `${issuer}/custom/discovery`, audiences: ['kubesim'], certificateAuthority }, claimMappings },
        // Discovered at <url>/.well-known/openid-configuration, whose document says the issuer is the root: a mismatch.
        { issuer: { url: `${issuer}/tenant`, audiences: ['kubesim'], certificateAuthority }, claimMappings },
      ],
    });
    discoveryHits.length = 0;
    await withHost({ authenticationConfig: path }, async (h) => {
      expect(await whoami(h, await idToken({ sub: 'u1' }))).toEqual({ username: 'u1', groups: ['system:authenticated'] });
      expect(await whoami(h, await idToken({ sub: 'u2' }, { iss: `${issuer}/tenant` }))).toBeUndefined();
    });
    expect(discoveryHits).toContain('/custom/discovery');
    expect(discoveryHits).not.toContain('/.well-known/openid-configuration');
    expect(discoveryHits).toContain('/tenant/.well-known/openid-configuration');
  });

  it('[AC-METRICS-035] each automatic reload of the file sets apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds for its outcome', async () => {
    const path = configFile('reloaded', { anonymous: { enabled: true, conditions: [{ path: '/livez' }] } });
    await withHost({ authenticationConfig: path }, async (h) => {
      const samples = async () => {
        const text = (await h.kubectl(['get', '--raw', '/metrics'])).stdout;
        return text.split('\n').filter((l) => l.startsWith('apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{'));
      };
      const waitFor = async (status: string) => {
        for (let i = 0; i < 50; i++) {
          const line = (await samples()).find((l) => l.includes(`status="${status}"`));
          if (line) return line;
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`no ${status} sample`);
      };
      expect(await samples()).toEqual([]);
      const before = Date.now() / 1000;
      configFile('reloaded', { anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] } });
      const ok = await waitFor('success');
      expect(ok).toMatch(/^apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} /);
      const at = Number(ok.split(' ')[1]);
      expect(at).toBeGreaterThanOrEqual(Math.floor(before));
      expect(at).toBeLessThanOrEqual(Date.now() / 1000);
      writeFileSync(path, 'kind: AuthenticationConfiguration\napiVersion: nope\n');
      expect(await waitFor('failure')).toContain('status="failure"');
      const total = (await h.kubectl(['get', '--raw', '/metrics'])).stdout.split('\n').filter((l) => l.startsWith('apiserver_authentication_config_controller_automatic_reloads_total{'));
      expect(total.map((l) => l.replace(/apiserver_id_hash="[^"]+",/, ''))).toEqual([
        'apiserver_authentication_config_controller_automatic_reloads_total{status="failure"} 1',
        'apiserver_authentication_config_controller_automatic_reloads_total{status="success"} 1',
      ]);
    });
  });

  it('[AC-AUTHN-082] egressSelectorType needs the StructuredAuthenticationConfigurationEgressSelector gate (beta, on by default)', async () => {
    const path = configFile('egress', { jwt: [{ issuer: { url: issuer, audiences: ['kubesim'], egressSelectorType: 'controlplane' }, claimMappings }] });
    await expect(startTestHost({ authn: { authenticationConfig: path }, flags: { featureGates: { StructuredAuthenticationConfigurationEgressSelector: false } } }))
      .rejects.toThrow('jwt[0].issuer.egressSelectorType: Invalid value: "controlplane": egress selector is not supported when StructuredAuthenticationConfigurationEgressSelector feature gate is disabled');
    const h = await startTestHost({ authn: { authenticationConfig: path } });
    await h.stop();
  });

  it('[AC-AUTHN-102] a groups claim left to a distributed source is fetched for a claim mapping, never for a CEL expression', async () => {
    const certificateAuthority = readFileSync(caFile, 'utf8');
    const distributed = { sub: 'u1', _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: `${issuer}/claims`, access_token: 'claims-access' } } };
    const byClaim = configFile('distributed-claim', { jwt: [{ issuer: { url: issuer, audiences: ['kubesim'], certificateAuthority }, claimMappings: { ...claimMappings, groups: { claim: 'groups', prefix: 'oidc:' } } }] });
    claimFetches.length = 0;
    await withHost({ authenticationConfig: byClaim }, async (h) => {
      expect(await whoami(h, await idToken(distributed))).toEqual({ username: 'u1', groups: ['oidc:dist-a', 'oidc:dist-b', 'system:authenticated'] });
    });
    // Fetched (each authentication asks again, as upstream does not cache it) with the source's access token.
    expect(claimFetches.length).toBeGreaterThan(0);
    expect(new Set(claimFetches)).toEqual(new Set(['Bearer claims-access']));
    const byExpression = configFile('distributed-cel', { jwt: [{ issuer: { url: issuer, audiences: ['kubesim'], certificateAuthority }, claimMappings: { ...claimMappings, groups: { expression: "has(claims.groups) ? claims.groups : ['none']" } } }] });
    claimFetches.length = 0;
    await withHost({ authenticationConfig: byExpression }, async (h) => {
      expect(await whoami(h, await idToken(distributed))).toEqual({ username: 'u1', groups: ['none', 'system:authenticated'] });
    });
    expect(claimFetches).toEqual([]);
  });

  it('[AC-AUTHN-076] [AC-AUTHN-069] a discoveryURL used twice, or anonymous in the file with --anonymous-auth, stops the host', async () => {
    const twice = configFile('twice', {
      jwt: [
        { issuer: { url: issuer, discoveryURL: `${issuer}/custom/discovery`, audiences: ['a'] }, claimMappings },
        { issuer: { url: `${issuer}/tenant`, discoveryURL: `${issuer}/custom/discovery`, audiences: ['b'] }, claimMappings },
      ],
    });
    await expect(startTestHost({ authn: { authenticationConfig: twice } })).rejects.toThrow(`jwt[1].issuer.discoveryURL: Duplicate value: "${issuer}/custom/discovery"`);
    const anonymous = configFile('anonymous', { anonymous: { enabled: true, conditions: [{ path: '/livez' }] } });
    await expect(startTestHost({ authn: { authenticationConfig: anonymous, anonymousAuth: true } }))
      .rejects.toThrow('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    // Either alone is fine.
    const h = await startTestHost({ authn: { authenticationConfig: anonymous } });
    await h.stop();
  });
});
