/**
 * CertificateSigningRequests through handle(): the /approval and /status
 * subresources with kube's strategies (each writes its own part of the
 * object, conditions get their timestamps) and validation, and the
 * CertificateApproval admission plugin (the `approve` verb on `signers`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { authorizerFromModes } from './auth/authorizer/modes';
import { asUser, headerAuthenticator } from './auth/authorizer/testing';
import { testCertificatePem, testCertificateRequestPem } from './testing/certificates';
import { newTestServer, type TestServer } from './testing/client';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const request = btoa(testCertificateRequestPem);
const certificate = btoa(testCertificatePem);
const csr = (name: string, signerName = 'example.com/signer') => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request, signerName, usages: ['client auth'] },
});
const approved = { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' };
const denied = { type: 'Denied', status: 'True', reason: 'KubectlDeny', message: 'This CSR was denied by kubectl certificate deny.' };

type Csr = ReturnType<typeof csr> & { status?: { conditions?: Record<string, string>[]; certificate?: string }; metadata: { resourceVersion?: string } };

describe('CertificateSigningRequest subresources', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await newTestServer();
  });

  async function create(name: string): Promise<Csr> {
    const r = await t.json('POST', CSRS, { body: csr(name) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  }

  it('[API-VER-145] PUT /approval adds the condition with timestamps; only the conditions change', async () => {
    const stored = await create('c1');
    const body = { ...stored, spec: { ...stored.spec, usages: ['server auth'] }, status: { conditions: [approved], certificate } };
    const r = await t.json('PUT', `${CSRS}/c1/approval`, { body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.spec.usages).toEqual(['client auth']);
    expect(r.body.status).toEqual({ conditions: [{ ...approved, lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(Number(stored.metadata.resourceVersion));
    const got = await t.json('GET', `${CSRS}/c1/approval`);
    expect(got.body.status.conditions[0].type).toBe('Approved');
  });

  it('[API-VER-145] Approved and Denied are exclusive, each type once, with status True', async () => {
    const stored = await create('c2');
    const put = (conditions: unknown[]) => t.json('PUT', `${CSRS}/c2/approval`, { body: { ...stored, status: { conditions } } });
    const both = await put([approved, denied]);
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({
      reason: 'Invalid',
      message: 'CertificateSigningRequest.certificates.k8s.io "c2" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      details: { name: 'c2', group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', causes: [{ reason: 'FieldValueInvalid', field: 'status.conditions[1].type' }] },
    });
    expect((await put([approved, approved])).body.details.causes).toEqual([{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "Approved"', field: 'status.conditions[1].type' }]);
    expect((await put([{ ...approved, status: 'False' }])).body.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "False": supported values: "True"', field: 'status.conditions[0].status' },
    ]);
  });

  it('an approved request cannot lose its condition; the main resource keeps spec and status as stored', async () => {
    const stored = await create('c3');
    const ok = await t.json('PUT', `${CSRS}/c3/approval`, { body: { ...stored, status: { conditions: [approved] } } });
    const removed = await t.json('PUT', `${CSRS}/c3/approval`, { body: { ...ok.body, status: { conditions: [] } } });
    expect(removed.status).toBe(422);
    expect(removed.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', message: 'Forbidden: updates may not remove a condition of type "Approved"', field: 'status.conditions' }]);
    const main = await t.json('PUT', `${CSRS}/c3`, { body: { ...ok.body, metadata: { ...ok.body.metadata, labels: { a: 'b' } }, spec: { ...ok.body.spec, usages: ['server auth'] }, status: {} } });
    expect(main.status).toBe(200);
    expect([main.body.metadata.labels, main.body.spec.usages, main.body.status.conditions.length]).toEqual([{ a: 'b' }, ['client auth'], 1]);
  });

  it('[API-VER-146] PUT /status sets the certificate and keeps the stored approval conditions', async () => {
    const stored = await create('c4');
    const ok = await t.json('PUT', `${CSRS}/c4/approval`, { body: { ...stored, status: { conditions: [approved] } } });
    const at = ok.body.status.conditions[0];
    t.clock.advance(5000);
    const issued = await t.json('PUT', `${CSRS}/c4/status`, { body: { ...ok.body, status: { certificate, conditions: [{ ...approved, message: 'rewritten' }] } } });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.status).toEqual({ certificate, conditions: [at] });
    const again = await t.json('PUT', `${CSRS}/c4/status`, { body: { ...issued.body, status: { ...issued.body.status, certificate: btoa(testCertificatePem + testCertificatePem) } } });
    expect(again.status).toBe(422);
    expect(again.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', message: 'Forbidden: updates may not modify existing certificate content', field: 'status.certificate' }]);
  });

  it('PATCH /approval (merge patch) approves; other verbs on /approval are 405', async () => {
    await create('c5');
    const r = await t.json('PATCH', `${CSRS}/c5/approval`, { body: JSON.stringify({ status: { conditions: [denied] } }), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status.conditions.map((c: { type: string }) => c.type)).toEqual(['Denied']);
    const del = await t.json('DELETE', `${CSRS}/c5/approval`);
    expect(del.status).toBe(405);
    expect(del.body).toMatchObject({ reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', code: 405 });
  });
});

describe('CertificateApproval admission', () => {
  const admin = asUser('root', 'system:masters');
  let t: TestServer;
  beforeEach(async () => {
    t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) });
    expect((await t.json('POST', CSRS, { body: csr('r1', 'example.com/team-a'), headers: admin })).status).toBe(201);
    // approver may update CSR approvals, but is bound to approve only for some signers.
    const rules = (signers: string[]) => [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] },
      ...(signers.length ? [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: signers, verbs: ['approve'] }] : []),
    ];
    for (const [name, signers] of [['no-signers', []], ['one-signer', ['example.com/team-a']], ['domain', ['example.com/*']]] as const) {
      await t.json('POST', `${RBAC}/clusterroles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: rules([...signers]) }, headers: admin });
      await t.json('POST', `${RBAC}/clusterrolebindings`, {
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name }] },
        headers: admin,
      });
    }
  });

  const approve = async (user: string) => {
    const stored = (await t.json('GET', `${CSRS}/r1`, { headers: admin })).body;
    return t.json('PUT', `${CSRS}/r1/approval`, { body: { ...stored, status: { conditions: [approved] } }, headers: asUser(user) });
  };

  it('a create records the requesting user in spec, whatever the body says', async () => {
    const body = { ...csr('who'), spec: { ...csr('who').spec, username: 'mallory', groups: ['system:masters'] } };
    const r = await t.json('POST', CSRS, { body, headers: admin });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ username: 'root', groups: ['system:masters', 'system:authenticated'] });
    expect(r.body.status).toEqual({});
  });

  it('[AC-AUTHZ-002] without `approve` on the signer the write is Forbidden by the plugin', async () => {
    const r = await approve('no-signers');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'certificatesigningrequests.certificates.k8s.io "r1" is forbidden: user not permitted to approve requests with signerName "example.com/team-a"',
      details: { name: 'r1', group: 'certificates.k8s.io', kind: 'certificatesigningrequests' },
    });
  });

  it.each(['one-signer', 'domain', 'root'])('%s may approve (the signer by name, or its domain wildcard)', async (user) => {
    const r = user === 'root' ? await t.json('PUT', `${CSRS}/r1/approval`, { body: { ...(await t.json('GET', `${CSRS}/r1`, { headers: admin })).body, status: { conditions: [approved] } }, headers: admin }) : await approve(user);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('CertificateSigning: issuing through /status needs `sign` on the signer; an unchanged status needs nothing', async () => {
    await t.json('POST', `${RBAC}/clusterroles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'status-writer' }, rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] }] }, headers: admin });
    for (const user of ['no-signers', 'one-signer']) {
      await t.json('POST', `${RBAC}/clusterrolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${user}-status` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'status-writer' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }] }, headers: admin });
    }
    // one-signer holds `approve`, not `sign`: add a signer role for `sign` to a third user through the admin.
    await t.json('POST', `${RBAC}/clusterroles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'signer' }, rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['sign'] }] }, headers: admin });
    await t.json('POST', `${RBAC}/clusterrolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'one-signer-sign' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'signer' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'one-signer' }] }, headers: admin });
    const stored = (await t.json('GET', `${CSRS}/r1`, { headers: admin })).body;
    const issue = (user: string) => t.json('PUT', `${CSRS}/r1/status`, { body: { ...stored, status: { certificate } }, headers: asUser(user) });
    const unchanged = await t.json('PUT', `${CSRS}/r1/status`, { body: stored, headers: asUser('no-signers') });
    expect(unchanged.status, JSON.stringify(unchanged.body)).toBe(200);
    const refused = await issue('no-signers');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('certificatesigningrequests.certificates.k8s.io "r1" is forbidden: user not permitted to sign requests with signerName "example.com/team-a"');
    const issued = await issue('one-signer');
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.status.certificate).toBe(certificate);
  });
});
