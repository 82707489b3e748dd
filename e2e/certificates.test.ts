/**
 * kubectl 1.32 `certificate approve` and `deny` against the Node host: the
 * PUT to certificatesigningrequests/{name}/approval, kubectl's own refusals,
 * and with --authorization-mode=RBAC the CertificateApproval plugin's
 * `approve` check on `signers`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';
import { testCertificateRequestPem } from '../src/core/testing/certificates';
import { run, startTestHost, type TestHost } from './support/host';

const request = Buffer.from(testCertificateRequestPem).toString('base64');
const csrYaml = (name: string, signer = 'example.com/signer') =>
  `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${name}\nspec:\n  request: ${request}\n  signerName: ${signer}\n  usages: [client auth]\n`;

describe('kubectl certificate', () => {
  let h: TestHost;
  beforeAll(async () => {
    h = await startTestHost();
  });
  afterAll(() => h?.stop());

  it('[API-VER-145] approve and deny write the condition through /approval; kubectl refuses to flip a decided request', async () => {
    expect((await h.kubectl(['create', '-f', '-'], csrYaml('c1') + '---\n' + csrYaml('c2'))).code).toBe(0);
    const approve = await h.kubectl(['certificate', 'approve', 'c1']);
    expect([approve.code, approve.stdout.trim()], approve.stderr).toEqual([0, 'certificatesigningrequest.certificates.k8s.io/c1 approved']);
    const deny = await h.kubectl(['certificate', 'deny', 'c2']);
    expect([deny.code, deny.stdout.trim()], deny.stderr).toEqual([0, 'certificatesigningrequest.certificates.k8s.io/c2 denied']);

    const got = await fetch(`${h.host.url}/apis/certificates.k8s.io/v1/certificatesigningrequests/c1`);
    const c1 = (await got.json()) as { status: { conditions: Record<string, string>[] } };
    expect(c1.status.conditions).toHaveLength(1);
    expect(c1.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' });
    expect(c1.status.conditions[0]!.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const list = await h.kubectl(['get', 'csr', '-o', 'custom-columns=NAME:.metadata.name,CONDITION:.status.conditions[*].type', '--no-headers']);
    expect(list.stdout.trim().split('\n').map((l) => l.split(/\s+/))).toEqual([['c1', 'Approved'], ['c2', 'Denied']]);
    const flip = await h.kubectl(['certificate', 'approve', 'c2']);
    expect([flip.code, flip.stderr.trim()]).toEqual([1, 'error: certificate signing request "c2" is already Denied']);
  });
});

describe('kubectl certificate approve with RBAC', () => {
  let host: RunningHost;
  let dir: string;
  const kubectl = (token: string, args: string[], input?: string) => run('kubectl', [`--token=${token}`, ...args], { HOME: join(dir, 'home'), KUBECONFIG: host.kubeconfigPath }, input);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubesim-csr-'));
    writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,1,system:masters\nbob-token,bob,2\n');
    host = await startHost({
      // Over TLS: kubectl sends bearer tokens only to an https server.
      port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'data'), store: 'memory', tls: true, securePort: 0, help: false,
      authorizationModes: 'RBAC', authn: { tokenAuthFile: join(dir, 'tokens.csv') },
    });
    const admin = (args: string[], input?: string) => kubectl('admin-token', args, input);
    expect((await admin(['create', '-f', '-'], csrYaml('team-a', 'example.com/team-a') + '---\n' + csrYaml('team-b', 'other.example/team-b'))).code).toBe(0);
    // `signers` is not a served resource, so kubectl create clusterrole cannot name it: the rule goes in as YAML.
    const signerRole = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: signer-a\nrules:\n- apiGroups: [certificates.k8s.io]\n  resources: [signers]\n  resourceNames: [example.com/*]\n  verbs: [approve]\n';
    expect((await admin(['create', '-f', '-'], signerRole)).code).toBe(0);
    for (const args of [
      ['create', 'clusterrole', 'csr-approver', '--verb=get,list,update', '--resource=certificatesigningrequests,certificatesigningrequests/approval'],
      ['create', 'clusterrolebinding', 'bob-csr-approver', '--clusterrole=csr-approver', '--user=bob'],
      ['create', 'clusterrolebinding', 'bob-signer-a', '--clusterrole=signer-a', '--user=bob'],
    ]) {
      const r = await admin(args);
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await host?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('[AC-AUTHZ-002] approval needs `approve` on the signer (here its domain wildcard); otherwise the plugin forbids it', async () => {
    // The requestor is who created the request (spec.username from the token's user).
    const requestor = await kubectl('admin-token', ['get', 'csr', 'team-a', '-o', 'jsonpath={.spec.username} {.spec.groups}']);
    expect(requestor.stdout).toBe('admin ["system:masters","system:authenticated"]');
    const a = await kubectl('bob-token', ['certificate', 'approve', 'team-a']);
    expect([a.code, a.stdout.trim()], a.stderr).toEqual([0, 'certificatesigningrequest.certificates.k8s.io/team-a approved']);
    const b = await kubectl('bob-token', ['certificate', 'approve', 'team-b']);
    expect(b.code).toBe(1);
    expect(b.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "team-b" is forbidden: user not permitted to approve requests with signerName "other.example/team-b"',
    );
  });
});
