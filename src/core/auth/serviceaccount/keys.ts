/**
 * Service account signing and verification keys (--service-account-signing-key-file,
 * --service-account-key-file) as JWKs, through WebCrypto via jose so the same
 * code runs in the service worker. Without a configured key one is generated
 * on first use. A key's id is upstream's: base64url(sha256(DER public key)).
 */
import { base64url, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export type SigningAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  kid: string;
  alg: SigningAlgorithm;
  key: CryptoKey;
  /** Public JWK as /openid/v1/jwks serves it. */
  jwk: JWK;
}

export interface ServiceAccountKeys {
  signing: { kid: string; alg: SigningAlgorithm; key: CryptoKey };
  verifying: VerificationKey[];
}

/** The algorithm a key signs with (upstream: RS256 for RSA, ES256/384/512 by curve). */
export function algorithmFor(jwk: JWK): SigningAlgorithm {
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC') {
    if (jwk.crv === 'P-256') return 'ES256';
    if (jwk.crv === 'P-384') return 'ES384';
    if (jwk.crv === 'P-521') return 'ES512';
  }
  throw new Error(`unsupported service account key type ${jwk.kty}${jwk.crv ? ` (${jwk.crv})` : ''}`);
}

function publicPart(jwk: JWK): JWK {
  if (jwk.kty === 'RSA') return { kty: 'RSA', n: jwk.n, e: jwk.e };
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

async function keyId(publicKey: CryptoKey): Promise<string> {
  const der = await crypto.subtle.exportKey('spki', publicKey);
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', der)));
}

async function verificationKey(jwk: JWK): Promise<VerificationKey> {
  const alg = algorithmFor(jwk);
  const pub = publicPart(jwk);
  const key = (await importJWK(pub, alg, { extractable: true })) as CryptoKey;
  const kid = await keyId(key);
  return { kid, alg, key, jwk: { use: 'sig', ...pub, kid, alg } };
}

/**
 * Loads the keys: the signing key (private JWK) also verifies; each
 * verification JWK may be public or private (its public half is used).
 */
export async function loadServiceAccountKeys(signingKey: JWK | undefined, verificationKeys: readonly JWK[] = []): Promise<ServiceAccountKeys> {
  let signingJwk = signingKey;
  if (!signingJwk) {
    const pair = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    signingJwk = await exportJWK(pair.privateKey);
  }
  const alg = algorithmFor(signingJwk);
  const own = await verificationKey(signingJwk);
  const key = (await importJWK(signingJwk, alg)) as CryptoKey;
  const verifying = [own];
  for (const jwk of verificationKeys) {
    const v = await verificationKey(jwk);
    if (!verifying.some((x) => x.kid === v.kid)) verifying.push(v);
  }
  return { signing: { kid: own.kid, alg, key }, verifying };
}
