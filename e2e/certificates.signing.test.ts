/**
 * The "give a user a client certificate" tutorial against the Node host with
 * only --tls: openssl makes a key and a request, kubectl applies a
 * CertificateSigningRequest for kubernetes.io/kube-apiserver-client and
 * approves it, the csrsigning controller issues the certificate with the
 * generated cluster CA (--data-dir/pki/ca.crt, also the default
 * --client-ca-file), and kubectl then authenticates as that user over HTTPS;
 * RBAC decides what the user may do. The CA survives a restart.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../server/flags';
import { startHost, type RunningHost } from '../server/host';
import { run, type RunResult } from './support/host';

let dir: string;
let host: RunningHost;
const path = (name: string) => join(dir, name);
const openssl = (args: string[]) => run('openssl', args, {});
const kubectl = (args: string[], input?: string) => run('kubectl', args, { HOME: path('home'), KUBECONFIG: path('kubeconfig') }, input);

const start = () => startHost({ ...parseFlags(['--tls', '--port=0', '--secure-port=0', '--store=sqlite', '--authorization-mode=RBAC', `--data-dir=${path('data')}`]) });

function ok(r: RunResult): string {
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const csrYaml = (name: string, request: string, extra = '') => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${request}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages:
  - client auth
${extra}`;

async function certificateOf(name: string): Promise<string> {
  // The controller signs on the approval's watch event; kubectl reads until it is there, as a user would.
  for (let i = 0; i < 200; i++) {
    const out = ok(await kubectl(['get', 'csr', name, '-o', 'jsonpath={.status.certificate}']));
    if (out) return out;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no certificate issued for ${name}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesim-csr-signing-'));
  host = await start();
  writeFileSync(path('kubeconfig'), readFileSync(host.kubeconfigPath));
  ok(await openssl(['genrsa', '-out', path('jane.key'), '2048']));
  ok(await openssl(['req', '-new', '-key', path('jane.key'), '-subj', '/CN=jane/O=dev', '-out', path('jane.csr')]));
});
afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a client certificate for a new user, through a CertificateSigningRequest', () => {
  it('[AC-AUTHN-021] [AC-AUTHN-028] [AC-AUTHN-029] apply, approve, read the certificate, and kubectl authenticates as jane (groups dev) over HTTPS', async () => {
    const request = readFileSync(path('jane.csr')).toString('base64');
    expect(ok(await kubectl(['apply', '-f', '-'], csrYaml('jane', request))).trim()).toBe('certificatesigningrequest.certificates.k8s.io/jane created');
    expect(ok(await kubectl(['certificate', 'approve', 'jane'])).trim()).toBe('certificatesigningrequest.certificates.k8s.io/jane approved');
    writeFileSync(path('jane.crt'), Buffer.from(await certificateOf('jane'), 'base64'));
    expect(ok(await kubectl(['get', 'csr', 'jane', '--no-headers']))).toMatch(/^jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubesim-admin\s+24h\s+Approved,Issued\s*$/);

    // openssl, independently: signed by the cluster CA, jane's subject, client auth only, a day long.
    expect(ok(await openssl(['verify', '-CAfile', path('data/pki/ca.crt'), path('jane.crt')])).trim()).toBe(`${path('jane.crt')}: OK`);
    const text = ok(await openssl(['x509', '-in', path('jane.crt'), '-noout', '-subject', '-issuer', '-ext', 'extendedKeyUsage,keyUsage,basicConstraints', '-startdate', '-enddate']));
    expect(text).toMatch(/^subject=O ?= ?dev, CN ?= ?jane$/m);
    expect(text).toMatch(/^issuer=CN ?= ?kubernetes$/m);
    expect(text).toMatch(/X509v3 Extended Key Usage: \n\s+TLS Web Client Authentication\n/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
    const notBefore = Date.parse(text.match(/notBefore=(.*)/)![1]!);
    const notAfter = Date.parse(text.match(/notAfter=(.*)/)![1]!);
    expect(notAfter - notBefore).toBe(86400_000);
    const keyModulus = ok(await openssl(['rsa', '-in', path('jane.key'), '-noout', '-modulus']));
    expect(ok(await openssl(['x509', '-in', path('jane.crt'), '-noout', '-modulus']))).toBe(keyModulus);

    // The tutorial's kubeconfig user and context.
    const cluster = ok(await kubectl(['config', 'view', '-o', 'jsonpath={.clusters[0].name}']));
    ok(await kubectl(['config', 'set-credentials', 'jane', `--client-key=${path('jane.key')}`, `--client-certificate=${path('jane.crt')}`, '--embed-certs=true']));
    ok(await kubectl(['config', 'set-context', 'jane', `--cluster=${cluster}`, '--user=jane']));
    const whoami = await kubectl(['--context=jane', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}']);
    expect([whoami.code, whoami.stdout], whoami.stderr).toEqual([0, 'jane ["dev","system:authenticated"]']);

    // RBAC decides: nothing yet, then what a RoleBinding to the dev group grants.
    const denied = await kubectl(['--context=jane', 'get', 'pods']);
    expect([denied.code, denied.stderr.trim()]).toEqual([1, 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"']);
    ok(await kubectl(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']));
    ok(await kubectl(['create', 'rolebinding', 'dev-pod-reader', '--role=pod-reader', '--group=dev']));
    const allowed = await kubectl(['--context=jane', 'get', 'pods']);
    expect([allowed.code, allowed.stderr.trim()]).toEqual([0, 'No resources found in default namespace.']);
  });

  it('a request for system:masters is refused by CertificateSubjectRestriction; one with a broken signature is invalid', async () => {
    ok(await openssl(['req', '-new', '-key', path('jane.key'), '-subj', '/CN=root/O=system:masters', '-out', path('root.csr')]));
    const masters = await kubectl(['create', '-f', '-'], csrYaml('root', readFileSync(path('root.csr')).toString('base64')));
    expect([masters.code, masters.stderr.trim()]).toEqual([1, 'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed']);

    const raw = Buffer.from(readFileSync(path('jane.csr'), 'utf8').replace(/-----[^-]+-----|\s+/g, ''), 'base64');
    raw[raw.length - 1] ^= 1;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${raw.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    const bad = await kubectl(['create', '-f', '-'], csrYaml('tampered', Buffer.from(tampered).toString('base64')));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^The CertificateSigningRequest "tampered" is invalid: spec\.request: Invalid value: \[\]byte\{0x2d, [^}]+\}: crypto\/rsa: verification error\n$/);
  });

  it('a request the signer refuses gets a Failed condition and no certificate', async () => {
    const request = readFileSync(path('jane.csr')).toString('base64');
    ok(await kubectl(['create', '-f', '-'], csrYaml('server', request).replace('  - client auth\n', '  - client auth\n  - server auth\n')));
    ok(await kubectl(['certificate', 'approve', 'server']));
    let failed = '';
    for (let i = 0; i < 200 && !failed; i++) {
      failed = ok(await kubectl(['get', 'csr', 'server', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].message}']));
      if (!failed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(failed).toBe('invalid usage for client certificate: server auth');
    expect(ok(await kubectl(['get', 'csr', 'server', '-o', 'jsonpath={.status.certificate}']))).toBe('');
    const row = ok(await kubectl(['get', 'csr', 'server', '--no-headers']));
    expect(row).toMatch(/^server\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+\S+\s+24h\s+Approved,Failed\s*$/);
  });

  it('a restart reuses the cluster CA: the issued certificate still authenticates', async () => {
    const ca = readFileSync(path('data/pki/ca.crt'), 'utf8');
    await host.close();
    host = await start();
    expect(readFileSync(path('data/pki/ca.crt'), 'utf8')).toBe(ca);
    // The new host listens on another port: point the cluster entry at it.
    const cluster = ok(await kubectl(['config', 'view', '-o', 'jsonpath={.clusters[0].name}']));
    ok(await kubectl(['config', 'set-cluster', cluster, `--server=${host.secureUrl}`]));
    const whoami = await kubectl(['--context=jane', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect([whoami.code, whoami.stdout], whoami.stderr).toEqual([0, 'jane']);
  });
});
