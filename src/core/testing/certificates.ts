/** Test support for certificate signing requests: PKCS#10 requests and CAs made on WebCrypto. */
import { Name, Pkcs10CertificateRequestGenerator, SubjectAlternativeNameExtension, type JsonGeneralName } from '@peculiar/x509';

export interface TestRequest {
  /** The PEM text. */
  pem: string;
  /** base64 of the PEM, as spec.request holds it. */
  request: string;
  keys: CryptoKeyPair;
}

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/** A request for subject (`CN=jane, O=dev`), signed by a fresh P-256 key (fast to make). */
export async function newCertificateRequest(subject: string, sans: JsonGeneralName[] = []): Promise<TestRequest> {
  const keys = (await crypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
  const csr = await Pkcs10CertificateRequestGenerator.create({
    name: new Name(subject),
    keys,
    signingAlgorithm: ecdsa,
    extensions: sans.length ? [new SubjectAlternativeNameExtension(sans)] : [],
  });
  const pem = csr.toString('pem') + '\n';
  return { pem, request: btoa(pem), keys };
}

/** The same request with one bit of its signature flipped: it parses, and its signature no longer verifies. */
export function withBadSignature(pem: string): string {
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  der[der.length - 1]! ^= 1;
  const b64 = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, '$1\n').trim();
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** A request made by openssl (`req -new -subj /CN=jane/O=dev`, P-256): parses and verifies. */
export const testCertificateRequestPem = `-----BEGIN CERTIFICATE REQUEST-----
MIHXMH8CAQAwHTENMAsGA1UEAwwEamFuZTEMMAoGA1UECgwDZGV2MFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEnnR128ZXmoGvxLBqajSRR7CFBda80DccUao1I9O8
H3R/Qc7h3r+McGAoWbU3e23UJj4EyjQ8uPMReJIJwZi0qqAAMAoGCCqGSM49BAMC
A0gAMEUCIB2CQxsAl/RlfKjX5JxjkPkClMXN85oCo/pYc4XwNRimAiEA390nL0Gc
pD+pbb6GuV6a6eQV8pD7rHY81LC9I5y/Fi0=
-----END CERTIFICATE REQUEST-----
`;

/** A self-signed certificate made by openssl, for status.certificate. */
export const testCertificatePem = `-----BEGIN CERTIFICATE-----
MIIBejCCAR+gAwIBAgIUTv7L73gNGYCmOyquUOWNIhTOpPUwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZml4dHVyZTAeFw0yNjExMjcxMDQ5MTRaFw0zNjExMjQxMDQ5
MTRaMBIxEDAOBgNVBAMMB2ZpeHR1cmUwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AASedHXbxleaga/EsGpqNJFHsIUF1rzQNxxRqjUj07wfdH9BzuHev4xwYChZtTd7
bdQmPgTKNDy48xF4kgnBmLSqo1MwUTAdBgNVHQ4EFgQU9e58Cm5dWtqcmHeum9Oi
493LbvIwHwYDVR0jBBgwFoAU9e58Cm5dWtqcmHeum9Oi493LbvIwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEA9pqgFz9Yico3ffkL3xxeljZz/HSr
eM6uS2VjWI26xOECIQCrGlcBpkd03QB2Do73pVVuuuZ/o/81pRDGHagoqNxkug==
-----END CERTIFICATE-----
`;
