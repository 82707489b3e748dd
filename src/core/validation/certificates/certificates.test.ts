/** CertificateSigningRequest validation as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { testCertificatePem, testCertificateRequestPem } from '../../testing/certificates';
import { errorsOf } from '../testing';

const g = 'certificates.k8s.io';
const request = btoa(testCertificateRequestPem);
const csr = (spec: Record<string, unknown>) => ({ spec: { request, signerName: 'example.com/signer', usages: ['client auth'], ...spec } });
const goBytes = (text: string) => `[]byte{${[...text].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join(', ')}}`;
const cert = (type: string) => btoa(testCertificatePem.replaceAll('CERTIFICATE', type));

describe('CertificateSigningRequest', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', csr({}), []],
    ['API-VER-142: signerName required', csr({ signerName: undefined }), ['spec.signerName: Required value']],
    ['API-VER-143: usages required', csr({ usages: undefined }), ['spec.usages: Required value']],
    ['API-VER-143: duplicate and unknown usages', csr({ usages: ['client auth', 'client auth', 'flying'] }), [
      'spec.usages[2]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
      'spec.usages[1]: Duplicate value: "client auth"',
    ]],
    ['API-VER-144: the legacy-unknown signer', csr({ signerName: 'kubernetes.io/legacy-unknown' }), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
    ['signer without a path', csr({ signerName: 'signer' }), ["spec.signerName: Invalid value: \"signer\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['short expiration', csr({ expirationSeconds: 60 }), ['spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)']],
    ['no request', csr({ request: undefined }), ['spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST']],
    ['not a CSR PEM', csr({ request: btoa('hi') }), ['spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST']],
    ['DER that stops inside its length', csr({ request: btoa('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n') }), [
      `spec.request: Invalid value: ${goBytes('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n')}: asn1: syntax error: truncated tag or length`,
    ]],
    ['DER shorter than its length', csr({ request: btoa('-----BEGIN CERTIFICATE REQUEST-----\nMAUCAQ==\n-----END CERTIFICATE REQUEST-----\n') }), [
      `spec.request: Invalid value: ${goBytes('-----BEGIN CERTIFICATE REQUEST-----\nMAUCAQ==\n-----END CERTIFICATE REQUEST-----\n')}: asn1: syntax error: data truncated`,
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'certificatesigningrequests', obj)).toEqual(want));

  it('API-VER-145: approval conditions are unique by type and need a status', () => {
    const approve = (conditions: unknown[]) => errorsOf(g, 'certificatesigningrequests', { ...csr({}), status: { conditions } }, csr({}), 'approval');
    expect(approve([{ type: 'Approved', status: 'True' }])).toEqual([]);
    expect(approve([{ type: 'Approved', status: 'True' }, { type: 'Approved', status: 'True' }])).toEqual(['status.conditions[1].type: Duplicate value: "Approved"']);
    expect(approve([{ type: 'Approved' }])).toEqual(['status.conditions[0].status: Required value']);
    expect(errorsOf(g, 'certificatesigningrequests', { ...csr({}), status: { conditions: [{ type: 'Approved', status: 'True' }] } }, csr({}))).toEqual([
      'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    ]);
  });

  it('API-VER-146: the issued certificate holds only CERTIFICATE blocks, set through status', () => {
    const status = (certificate: string) => errorsOf(g, 'certificatesigningrequests', { ...csr({}), status: { certificate } }, csr({}), 'status');
    expect(status(cert('CERTIFICATE'))).toEqual([]);
    expect(status(cert('PRIVATE KEY'))).toEqual(['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
    expect(status(btoa('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'))).toEqual(['status.certificate: Invalid value: "<certificate data>": x509: malformed certificate']);
    expect(errorsOf(g, 'certificatesigningrequests', { ...csr({}), status: { certificate: cert('CERTIFICATE') } }, csr({}))).toEqual([
      'status.certificate: Forbidden: updates may not set certificate content',
    ]);
  });
});

describe('ClusterTrustBundle', () => {
  const bundle = cert('CERTIFICATE');
  const ctb = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec: { trustBundle: atob(bundle), ...spec } });
  it('names follow the signer; the bundle is CERTIFICATE blocks without duplicates', () => {
    expect(errorsOf(g, 'clustertrustbundles', ctb('roots', {}))).toEqual([]);
    expect(errorsOf(g, 'clustertrustbundles', ctb('example.com:signer:roots', { signerName: 'example.com/signer' }))).toEqual([]);
    expect(errorsOf(g, 'clustertrustbundles', ctb('roots', { signerName: 'example.com/signer' }))).toEqual([
      'metadata.name: Invalid value: "roots": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:',
    ]);
    expect(errorsOf(g, 'clustertrustbundles', ctb('roots', { trustBundle: atob(bundle) + atob(bundle) + atob(cert('PRIVATE KEY')) }))).toEqual([
      'spec.trustBundle: Invalid value: "<value omitted>": entry 2 has bad block type: PRIVATE KEY',
      'spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])',
    ]);
    expect(errorsOf(g, 'clustertrustbundles', ctb('roots', { trustBundle: '' }))).toEqual(['spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided']);
  });
});
