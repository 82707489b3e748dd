/**
 * JWT authenticators (k8s.io/apiserver/plugin/pkg/authenticator/token/oidc):
 * one per AuthenticationConfiguration `jwt[]` entry (the legacy --oidc-*
 * flags make one too). A token of another issuer is not this method's; one
 * of this issuer must verify with the issuer's JWKS (asymmetric algorithms
 * only), be unexpired, carry an accepted audience and pass the claim
 * validation rules; the claim mappings (claim plus prefix, or CEL over
 * `claims`) then make the user, which the user validation rules (CEL over
 * `user`) must accept. Every failure is a 401. A groups claim the token
 * leaves to a distributed claim source (_claim_names/_claim_sources) is
 * fetched and verified first, for a claim mapping only: CEL expressions see
 * the token's own claims.
 */
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK, type JWTPayload } from 'jose';
import { compileKubernetes, newEnvironment, toJson, type CelProgram } from '../../cel';
import type { Clock } from '../../util/clock';
import type { UserInfo } from '../user';
import type { AuthenticationOutcome, TokenAuthenticator } from './types';

export interface ClaimOrExpression {
  claim?: string;
  prefix?: string;
  expression?: string;
}

export interface JwtAuthenticatorConfig {
  issuer: { url: string; discoveryURL?: string; certificateAuthority?: string; audiences: string[]; audienceMatchPolicy?: string; egressSelectorType?: string };
  claimValidationRules?: { claim?: string; requiredValue?: string; expression?: string; message?: string }[];
  claimMappings: {
    username: ClaimOrExpression;
    groups?: ClaimOrExpression;
    uid?: { claim?: string; expression?: string };
    extra?: { key: string; valueExpression: string }[];
  };
  userValidationRules?: { expression: string; message?: string }[];
}

/** The issuer's verification keys (the host fetches them through discovery and refreshes them). */
export type JwksSource = () => Promise<JWK[]>;

/** GETs a distributed claim source (with its access token as a bearer token) and resolves with the JWT it answers. */
export type ClaimSourceFetch = (endpoint: string, accessToken: string | undefined) => Promise<string>;

export const supportedSigningAlgs = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];
// Made on first use: CEL is a part the service worker loads when a request first needs it (src/sw/chunkLoader.ts).
let authenticationEnv: ReturnType<typeof newEnvironment> | undefined;

class JwtError extends Error {}

/** Compiles an expression of the authentication environment; a compile error is a configuration error. */
export function compileAuthenticationExpression(expression: string): CelProgram {
  const r = compileKubernetes((authenticationEnv ??= newEnvironment('authentication')), expression);
  if (!r.program) throw new Error(r.message ?? 'compilation failed');
  return r.program;
}

function run(program: CelProgram, vars: Record<string, unknown>, what: string): unknown {
  const r = program.evalJson(vars);
  if (!r.ok) throw new JwtError(`oidc: error evaluating ${what}: ${r.error.message}`);
  return toJson(r.value);
}

function stringOrList(v: unknown, what: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new JwtError(`oidc: error evaluating ${what}: must return a string or a list of strings`);
}

