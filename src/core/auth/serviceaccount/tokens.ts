/**
 * Service account tokens: signing (TokenRequest, the token controller) and the
 * token authenticator (pkg/serviceaccount/jwt.go). A token whose issuer is not
 * one of ours is not this method's credential; one of ours must verify with a
 * configured key (asymmetric algorithms only, so neither `alg: none` nor an
 * HS256 token keyed with a public key passes), be within its validity (one
 * minute leeway, as go-jose), name audiences the caller asked for, and, for
 * bound tokens always and for legacy tokens with --service-account-lookup,
 * still match the live ServiceAccount, Secret or Pod.
 */
import { compactVerify, decodeJwt, decodeProtectedHeader, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { KubeObject } from '../../api/types';
import type { Clock } from '../../util/clock';
import { intersectAudiences } from '../authenticator/audiences';
import type { AuthenticationOutcome, TokenAuthenticator } from '../authenticator/types';
import type { UserInfo } from '../user';
import { legacyIssuer, type BoundClaims, type LegacyClaims } from './claims';
import { loadServiceAccountKeys, type ServiceAccountKeys } from './keys';
import { makeGroupNames, makeUsername, splitUsername } from './username';

export interface ServiceAccountOptions {
  /** --service-account-issuer: the first issues, all are accepted. */
  issuers?: string[];
  /** --service-account-signing-key-file as a private JWK; generated when absent. */
  signingKey?: JWK;
  /** --service-account-key-file keys (public or private JWKs) that also verify. */
  verificationKeys?: JWK[];
  /** --service-account-lookup (default true). */
  lookup?: boolean;
  /** --service-account-max-token-expiration in seconds. */
  maxTokenExpirationSeconds?: number;
  /** The cluster CA (PEM) the token controller puts in token Secrets as ca.crt (a function when the host knows it later). */
  rootCA?: string | (() => string | undefined);
  /** --service-account-jwks-uri. */
  jwksUri?: string;
}

/** Reads live objects for revocation checks. */
export type ObjectGetter = (resource: 'serviceaccounts' | 'secrets' | 'pods' | 'nodes', namespace: string, name: string) => Promise<KubeObject | undefined>;

/** go-jose's jwt.DefaultLeeway. */
const leewaySeconds = 60;
const asymmetric = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** Go's %q of a []string: `["a" "b"]`. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

class TokenInvalid extends Error {}

export class ServiceAccountTokens {
  readonly issuers: string[];
  readonly lookup: boolean;
  private keysPromise?: Promise<ServiceAccountKeys>;

  constructor(
    readonly options: ServiceAccountOptions,
    private readonly getObject: ObjectGetter,
    private readonly clock: Clock,
    readonly apiAudiences: readonly string[],
  ) {
    this.issuers = options.issuers?.length ? options.issuers : [];
    this.lookup = options.lookup ?? true;
  }

  get issuer(): string {
    return this.issuers[0]!;
  }

  keys(): Promise<ServiceAccountKeys> {
    this.keysPromise ??= loadServiceAccountKeys(this.options.signingKey, this.options.verificationKeys);
    return this.keysPromise;
  }

  async sign(claims: BoundClaims | LegacyClaims): Promise<string> {
    const { signing } = await this.keys();
    return new SignJWT(claims as unknown as JWTPayload).setProtectedHeader({ alg: signing.alg, kid: signing.kid }).sign(signing.key);
  }

  authenticator(): TokenAuthenticator {
    return { name: 'service-account', authenticateToken: (token, audiences) => this.authenticate(token, audiences) };
  }

  private async authenticate(token: string, requested: readonly string[]): Promise<AuthenticationOutcome> {
    let payload: JWTPayload;
    try {
      const header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
      // Not a JWS of an algorithm we sign with: not a service account token (upstream ParseSigned with allowed algorithms).
      if (!header.alg || !asymmetric.includes(header.alg)) return { kind: 'none' };
    } catch {
      return { kind: 'none' };
    }
    if (typeof payload.iss !== 'string' || (payload.iss !== legacyIssuer && !this.issuers.includes(payload.iss))) return { kind: 'none' };
    const reject = (reason: string): AuthenticationOutcome => ({ kind: 'rejected', authenticator: 'service-account', reason });

    const { verifying } = await this.keys();
    let verified = false;
    const errors: string[] = [];
    for (const k of verifying) {
      try {
        await compactVerify(token, k.key, { algorithms: [k.alg] });
        verified = true;
        break;
      } catch {
        errors.push('go-jose/go-jose: error in cryptographic primitive');
      }
    }
    if (!verified) return reject(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);

    const tokenAudiences = Array.isArray(payload.aud) ? payload.aud : typeof payload.aud === 'string' ? [payload.aud] : [];
    // Legacy tokens have no audience: they are valid for the API server only.
    const effective = tokenAudiences.length ? tokenAudiences : [...this.apiAudiences];
    const audiences = intersectAudiences(effective, requested);
    if (!audiences.length && this.apiAudiences.length) return reject(`token audiences ${goQuotedList(effective)} is invalid for the target audiences ${goQuotedList(requested)}`);

    try {
      const user = payload.iss === legacyIssuer ? await this.validateLegacy(payload as unknown as LegacyClaims, token) : await this.validateBound(payload as unknown as BoundClaims);
      return { kind: 'authenticated', authenticator: 'service-account', response: { user, audiences } };
    } catch (e) {
      if (e instanceof TokenInvalid) return reject(e.message);
      throw e;
    }
  }

  private isDeleted(obj: KubeObject): boolean {
    const ts = obj.metadata.deletionTimestamp;
    return !!ts && new Date(ts).getTime() < this.clock.now().getTime() - leewaySeconds * 1000;
  }

  private async serviceAccount(namespace: string, name: string, uid: string): Promise<KubeObject> {
    const sa = await this.getObject('serviceaccounts', namespace, name);
    if (!sa) throw new TokenInvalid(`serviceaccounts "${name}" not found`);
    if (this.isDeleted(sa)) throw new TokenInvalid(`service account ${namespace}/${name} has been deleted`);
    if (sa.metadata.uid !== uid) throw new TokenInvalid(`service account UID (${sa.metadata.uid}) does not match claim (${uid})`);
    return sa;
  }

  private async validateBound(claims: BoundClaims): Promise<UserInfo> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (typeof claims.exp === 'number' && now > claims.exp + leewaySeconds) throw new TokenInvalid('service account token has expired');
    if (typeof claims.nbf === 'number' && now < claims.nbf - leewaySeconds) throw new TokenInvalid('service account token is not valid yet');
    const k8s = claims['kubernetes.io'];
    if (!k8s?.namespace || !k8s.serviceaccount?.name) throw new TokenInvalid('service account token claims could not be validated due to unexpected private claim');
    const { namespace } = k8s;
    await this.serviceAccount(namespace, k8s.serviceaccount.name, k8s.serviceaccount.uid);
    const extra: Record<string, string[]> = {};
    for (const [resource, ref, label] of [['secrets', k8s.secret, 'secret'], ['pods', k8s.pod, 'pod']] as const) {
      if (!ref) continue;
      const obj = await this.getObject(resource, namespace, ref.name);
      if (!obj || this.isDeleted(obj)) throw new TokenInvalid('service account token has been invalidated');
      if (obj.metadata.uid !== ref.uid) throw new TokenInvalid(`${label} UID (${obj.metadata.uid}) does not match service account ${label} ref claim (${ref.uid})`);
    }
    if (k8s.pod) {
      extra['authentication.kubernetes.io/pod-name'] = [k8s.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [k8s.pod.uid];
    }
    if (k8s.node) {
      extra['authentication.kubernetes.io/node-name'] = [k8s.node.name];
      if (k8s.node.uid) extra['authentication.kubernetes.io/node-uid'] = [k8s.node.uid];
    }
    if (claims.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    const user: UserInfo = { username: makeUsername(namespace, k8s.serviceaccount.name), uid: k8s.serviceaccount.uid, groups: makeGroupNames(namespace) };
    if (Object.keys(extra).length) user.extra = extra;
    return user;
  }

  private async validateLegacy(claims: LegacyClaims, token: string): Promise<UserInfo> {
    const namespace = claims['kubernetes.io/serviceaccount/namespace'];
    const secretName = claims['kubernetes.io/serviceaccount/secret.name'];
    const name = claims['kubernetes.io/serviceaccount/service-account.name'];
    const uid = claims['kubernetes.io/serviceaccount/service-account.uid'];
    if (!namespace) throw new TokenInvalid('namespace claim is missing');
    if (!secretName) throw new TokenInvalid('secretName claim is missing');
    if (!name) throw new TokenInvalid('serviceAccountName claim is missing');
    if (!uid) throw new TokenInvalid('serviceAccountUID claim is missing');
    const subject = splitUsername(claims.sub ?? '');
    if (!subject || subject.namespace !== namespace || subject.name !== name) throw new TokenInvalid('sub claim is invalid');
    if (this.lookup) {
      const secret = await this.getObject('secrets', namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw new TokenInvalid('token has been invalidated');
      const data = secret['data'] as Record<string, string> | undefined;
      if (data?.['token'] !== btoa(token)) throw new TokenInvalid('token does not match secret');
      await this.serviceAccount(namespace, name, uid);
    }
    return { username: makeUsername(namespace, name), uid, groups: makeGroupNames(namespace) };
  }

  /** /.well-known/openid-configuration (pkg/serviceaccount/openidmetadata.go). */
  async openIdConfiguration(): Promise<Record<string, unknown>> {
    const algs = [...new Set((await this.keys()).verifying.map((k) => k.alg))].sort();
    return {
      issuer: this.issuer,
      jwks_uri: this.options.jwksUri ?? `${this.issuer.replace(/\/$/, '')}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: algs,
    };
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.keys()).verifying.map((k) => k.jwk) };
  }
}
