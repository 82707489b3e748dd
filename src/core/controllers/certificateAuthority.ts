/**
 * The CA the csrsigning controller signs with (kube's
 * pkg/controller/certificates/authority: CertificateAuthority.Sign under the
 * PermissiveSigningPolicy), on WebCrypto through @peculiar/x509 so both
 * hosts run it:
 * - the subject is the request's, rebuilt as Go's pkix.Name marshals it (C,
 *   ST, L, STREET, POSTALCODE, O, OU, CN, SERIALNUMBER; other attributes
 *   dropped), and the SANs are the request's DNS names, emails, IPs and URIs;
 * - the requested extensions are not copied: key usages and extended key
 *   usages come from spec.usages, basic constraints say not a CA;
 * - NotBefore is now minus the 5 minute backdate; NotAfter is now plus the
 *   TTL, minus the backdate unless the TTL is short (under 8 hours), never
 *   past the CA's own NotAfter.
 * generateClusterCA makes a CA like kubeadm's (CN kubernetes, RSA 2048, ten years).
 */
import {
  AuthorityKeyIdentifierExtension, BasicConstraintsExtension, ExtendedKeyUsageExtension, Extension, KeyUsageFlags, KeyUsagesExtension, Name,
  PemConverter, type Pkcs10CertificateRequest, SubjectAlternativeNameExtension, SubjectKeyIdentifierExtension, X509Certificate, X509CertificateGenerator,
  type JsonGeneralName,
} from '@peculiar/x509';

/** A CA as PEM: the certificate and its PKCS#8 private key (what --cluster-signing-cert-file / -key-file hold). */
export interface ClusterSigningCA {
  certificate: string;
  privateKey: string;
}

export const backdateMs = 5 * 60_000;
const shortMs = 8 * 3600_000;

/** Go's x509.KeyUsage bits (the KeyUsage BIT STRING's, counted from the low end). */
const keyUsageBits: Record<string, number> = {
  signing: 1 << 0,
  'digital signature': 1 << 0,
  'content commitment': 1 << 1,
  'key encipherment': 1 << 2,
  'data encipherment': 1 << 3,
  'key agreement': 1 << 4,
  'cert sign': 1 << 5,
  'crl sign': 1 << 6,
  'encipher only': 1 << 7,
  'decipher only': 1 << 8,
};

/** Extended key usages in the order of Go's x509.ExtKeyUsage constants, which is how the signer sorts them. */
const extKeyUsageOids: [string, string][] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** pkix.Name's fields in ToRDNSequence's order; several values of one field share one RDN. */
const subjectFields: [string, boolean][] = [
  ['2.5.4.6', false], ['2.5.4.8', false], ['2.5.4.7', false], ['2.5.4.9', false], ['2.5.4.17', false],
  ['2.5.4.10', false], ['2.5.4.11', false], ['2.5.4.3', true], ['2.5.4.5', true],
];

