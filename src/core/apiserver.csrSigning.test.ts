/**
 * Certificate signing requests end to end through handle(): the request's
 * PKCS#10 parse and signature check (422 with kube's causes), the
 * CertificateSubjectRestriction admission plugin (403 for system:masters),
 * and the csrsigning controller issuing certificates with the cluster
 * signing CA (or a Failed condition when the signer refuses).
 */
import { X509Certificate, SubjectAlternativeNameExtension, KeyUsagesExtension, ExtendedKeyUsageExtension, BasicConstraintsExtension } from '@peculiar/x509';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateClusterCA, type ClusterSigningCA } from './controllers/certificateAuthority';
import { newCertificateRequest, withBadSignature } from './testing/certificates';
import { newTestServer, rawApiControllers, type TestServer } from './testing/client';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const approved = { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' };
const denied = { type: 'Denied', status: 'True', reason: 'KubectlDeny', message: 'This CSR was denied by kubectl certificate deny.' };
const start = new Date('2026-01-01T00:00:00Z').getTime();

const csr = (name: string, request: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
});

/** Go's %#v of the request bytes, as kube prints the Invalid value. */
const goBytes = (text: string) => `[]byte{${[...text].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join(', ')}}`;

describe('CertificateSigningRequest spec.request', () => {
  let t: TestServer;
  let good: string;
  beforeAll(async () => {
    good = (await newCertificateRequest('CN=jane, O=dev')).pem;
  });
  beforeEach(async () => {
    t = await newTestServer();
  });

  const cases: [string, () => string, string][] = [
    ['not PEM', () => 'hello', 'PEM block type must be CERTIFICATE REQUEST'],
    ['a PEM block of another type', () => good.replaceAll('CERTIFICATE REQUEST', 'CERTIFICATE'), 'PEM block type must be CERTIFICATE REQUEST'],
    ['truncated DER', () => '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n', 'asn1: syntax error: truncated tag or length'],
    ['DER that is not a SEQUENCE', () => '-----BEGIN CERTIFICATE REQUEST-----\nAgEB\n-----END CERTIFICATE REQUEST-----\n',
      "asn1: structure error: tags don't match (16 vs {class:0 tag:2 length:1 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} certificateRequest @2"],
    ['a signature that does not verify', () => withBadSignature(good), 'x509: ECDSA verification failure'],
  ];
  it.each(cases)('%s -> 422 with the parse or signature error as the cause', async (_n, pem, message) => {
    const text = pem();
    const r = await t.json('POST', CSRS, { body: csr('bad', btoa(text)) });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name: 'bad', group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' } });
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: `Invalid value: ${goBytes(text)}: ${message}`, field: 'spec.request' }]);
    expect(r.body.message).toBe(`CertificateSigningRequest.certificates.k8s.io "bad" is invalid: spec.request: Invalid value: ${goBytes(text)}: ${message}`);
  });

  it('a request whose signature verifies is created; its error joins the others in field order', async () => {
    expect((await t.json('POST', CSRS, { body: csr('ok', btoa(good)) })).status).toBe(201);
    const bad = withBadSignature(good);
    const r = await t.json('POST', CSRS, { body: csr('two', btoa(bad), { usages: [] }) });
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.request', 'spec.usages']);
  });
});

describe('CertificateSubjectRestriction admission', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await newTestServer();
  });

  it('a kube-apiserver-client request for system:masters is Forbidden', async () => {
    const { request } = await newCertificateRequest('CN=mallory, O=dev, O=system:masters');
    const r = await t.json('POST', CSRS, { body: csr('masters', request) });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
      details: { name: 'masters', group: 'certificates.k8s.io', kind: 'certificatesigningrequests' },
    });
    expect((await t.json('GET', `${CSRS}/masters`)).status).toBe(404);
  });

  it('--disable-admission-plugins=CertificateSubjectRestriction lets the request in', async () => {
    const off = await newTestServer({ certificateSubjectRestriction: false });
    const { request } = await newCertificateRequest('CN=mallory, O=system:masters');
    expect((await off.json('POST', CSRS, { body: csr('masters', request) })).status).toBe(201);
  });

  it('other signers, and other groups, are left alone', async () => {
    const masters = await newCertificateRequest('CN=mallory, O=system:masters');
    expect((await t.json('POST', CSRS, { body: csr('other-signer', masters.request, { signerName: 'example.com/signer' }) })).status).toBe(201);
    const dev = await newCertificateRequest('CN=jane, O=system:admin');
    expect((await t.json('POST', CSRS, { body: csr('other-group', dev.request) })).status).toBe(201);
  });
});

