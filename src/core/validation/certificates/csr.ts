/**
 * PKCS#10 certificate requests as kube reads them (certificates.ParseCSR and
 * x509.CertificateRequest.CheckSignature): the first PEM block must be a
 * CERTIFICATE REQUEST, its DER must parse, and its signature must verify
 * with its own public key. Errors carry Go's messages (encoding/asn1's for
 * the outer DER framing, crypto/x509's for signatures), since kube prints
 * them verbatim in field errors and Failed conditions. Parsing is
 * synchronous; the signature check needs WebCrypto and is asynchronous.
 */
import { Pkcs10CertificateRequest } from '@peculiar/x509';

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

/** encoding/asn1's message for the outer SEQUENCE of a CertificationRequest, or undefined when its framing holds. */
function outerFramingError(der: Uint8Array): string | undefined {
  if (der.length === 0) return 'asn1: syntax error: sequence truncated';
  const b0 = der[0]!;
  let offset = 1;
  let tag = b0 & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      if (offset >= der.length) return 'asn1: syntax error: truncated tag or length';
      const b = der[offset++]!;
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (offset >= der.length) return 'asn1: syntax error: truncated tag or length';
  let length = der[offset++]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0) return 'asn1: syntax error: indefinite length found (not DER)';
    length = 0;
    for (let i = 0; i < n; i++) {
      if (offset >= der.length) return 'asn1: syntax error: truncated tag or length';
      if (length >= 1 << 23) return 'asn1: structure error: length too large';
      const b = der[offset++]!;
      if (i === 0 && b === 0) return 'asn1: structure error: superfluous leading zeros in length';
      length = length * 256 + b;
    }
    if (length < 0x80) return 'asn1: structure error: non-minimal length';
  }
  const cls = b0 >> 6;
  const compound = (b0 & 0x20) !== 0;
  if (cls !== 0 || tag !== 16 || !compound) {
    const params = '{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}';
    return `asn1: structure error: tags don't match (16 vs {class:${cls} tag:${tag} length:${length} isCompound:${compound}}) ${params} certificateRequest @${offset}`;
  }
  if (offset + length > der.length) return 'asn1: syntax error: data truncated';
  if (offset + length < der.length) return 'asn1: syntax error: trailing data';
  return undefined;
}

/** certificates.ParseCSR: the request's first PEM block, parsed. Throws an Error with kube's message. */
export function parseCSR(pem: string): Pkcs10CertificateRequest {
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const framing = outerFramingError(block.bytes);
  if (framing) throw new Error(framing);
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
