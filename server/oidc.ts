/**
 * The host's side of JWT authenticators: the AuthenticationConfiguration
 * file or the legacy --oidc-* flags become JwtAuthenticatorConfigs, and each
 * issuer's keys come from OIDC discovery (`{url}/.well-known/openid-configuration`
 * or issuer.discoveryURL, then jwks_uri), fetched once and again only after a
 * failure, over TLS verified with the issuer's CA when one is given; distributed
 * claim sources are fetched the same way.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { request } from 'node:https';
import type { JWK } from 'jose';
import { parse } from 'yaml';
import { loadAuthenticationConfiguration, type AuthenticationConfiguration, type AuthenticationConfigurationGates } from '../src/core/auth/authenticator/config';
import type { JwtEntry } from '../src/core/auth/authentication';
import { supportedSigningAlgs, type ClaimSourceFetch, type JwksSource, type JwtAuthenticatorConfig } from '../src/core/auth/authenticator/jwt';
import type { AuthnFlags } from './authFlags';

function getJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { accept: 'application/json' }, ...(ca ? { ca } : {}), timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${url}: ${res.statusCode}`));
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timeout`)));
    req.on('error', reject);
    req.end();
  });
}

/** A distributed claim source: GET with the access token as a bearer token; the body is a JWT. */
function claimSourceFetch(issuer: JwtAuthenticatorConfig['issuer']): ClaimSourceFetch {
  return (endpoint, accessToken) => new Promise((resolve, reject) => {
    const headers: Record<string, string> = accessToken ? { authorization: `Bearer ${accessToken}` } : {};
    const req = request(endpoint, { method: 'GET', headers, ...(issuer.certificateAuthority ? { ca: issuer.certificateAuthority } : {}), timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => ((res.statusCode ?? 0) === 200 ? resolve(text) : reject(new Error(`request failed, got ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`${endpoint}: timeout`)));
    req.on('error', reject);
    req.end();
  });
}

export function discoveredJwks(issuer: JwtAuthenticatorConfig['issuer']): JwksSource {
  let keys: Promise<JWK[]> | undefined;
  const load = async (): Promise<JWK[]> => {
    const discoveryUrl = issuer.discoveryURL ?? `${issuer.url.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const doc = (await getJson(discoveryUrl, issuer.certificateAuthority)) as { issuer?: string; jwks_uri?: string };
    if (doc.issuer !== issuer.url) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuer.url}" got "${doc.issuer}"`);
    if (!doc.jwks_uri) throw new Error('oidc: discovery document has no jwks_uri');
    const set = (await getJson(doc.jwks_uri, issuer.certificateAuthority)) as { keys?: JWK[] };
    return set.keys ?? [];
  };
  return () => {
    keys ??= load().catch((e) => {
      keys = undefined;
      throw e;
    });
    return keys;
  };
}

const oidcFlagNames: (keyof AuthnFlags)[] = ['oidcIssuerUrl', 'oidcClientId', 'oidcUsernameClaim', 'oidcUsernamePrefix', 'oidcGroupsClaim', 'oidcGroupsPrefix', 'oidcRequiredClaims', 'oidcCaFile', 'oidcSigningAlgs'];

/** The legacy flags as one authenticator (kube-apiserver converts them the same way). */
function fromOidcFlags(flags: AuthnFlags): JwtAuthenticatorConfig {
  const claim = flags.oidcUsernameClaim ?? 'sub';
  let prefix = flags.oidcUsernamePrefix;
  if (prefix === undefined) prefix = claim === 'email' ? '' : `${flags.oidcIssuerUrl}#`;
  else if (prefix === '-') prefix = '';
  return {
    issuer: {
      url: flags.oidcIssuerUrl ?? '', audiences: flags.oidcClientId ? [flags.oidcClientId] : [],
      certificateAuthority: flags.oidcCaFile ? readFileSync(flags.oidcCaFile, 'utf8') : undefined,
    },
    claimValidationRules: Object.entries(flags.oidcRequiredClaims ?? {}).map(([c, v]) => ({ claim: c, requiredValue: v })),
    claimMappings: {
      username: { claim, prefix },
      groups: flags.oidcGroupsClaim ? { claim: flags.oidcGroupsClaim, prefix: flags.oidcGroupsPrefix ?? '' } : undefined,
    },
  };
}

export interface HostJwt {
  jwt: JwtEntry[] | (() => JwtEntry[]);
  anonymous?: AuthenticationConfiguration['anonymous'];
  /** Stops watching the configuration file. */
  stop(): void;
}

/**
 * The file's authenticators, re-read when it changes (polled every second):
 * a valid new version replaces the old, an invalid one is reported and the
 * last valid one stays, as kube-apiserver's reloading does.
 */
function watchedConfig(path: string, load: (doc: unknown) => AuthenticationConfiguration, initial: AuthenticationConfiguration, onReload: (ok: boolean) => void): { current: () => JwtEntry[]; stop(): void } {
  const entries = (c: AuthenticationConfiguration): JwtEntry[] => (c.jwt ?? []).map((j) => ({ config: j, jwks: discoveredJwks(j.issuer), fetchClaimSource: claimSourceFetch(j.issuer) }));
  let current = entries(initial);
  let lastText = readFileSync(path, 'utf8');
  const listener = () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    if (text === lastText) return;
    lastText = text;
    try {
      current = entries(load(parse(text)));
      process.stderr.write(`kubesim: reloaded authentication configuration from ${path}\n`);
      onReload(true);
    } catch (e) {
      process.stderr.write(`kubesim: ignoring invalid authentication configuration ${path}: ${e instanceof Error ? e.message : String(e)}\n`);
      onReload(false);
    }
  };
  watchFile(path, { interval: 1000 }, listener);
  return { current: () => current, stop: () => unwatchFile(path, listener) };
}

export interface HostJwtOptions {
  /** Hears of every automatic reload of --authentication-config after a change, and whether it was taken. */
  onReload?: (ok: boolean) => void;
  gates?: AuthenticationConfigurationGates;
}

export function hostJwtAuthenticators(flags: AuthnFlags, serviceAccountIssuers: readonly string[], options: HostJwtOptions = {}): HostJwt {
  const load = (doc: unknown) => loadAuthenticationConfiguration(doc, serviceAccountIssuers, options.gates);
  const oidcFlags = oidcFlagNames.some((n) => flags[n] !== undefined);
  if (flags.authenticationConfig && oidcFlags) throw new Error('authentication-config file and oidc-* flags are mutually exclusive');
  if (flags.authenticationConfig) {
    const config = load(parse(readFileSync(flags.authenticationConfig, 'utf8')));
    if (config.anonymous && flags.anonymousAuth !== undefined) throw new Error('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    const watched = watchedConfig(flags.authenticationConfig, load, config, options.onReload ?? (() => {}));
    return { jwt: watched.current, anonymous: config.anonymous, stop: watched.stop };
  }
  if (!oidcFlags) return { jwt: [], stop() {} };
  if (!flags.oidcIssuerUrl || !flags.oidcClientId) throw new Error('oidc-issuer-url and oidc-client-id must be specified together');
  const algs = flags.oidcSigningAlgs ?? ['RS256'];
  for (const alg of algs) if (!supportedSigningAlgs.includes(alg)) throw new Error(`oidc-signing-algs: unsupported signing algorithm "${alg}"; allowed: ${supportedSigningAlgs.join(', ')}`);
  const config = fromOidcFlags(flags);
  // The same validation as the file (https issuer, ...), under the file's field names.
  load({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: [config] });
  return { jwt: [{ config, jwks: discoveredJwks(config.issuer), signingAlgs: algs, fetchClaimSource: claimSourceFetch(config.issuer) }], stop() {} };
}