/** Go's asn1 marshals a string as PrintableString when it can, else UTF8String. */
const goString = (v: string) => (/^[A-Za-z0-9 '()+,\-./:=?*&]*$/.test(v) ? { printableString: v } : { utf8String: v });

function goSubject(name: Name): Name {
  const rdns: Record<string, { printableString: string } | { utf8String: string }[]>[] = [];
  for (const [oid, single] of subjectFields) {
    let values = name.getField(oid);
    if (single) values = values.slice(-1);
    if (values.length) rdns.push({ [oid]: values.map(goString) } as never);
  }
  return new Name(rdns as never);
}

/** Go's time.Time String(), as kube's signer errors print NotAfter. */
const goTime = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;

/** keyUsagesFromStrings. Throws with kube's message for usages it does not know. */
function keyUsages(usages: readonly string[]): { bits: number; ext: string[] } {
  let bits = 0;
  const ext = new Set<string>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    if (u in keyUsageBits) bits |= keyUsageBits[u]!;
    else if (extKeyUsageOids.some(([name]) => name === u)) ext.add(extKeyUsageOids.find(([name]) => name === u)![1]);
    else unrecognized.push(u);
  }
  if (unrecognized.length) throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const order = extKeyUsageOids.map(([, oid]) => oid);
  return { bits, ext: [...ext].sort((a, b) => order.indexOf(a) - order.indexOf(b)) };
}

/** The import parameters WebCrypto needs for a CA's key, read from its certificate's public key. */
function importParams(cert: X509Certificate): RsaHashedImportParams | EcKeyImportParams | Algorithm {
  const alg = cert.publicKey.algorithm as { name: string; namedCurve?: string };
  if (alg.name === 'ECDSA') return { name: 'ECDSA', namedCurve: alg.namedCurve ?? 'P-256' };
  if (alg.name === 'Ed25519') return { name: 'Ed25519' };
  return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
}

/** The signature algorithm Go picks for the CA key: SHA-256 with RSA and P-256, SHA-384 with P-384, SHA-512 with P-521, pure Ed25519. */
function signatureAlgorithm(key: CryptoKey): Algorithm {
  const alg = key.algorithm as { name: string; namedCurve?: string };
  if (alg.name === 'ECDSA') return { name: 'ECDSA', hash: alg.namedCurve === 'P-384' ? 'SHA-384' : alg.namedCurve === 'P-521' ? 'SHA-512' : 'SHA-256' } as EcdsaParams;
  if (alg.name === 'Ed25519') return { name: 'Ed25519' };
  return { name: alg.name, hash: 'SHA-256' } as Algorithm;
}

export interface SigningPolicy {
  /** The certificate's lifetime before backdating and clamping. */
  ttlMs: number;
  usages: readonly string[];
  now: Date;
}

export class CertificateAuthority {
  private constructor(
    readonly certificate: X509Certificate,
    private readonly key: CryptoKey,
  ) {}

  /** Loads a CA from PEM. Throws when the certificate or the PKCS#8 key does not parse. */
  static async load(ca: ClusterSigningCA): Promise<CertificateAuthority> {
    const certificate = new X509Certificate(ca.certificate);
    const der = PemConverter.decodeFirst(ca.privateKey);
    const key = await crypto.subtle.importKey('pkcs8', der, importParams(certificate), false, ['sign']);
    return new CertificateAuthority(certificate, key);
  }

  get notAfter(): Date {
    return this.certificate.notAfter;
  }

  /** CertificateAuthority.Sign with the PermissiveSigningPolicy: a PEM certificate for the request. Throws with kube's messages. */
  async sign(request: Pkcs10CertificateRequest, policy: SigningPolicy): Promise<string> {
    const now = policy.now.getTime();
    const caNotAfter = this.notAfter.getTime();
    const notBefore = now - backdateMs;
    if (notBefore >= caNotAfter) throw new Error(`the signer has expired: NotAfter=${goTime(this.notAfter)}`);
    const { bits, ext } = keyUsages(policy.usages);
    let notAfter = policy.ttlMs < shortMs ? now + policy.ttlMs : now + policy.ttlMs - backdateMs;
    if (notAfter >= caNotAfter) notAfter = caNotAfter;
    if (now >= caNotAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(this.notAfter)}`);

    const subject = goSubject(request.subjectName);
    const extensions: Extension[] = [];
    if (bits) extensions.push(new KeyUsagesExtension(bits, true));
    if (ext.length) extensions.push(new ExtendedKeyUsageExtension(ext, false));
    extensions.push(new BasicConstraintsExtension(false, undefined, true));
    const skid = this.certificate.getExtension(SubjectKeyIdentifierExtension);
    if (skid) extensions.push(new AuthorityKeyIdentifierExtension(skid.keyId, false));
    const sans = subjectAltNames(request);
    // Go marks the SAN extension critical when the subject is empty (RFC 5280 4.2.1.6).
    if (sans.length) extensions.push(new SubjectAlternativeNameExtension(sans, subject.toJSON().length === 0));

    const cert = await X509CertificateGenerator.create({
      subject,
      issuer: this.certificate.subjectName,
      notBefore: new Date(notBefore),
      notAfter: new Date(notAfter),
      publicKey: request.publicKey,
      signingKey: this.key,
      signingAlgorithm: signatureAlgorithm(this.key),
      extensions,
    });
    return cert.toString('pem') + '\n';
  }
}

/** The request's SANs in the order Go marshals them: DNS names, emails, IPs, URIs. */
export function subjectAltNames(request: Pkcs10CertificateRequest): JsonGeneralName[] {
  const ext = request.extensions.find((e) => e.type === '2.5.29.17');
  if (!ext) return [];
  const names = new SubjectAlternativeNameExtension(ext.rawData).names.toJSON();
  return ['dns', 'email', 'ip', 'url'].flatMap((type) => names.filter((n) => n.type === type));
}

/** A self-signed cluster CA (kubeadm's shape): CN kubernetes, RSA 2048, ten years from now, SKID, CA basic constraints. */
export async function generateClusterCA(now: Date, commonName = 'kubernetes'): Promise<ClusterSigningCA> {
  const keys = (await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  const certificate = await X509CertificateGenerator.createSelfSigned({
    name: new Name([{ CN: [goString(commonName)] }] as never),
    notBefore: new Date(now.getTime() - backdateMs),
    notAfter: new Date(now.getTime() + 10 * 365 * 24 * 3600_000),
    keys,
    signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as Algorithm,
    extensions: [
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.keyCertSign, true),
      new BasicConstraintsExtension(true, undefined, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certificate: certificate.toString('pem') + '\n', privateKey: PemConverter.encode(pkcs8, 'PRIVATE KEY') + '\n' };
}