export function jwtAuthenticator(config: JwtAuthenticatorConfig, jwks: JwksSource, clock: Clock, signingAlgs: readonly string[] = supportedSigningAlgs, fetchClaimSource?: ClaimSourceFetch): TokenAuthenticator {
  const name = `jwt:${config.issuer.url}`;
  const m = config.claimMappings;
  const compiled = {
    username: m.username.expression ? compileAuthenticationExpression(m.username.expression) : undefined,
    groups: m.groups?.expression ? compileAuthenticationExpression(m.groups.expression) : undefined,
    uid: m.uid?.expression ? compileAuthenticationExpression(m.uid.expression) : undefined,
    extra: (m.extra ?? []).map((e) => ({ key: e.key, program: compileAuthenticationExpression(e.valueExpression) })),
    claimRules: (config.claimValidationRules ?? []).map((r) => ({ ...r, program: r.expression ? compileAuthenticationExpression(r.expression) : undefined })),
    userRules: (config.userValidationRules ?? []).map((r) => ({ ...r, program: compileAuthenticationExpression(r.expression) })),
  };

  async function verify(token: string): Promise<JWTPayload> {
    const header = decodeProtectedHeader(token);
    if (!header.alg || !signingAlgs.includes(header.alg)) throw new JwtError(`oidc: verify token: oidc: malformed jwt: go-jose/go-jose: unexpected signature algorithm "${header.alg}"; expected ${JSON.stringify(signingAlgs)}`);
    const keys = (await jwks()).filter((k) => !header.kid || !k.kid || k.kid === header.kid);
    for (const jwk of keys) {
      try {
        const key = await importJWK(jwk, header.alg);
        await compactVerify(token, key, { algorithms: [header.alg] });
        return decodeJwt(token);
      } catch {
        // Try the next key.
      }
    }
    throw new JwtError('oidc: verify token: failed to verify signature: failed to verify id token signature');
  }

  /** OpenID Connect Core 1.0 section 5.6.2, as kube-apiserver resolves it: only when the claim itself is absent. */
  async function expandDistributedClaim(claims: JWTPayload, claim: string): Promise<void> {
    const names = claims['_claim_names'];
    if (claims[claim] !== undefined || !names || typeof names !== 'object') return;
    const source = (names as Record<string, unknown>)[claim];
    if (typeof source !== 'string') return;
    const fail = (why: string) => new JwtError(`oidc: could not expand distributed claims: ${why}`);
    const sources = claims['_claim_sources'];
    const ep = sources && typeof sources === 'object' ? ((sources as Record<string, unknown>)[source] as { endpoint?: unknown; access_token?: unknown } | undefined) : undefined;
    if (!ep || typeof ep.endpoint !== 'string' || !ep.endpoint) throw fail(`malformed claim source for claim ${JSON.stringify(claim)}`);
    let jwt: string;
    try {
      jwt = (await fetchClaimSource!(ep.endpoint, typeof ep.access_token === 'string' ? ep.access_token : undefined)).trim();
    } catch (e) {
      throw fail(`while getting distributed claim ${JSON.stringify(claim)}: ${e instanceof Error ? e.message : String(e)}`);
    }
    let distributed: JWTPayload;
    try {
      if (decodeJwt(jwt).iss !== config.issuer.url) throw new Error(`issuer ${JSON.stringify(decodeJwt(jwt).iss)} is not ${JSON.stringify(config.issuer.url)}`);
      distributed = await verify(jwt);
    } catch (e) {
      throw fail(`verify distributed claim token: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (distributed[claim] === undefined) throw fail(`jwt returned by distributed claim endpoint ${JSON.stringify(ep.endpoint)} did not contain claim: ${claim}`);
    claims[claim] = distributed[claim];
  }

  function claimString(claims: JWTPayload, claim: string): string {
    const v = claims[claim];
    if (v === undefined) throw new JwtError(`oidc: parse username claims "${claim}": claim not present`);
    if (typeof v !== 'string') throw new JwtError(`oidc: parse username claims "${claim}": json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type string`);
    return v;
  }

  async function authenticate(token: string): Promise<AuthenticationOutcome> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return { kind: 'none' };
    }
    if (unverified.iss !== config.issuer.url) return { kind: 'none' };
    const claims = await verify(token);
    const now = Math.floor(clock.now().getTime() / 1000);
    if (typeof claims.exp !== 'number') throw new JwtError('oidc: verify token: oidc: missing expiry claim');
    if (now > claims.exp) throw new JwtError(`oidc: verify token: oidc: token is expired (Token Expiry: ${new Date(claims.exp * 1000).toISOString()})`);
    if (typeof claims.nbf === 'number' && now + 300 < claims.nbf) throw new JwtError('oidc: verify token: oidc: current time before the nbf (not before) time');
    const aud = Array.isArray(claims.aud) ? claims.aud : typeof claims.aud === 'string' ? [claims.aud] : [];
    if (!aud.some((a) => config.issuer.audiences.includes(a))) {
      throw new JwtError(`oidc: verify token: oidc: expected audience in ${JSON.stringify(config.issuer.audiences)} got ${JSON.stringify(aud)}`);
    }
    if (fetchClaimSource && m.groups?.claim && !compiled.groups) await expandDistributedClaim(claims, m.groups.claim);

    for (const rule of compiled.claimRules) {
      if (rule.claim) {
        const v = claims[rule.claim];
        if (v === undefined) throw new JwtError(`oidc: required claim ${rule.claim} not present in ID token`);
        if (v !== rule.requiredValue) throw new JwtError(`oidc: required claim ${rule.claim} value does not match. Got = ${JSON.stringify(v)}, want = ${rule.requiredValue}`);
      } else if (rule.program) {
        const ok = run(rule.program, { claims }, `claim validation expression`);
        if (ok !== true) throw new JwtError(rule.message ? `oidc: error evaluating claim validation expression: ${rule.message}` : `oidc: error evaluating claim validation expression: expression '${rule.expression}' resulted in error`);
      }
    }

    let username: string;
    if (compiled.username) {
      const v = run(compiled.username, { claims }, 'username claim mapping');
      if (typeof v !== 'string') throw new JwtError('oidc: error evaluating username claim expression: username must be a string');
      username = v;
    } else {
      const claim = m.username.claim!;
      username = claimString(claims, claim);
      // An email is only an identity once the provider verified it.
      if (claim === 'email' && claims['email_verified'] !== undefined && claims['email_verified'] !== true) throw new JwtError('oidc: email not verified');
      username = (m.username.prefix ?? '') + username;
    }
    if (!username) throw new JwtError('oidc: empty username via CEL expression is not allowed');

    let groups: string[] = [];
    if (compiled.groups) groups = stringOrList(run(compiled.groups, { claims }, 'groups claim mapping'), 'groups claim expression');
    else if (m.groups?.claim && claims[m.groups.claim] !== undefined) {
      groups = stringOrList(claims[m.groups.claim], `groups claim ${m.groups.claim}`).map((g) => (m.groups?.prefix ?? '') + g);
    }
    const user: UserInfo = { username, groups };
    if (compiled.uid) {
      const v = run(compiled.uid, { claims }, 'uid claim mapping');
      if (typeof v !== 'string') throw new JwtError('oidc: error evaluating uid claim expression: uid must be a string');
      if (v) user.uid = v;
    } else if (m.uid?.claim) {
      const v = claims[m.uid.claim];
      if (typeof v === 'string' && v) user.uid = v;
    }
    const extra: Record<string, string[]> = {};
    for (const e of compiled.extra) {
      const values = stringOrList(run(e.program, { claims }, 'extra claim mapping'), `extra ${e.key}`).filter((x) => x !== '');
      if (values.length) extra[e.key] = values;
    }
    if (Object.keys(extra).length) user.extra = extra;

    for (const rule of compiled.userRules) {
      const ok = run(rule.program, { user: { username, uid: user.uid ?? '', groups, extra } }, 'user validation expression');
      if (ok !== true) throw new JwtError(`oidc: error evaluating user info validation rule: validation expression '${rule.expression}' failed${rule.message ? `: ${rule.message}` : ''}`);
    }
    return { kind: 'authenticated', authenticator: name, response: { user } };
  }

  return {
    name,
    async authenticateToken(token) {
      try {
        return await authenticate(token);
      } catch (e) {
        if (e instanceof JwtError) return { kind: 'rejected', authenticator: name, reason: e.message };
        return { kind: 'rejected', authenticator: name, reason: `oidc: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
  };
}
