/**
 * PKCS#10 certificate requests as kube reads them (certificates.ParseCSR and
 * x509.CertificateRequest.CheckSignature): the first PEM block must be a
 * CERTIFICATE REQUEST, its DER must parse, and its signature must verify
 * with its own public key. Errors carry Go's messages (encoding/asn1's for
 * the request's structure, requestStructure.ts; crypto/x509's for
 * signatures), since kube prints them verbatim in field errors. What only
 * the parser finds (attributes, subject contents) is reported with its own
 * message under Go's `asn1: structure error:` prefix. Parsing is
 * synchronous; the signature check needs WebCrypto and is asynchronous.
 */
import { Pkcs10CertificateRequest } from '@peculiar/x509';
import { certificateRequestStructureError } from './requestStructure';

export interface PemBlock {
  type: string;
  /** Whether the block has `Key: value` headers before its body. */
  headers: boolean;
  bytes: Uint8Array<ArrayBuffer>;
}

function base64Bytes(body: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const bin = atob(body.replace(/\s+/g, ''));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** encoding/pem's Decode over every block: a block whose body is not base64 is skipped, as Go skips it. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /(?:^|\n)-----BEGIN ([^\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[2]!.split(/\r?\n/);
    let at = 0;
    while (at < lines.length && /^[^\s:]+:/.test(lines[at]!)) at++;
    const headers = at > 0;
    if (headers && lines[at] === '') at++;
    const bytes = base64Bytes(lines.slice(at).join(''));
    if (bytes) out.push({ type: m[1]!, headers, bytes });
  }
  return out;
}

/** certificates.ParseCSR: the request's first PEM block, parsed. Throws an Error with kube's message. */
export function parseCSR(pem: string): Pkcs10CertificateRequest {
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const structural = certificateRequestStructureError(block.bytes);
  if (structural) throw new Error(structural);
  try {
    const csr = new Pkcs10CertificateRequest(block.bytes);
    // The parts CheckSignature and the signer read must decode too.
    void csr.subjectName.toJSON();
    void csr.extensions;
    return csr;
  } catch (e) {
    throw new Error(`asn1: structure error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** x509.CertificateRequest.CheckSignature: undefined when the signature verifies, else Go's error text. */
export async function checkSignature(csr: Pkcs10CertificateRequest): Promise<string | undefined> {
  let ok: boolean;
  try {
    ok = await csr.verify();
  } catch {
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
  if (ok) return undefined;
  switch (csr.publicKey.algorithm.name) {
    case 'ECDSA':
      return 'x509: ECDSA verification failure';
    case 'Ed25519':
      return 'x509: Ed25519 verification failure';
    default:
      return 'crypto/rsa: verification error';
  }
}

/** validateCSR: undefined when the request parses and its signature verifies, else the error kube reports. */
export async function validateCSR(pem: string): Promise<string | undefined> {
  let csr: Pkcs10CertificateRequest;
  try {
    csr = parseCSR(pem);
  } catch (e) {
    return (e as Error).message;
  }
  return checkSignature(csr);
}
