/** The signing CA on its own: CA keys of each kind Go signs with, and the signer-expiry refusals. */
import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, PemConverter, X509Certificate, X509CertificateGenerator } from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { newCertificateRequest } from '../testing/certificates';
import { parseCSR } from '../validation/certificates';
import { CertificateAuthority, type ClusterSigningCA } from './certificateAuthority';

async function caOf(algorithm: EcKeyGenParams | Algorithm, signing: Algorithm, notAfter: Date): Promise<ClusterSigningCA> {
  const keys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await X509CertificateGenerator.createSelfSigned({
    name: 'CN=test-ca', keys, signingAlgorithm: signing, notBefore: new Date('2025-01-01T00:00:00Z'), notAfter,
    extensions: [new BasicConstraintsExtension(true, undefined, true), new KeyUsagesExtension(KeyUsageFlags.keyCertSign, true)],
  });
  return { certificate: cert.toString('pem'), privateKey: PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') };
}

describe('CertificateAuthority', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it.each([
    ['P-384', { name: 'ECDSA', namedCurve: 'P-384' }, { name: 'ECDSA', hash: 'SHA-384' }, { name: 'ECDSA', hash: { name: 'SHA-384' } }],
    ['P-256', { name: 'ECDSA', namedCurve: 'P-256' }, { name: 'ECDSA', hash: 'SHA-256' }, { name: 'ECDSA', hash: { name: 'SHA-256' } }],
    ['Ed25519', { name: 'Ed25519' }, { name: 'Ed25519' }, { name: 'Ed25519' }],
  ])('an %s CA signs with the algorithm Go picks for its key', async (_n, keyAlg, signing, want) => {
    const pem = await caOf(keyAlg, signing as Algorithm, new Date('2030-01-01T00:00:00Z'));
    const ca = await CertificateAuthority.load(pem);
    const req = await newCertificateRequest('CN=jane');
    const cert = new X509Certificate(await ca.sign(parseCSR(req.pem), { ttlMs: 3600_000, usages: ['client auth'], now }));
    expect(cert.signatureAlgorithm).toMatchObject(want);
    expect(await cert.verify({ publicKey: new X509Certificate(pem.certificate).publicKey, signatureOnly: true })).toBe(true);
  });

  it('clamps to the CA\'s expiry, then refuses once it has passed, with kube\'s messages', async () => {
    const ca = await CertificateAuthority.load(await caOf({ name: 'ECDSA', namedCurve: 'P-256' } as EcKeyGenParams, { name: 'ECDSA', hash: 'SHA-256' } as Algorithm, new Date('2026-01-01T00:03:00Z')));
    const req = parseCSR((await newCertificateRequest('CN=jane')).pem);
    const clamped = new X509Certificate(await ca.sign(req, { ttlMs: 3600_000, usages: ['client auth'], now }));
    expect(clamped.notAfter.toISOString()).toBe('2026-01-01T00:03:00.000Z');
    await expect(ca.sign(req, { ttlMs: 3600_000, usages: ['client auth'], now: new Date('2026-01-01T00:04:00Z') })).rejects.toThrow('refusing to sign a certificate that expired in the past: NotAfter=2026-01-01 00:03:00 +0000 UTC');
    await expect(ca.sign(req, { ttlMs: 3600_000, usages: ['client auth'], now: new Date('2026-01-01T00:10:00Z') })).rejects.toThrow('the signer has expired: NotAfter=2026-01-01 00:03:00 +0000 UTC');
  });
});
