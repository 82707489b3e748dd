/**
 * Client certificate verification on the host's TLS port: the peer's chain
 * (as the client sent it) is checked against each configured bundle
 * (--client-ca-file, --requestheader-client-ca-file), issuer by issuer with
 * signatures and validity dates, and the result is attached to the Request
 * for the core's x509 and requestheader authenticators.
 */
import { X509Certificate } from 'node:crypto';
import { TLSSocket, type DetailedPeerCertificate } from 'node:tls';
import { withClientCertificate, type CertificateAuthority } from '../src/core/auth/authenticator/x509';

export interface CaBundles {
  'client-ca'?: X509Certificate[];
  'requestheader-ca'?: X509Certificate[];
}

export function parseCaBundle(pem: string, path: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`unable to load client CA file "${path}": data does not contain any valid RSA or ECDSA certificates`);
  return blocks.map((b) => new X509Certificate(b));
}

/** The chain the client presented: leaf first, then the intermediates it sent. */
function presentedChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  for (let c: DetailedPeerCertificate | undefined = peer; c?.raw && !seen.has(c); c = c.issuerCertificate) {
    seen.add(c);
    chain.push(new X509Certificate(c.raw));
  }
  return chain;
}

function validAt(cert: X509Certificate, now: Date): boolean {
  return now >= new Date(cert.validFrom) && now <= new Date(cert.validTo);
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/** Whether some authority of the bundle verifies the leaf through the presented intermediates. */
export function verifyChain(chain: X509Certificate[], roots: X509Certificate[], now = new Date()): boolean {
  let current: X509Certificate | undefined = chain[0];
  const intermediates = chain.slice(1);
  for (let depth = 0; current && depth <= intermediates.length; depth++) {
    if (!validAt(current, now)) return false;
    const root = roots.find((r) => issuedBy(current!, r));
    if (root) return validAt(root, now);
    current = intermediates.find((i) => i.ca && issuedBy(current!, i));
  }
  return false;
}

function subjectFields(subject: string): { commonName: string; organizations: string[] } {
  let commonName = '';
  const organizations: string[] = [];
  for (const line of subject.split('\n')) {
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'CN') commonName = value;
    else if (key === 'O') organizations.push(value);
  }
  return { commonName, organizations };
}

export function attachClientCertificate(request: Request, incoming: { socket?: unknown } | undefined, bundles: CaBundles): void {
  const socket = incoming?.socket;
  if (!(socket instanceof TLSSocket)) return;
  const peer = socket.getPeerCertificate(true);
  if (!peer?.raw) return;
  const chain = presentedChain(peer);
  const verifiedBy = (Object.keys(bundles) as CertificateAuthority[]).filter((name) => verifyChain(chain, bundles[name] ?? []));
  withClientCertificate(request, { ...subjectFields(chain[0]!.subject), verifiedBy, verifyError: verifiedBy.length ? undefined : 'x509: certificate signed by unknown authority' });
}