describe('csrsigning controller', () => {
  let ca: ClusterSigningCA;
  let caCert: X509Certificate;
  let t: TestServer;
  beforeAll(async () => {
    ca = await generateClusterCA(new Date(start));
    caCert = new X509Certificate(ca.certificate);
  });
  beforeEach(async () => {
    t = await newTestServer({ controllers: [...rawApiControllers], clusterSigning: { ca } });
  });

  async function createAndDecide(name: string, request: string, spec: Record<string, unknown> = {}, condition: object = approved) {
    const created = await t.json('POST', CSRS, { body: csr(name, request, spec) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const decided = await t.json('PUT', `${CSRS}/${name}/approval`, { body: { ...created.body, status: { conditions: [condition] } } });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    return decided.body;
  }

  /** The request once the controller has issued it or marked it Failed: a watch from the approval's version, as a client waits. */
  async function settled(name: string) {
    const current = await t.json('GET', `${CSRS}/${name}`);
    const done = (o: { status?: { certificate?: string; conditions?: { type: string }[] } }) => !!o.status?.certificate || !!o.status?.conditions?.some((c) => c.type === 'Failed');
    if (done(current.body)) return current.body;
    const w = await t.watch(`${CSRS}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${current.body.metadata.resourceVersion}`);
    try {
      for (let e = await w.next(); e; e = await w.next()) if (done(e.object)) return e.object;
      throw new Error(`watch of ${name} ended`);
    } finally {
      w.close();
    }
  }

  it('[AC-AUTHN-021] an approved kube-apiserver-client request is issued a certificate signed by the cluster CA, with its subject and usages', async () => {
    const { request, keys } = await newCertificateRequest('CN=jane, O=dev, O=qa, E=jane@example.com');
    const before = await createAndDecide('jane', request, { expirationSeconds: 86400, usages: ['digital signature', 'client auth'] });
    const after = await settled('jane');
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    expect(after.status.conditions).toEqual(before.status.conditions);
    const pem = atob(after.status.certificate);
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
    const cert = new X509Certificate(pem);
    expect(await cert.verify({ publicKey: caCert.publicKey, signatureOnly: true })).toBe(true);
    expect(cert.issuer).toBe(caCert.subject);
    // Go's pkix.Name order: O before CN, both organizations in one RDN; the email attribute is not carried over.
    expect(cert.subjectName.toJSON()).toEqual([{ O: ['dev', 'qa'] }, { CN: ['jane'] }]);
    const spki = new Uint8Array(await crypto.subtle.exportKey('spki', keys.publicKey));
    expect(new Uint8Array(cert.publicKey.rawData)).toEqual(spki);
    expect(cert.getExtension(KeyUsagesExtension)).toMatchObject({ usages: 1, critical: true });
    expect(cert.getExtension(ExtendedKeyUsageExtension)?.usages).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.getExtension(BasicConstraintsExtension)).toMatchObject({ ca: false, critical: true });
    // 24h requested (not short): backdated 5 minutes at both ends.
    expect(cert.notBefore.getTime()).toBe(start - 5 * 60_000);
    expect(cert.notAfter.getTime()).toBe(start + 86400_000 - 5 * 60_000);
  });

  it('validity: the configured duration caps the request, a short one is not backdated at its end, the CA expiry clamps it', async () => {
    const a = await newCertificateRequest('CN=a');
    await createAndDecide('long', a.request);
    const long = new X509Certificate(atob((await settled('long')).status.certificate));
    // No expirationSeconds: a year, the CA's ten years do not bind.
    expect(long.notAfter.getTime()).toBe(start + 365 * 24 * 3600_000 - 5 * 60_000);
    await createAndDecide('short', a.request, { expirationSeconds: 3600 });
    const short = new X509Certificate(atob((await settled('short')).status.certificate));
    expect(short.notAfter.getTime() - short.notBefore.getTime()).toBe(3600_000 + 5 * 60_000);

    t.clock.advance(10 * 365 * 24 * 3600_000 - 24 * 3600_000);
    await createAndDecide('clamped', a.request, { expirationSeconds: 7 * 86400 });
    const clamped = new X509Certificate(atob((await settled('clamped')).status.certificate));
    expect(clamped.notAfter.getTime()).toBe(caCert.notAfter.getTime());
  });

  it('kubelet-serving: the node subject and SANs pass; the SANs are copied; a wrong organization gets a Failed condition', async () => {
    const node = await newCertificateRequest('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1' }, { type: 'ip', value: '10.0.0.1' }]);
    await createAndDecide('serving', node.request, { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] });
    const cert = new X509Certificate(atob((await settled('serving')).status.certificate));
    expect(cert.getExtension(SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([{ type: 'dns', value: 'n1' }, { type: 'ip', value: '10.0.0.1' }]);
    expect(cert.getExtension(ExtendedKeyUsageExtension)?.usages).toEqual(['1.3.6.1.5.5.7.3.1']);

    const stranger = await newCertificateRequest('CN=system:node:n2, O=dev', [{ type: 'dns', value: 'n2' }]);
    await createAndDecide('refused', stranger.request, { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] });
    const refused = await settled('refused');
    expect(refused.status.certificate).toBeUndefined();
    expect(refused.status.conditions).toEqual([
      expect.objectContaining({ type: 'Approved' }),
      { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'subject organization is not system:nodes', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
  });

  it.each([
    ['kubernetes.io/kube-apiserver-client', ['server auth'], 'invalid usage for client certificate: server auth'],
    ['kubernetes.io/kube-apiserver-client', ['digital signature'], 'missing required usage for client certificate: client auth'],
    ['kubernetes.io/kube-apiserver-client-kubelet', ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
  ])('%s with usages %j -> Failed: %s', async (signerName, usages, message) => {
    const req = await newCertificateRequest('CN=system:node:n1, O=system:nodes');
    await createAndDecide('refused', req.request, { signerName, usages });
    const got = await settled('refused');
    expect(got.status.conditions.at(-1)).toMatchObject({ type: 'Failed', reason: 'SignerValidationFailure', message });
    expect(got.status.certificate).toBeUndefined();
  });

  it('denied, unapproved and unknown-signer requests are not signed', async () => {
    const req = await newCertificateRequest('CN=jane, O=dev');
    await createAndDecide('denied', req.request, {}, denied);
    await createAndDecide('elsewhere', req.request, { signerName: 'example.com/signer' });
    expect((await t.json('POST', CSRS, { body: csr('pending', req.request) })).status).toBe(201);
    // A request approved after these three is signed: the controller has seen them all by then.
    await createAndDecide('witness', req.request);
    expect((await settled('witness')).status.certificate).toBeTruthy();
    for (const name of ['denied', 'elsewhere', 'pending']) {
      const got = await t.json('GET', `${CSRS}/${name}`);
      expect(got.body.status.certificate, name).toBeUndefined();
      expect(got.body.status.conditions?.some((c: { type: string }) => c.type === 'Failed') ?? false, name).toBe(false);
    }
  });
});

describe('csrsigning with a CA per signer', () => {
  it('each signer signs with its own CA; a signer without one leaves its requests alone', async () => {
    const clientCA = await generateClusterCA(new Date(start), 'client-ca');
    const t = await newTestServer({ controllers: [...rawApiControllers], clusterSigning: { signerCAs: { 'kubernetes.io/kube-apiserver-client': clientCA } } });
    const decide = async (name: string, request: string, spec: Record<string, unknown> = {}) => {
      const created = await t.json('POST', CSRS, { body: csr(name, request, spec) });
      const r = await t.json('PUT', `${CSRS}/${name}/approval`, { body: { ...created.body, status: { conditions: [approved] } } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.metadata.resourceVersion as string;
    };
    const node = await newCertificateRequest('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1' }]);
    await decide('serving', node.request, { signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] });
    const jane = await newCertificateRequest('CN=jane');
    const rv = await decide('jane', jane.request);
    const w = await t.watch(`${CSRS}?watch=1&fieldSelector=metadata.name%3Djane&resourceVersion=${rv}`);
    let issued: { status: { certificate: string } } | undefined;
    for (let e = await w.next(); e; e = await w.next()) {
      if (e.object.status?.certificate) {
        issued = e.object;
        break;
      }
    }
    w.close();
    const cert = new X509Certificate(atob(issued!.status.certificate));
    expect(cert.issuer).toBe('CN=client-ca');
    expect(await cert.verify({ publicKey: new X509Certificate(clientCA.certificate).publicKey, signatureOnly: true })).toBe(true);
    // The serving request was approved first and its signer has no CA: nothing was written to it.
    expect((await t.json('GET', `${CSRS}/serving`)).body.status).toEqual({ conditions: [expect.objectContaining({ type: 'Approved' })] });
  });
});
