/**
 * Client credential (exec) plugins as real kubectl runs them against the Node
 * host's TLS port: what the plugin is told (KUBERNETES_EXEC_INFO), what it may
 * answer (token, client certificate, expiry), how kubectl caches the answer,
 * and the kubeconfig errors it reports.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startTestHost, type RunResult, type TestHost } from './support/host';

let t: TestHost;
const dir = mkdtempSync(join(tmpdir(), 'kubesim-exec-'));
type Pem = { cert: string; private: string };
let clientCa: Pem;
let server = '';
let caData = '';
let runs = 0;

beforeAll(async () => {
  writeFileSync(join(dir, 'tokens.csv'), 'admintoken,kubesim-admin,a-1,system:masters\nalicetoken,alice,u-1,dev\n');
  clientCa = await generate([{ name: 'commonName', value: 'client-ca' }], { keySize: 2048, algorithm: 'sha256', extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true }] });
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.cert);
  t = await startTestHost({ tls: true, authn: { tokenAuthFile: join(dir, 'tokens.csv'), clientCaFile: join(dir, 'client-ca.crt') } });
  server = t.host.secureUrl!;
  caData = /certificate-authority-data: (\S+)/.exec(readFileSync(t.host.kubeconfigPath, 'utf8'))![1]!;
});
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A plugin that appends a line to `calls` each time it runs, saves its
 * KUBERNETES_EXEC_INFO, and prints the n-th answer (the last one repeats).
 */
function plugin(answers: unknown[]): { exec: Record<string, unknown>; calls: () => number; info: () => any } {
  const id = `p${runs++}`;
  const calls = join(dir, `${id}.calls`);
  writeFileSync(calls, '');
  answers.forEach((a, i) => writeFileSync(join(dir, `${id}.${i}.json`), typeof a === 'string' ? a : JSON.stringify(a)));
  const script = join(dir, `${id}.sh`);
  writeFileSync(script, `#!/bin/sh
echo run >> "${calls}"
n=$(wc -l < "${calls}")
i=$((n - 1)); [ $i -gt ${answers.length - 1} ] && i=${answers.length - 1}
printf '%s' "$KUBERNETES_EXEC_INFO" > "${dir}/${id}.info.json"
cat "${dir}/${id}.$i.json"
`);
  chmodSync(script, 0o755);
  return {
    exec: { apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never' },
    calls: () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length,
    info: () => JSON.parse(readFileSync(join(dir, `${id}.info.json`), 'utf8')),
  };
}

const credential = (status: Record<string, unknown>) => ({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status });

/** A kubeconfig whose user runs `exec`; `cluster` adds fields to the cluster entry. */
function kubeconfig(exec: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  const path = join(dir, `kc${runs++}.json`);
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'kubesim', cluster: { server, 'certificate-authority-data': caData, ...cluster } }],
    users: [{ name: 'plugin-user', user: { exec } }],
    contexts: [{ name: 'kubesim', context: { cluster: 'kubesim', user: 'plugin-user' } }],
    'current-context': 'kubesim',
  }));
  return path;
}

/** kubectl in a fresh home (no discovery cache), stdin not a terminal. */
function kubectl(config: string, args: string[]): Promise<RunResult> {
  return run('kubectl', [`--kubeconfig=${config}`, ...args], { HOME: mkdtempSync(join(dir, 'home-')) });
}

/** Several requests in one kubectl process: discovery, then three lists. */
const manyRequests = ['get', 'namespaces,configmaps,serviceaccounts', '-A', '-o', 'name'];
const whoami = ['auth', 'whoami', '-o', 'json'];

describe('what the plugin is told', () => {
  it('[AC-AUTHN-010] [AC-AUTHN-011] [AC-AUTHN-012] [AC-AUTHN-013] with provideClusterInfo: the server, its CA data and the cluster\'s exec extension; interactive follows stdin', async () => {
    const p = plugin([credential({ token: 'alicetoken' })]);
    const config = kubeconfig({ ...p.exec, provideClusterInfo: true, interactiveMode: 'IfAvailable' }, { extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { foo: 'bar' } }] });
    const r = await kubectl(config, whoami);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.userInfo.username).toBe('alice');
    expect(p.info()).toEqual({
      kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1',
      spec: { cluster: { server, 'certificate-authority-data': caData, config: { foo: 'bar' } }, interactive: false },
    });
    // With a terminal on stdin.
    const tty = await run('script', ['-qec', `kubectl --kubeconfig=${config} auth whoami`, '/dev/null'], { HOME: mkdtempSync(join(dir, 'home-')) });
    expect(tty.code, tty.stdout).toBe(0);
    expect(p.info().spec.interactive).toBe(true);
  });
});

describe('what the plugin may answer', () => {
  it('[AC-AUTHN-015] [AC-AUTHN-016] a client certificate and key authenticate over TLS; a certificate without its key is refused by kubectl', async () => {
    const pem = await generate([{ name: 'commonName', value: 'plugin-cert-user' }, { name: 'organizationName', value: 'plugin-team' }], {
      keySize: 2048, algorithm: 'sha256', ca: { key: clientCa.private, cert: clientCa.cert },
      extensions: [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', clientAuth: true }],
    });
    const both = plugin([credential({ clientCertificateData: pem.cert, clientKeyData: pem.private })]);
    const r = await kubectl(kubeconfig(both.exec), whoami);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: 'plugin-cert-user', groups: ['plugin-team', 'system:authenticated'] });
    const certOnly = plugin([credential({ clientCertificateData: pem.cert })]);
    const refused = await kubectl(kubeconfig(certOnly.exec), whoami);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toBe('Unable to connect to the server: getting credentials: exec plugin returned only certificate or key, not both\n');
  });

  it('[AC-AUTHN-017] [AC-AUTHN-135] an RFC 3339 expirationTimestamp: the credential serves every request until then; once past, the plugin runs again; a malformed one is an error', async () => {
    const future = plugin([credential({ token: 'alicetoken', expirationTimestamp: '2199-01-01T00:00:00Z' })]);
    const r = await kubectl(kubeconfig(future.exec), manyRequests);
    expect(r.code, r.stderr).toBe(0);
    expect(future.calls()).toBe(1);
    const past = plugin([credential({ token: 'alicetoken', expirationTimestamp: '2001-01-01T00:00:00Z' })]);
    expect((await kubectl(kubeconfig(past.exec), manyRequests)).code).toBe(0);
    expect(past.calls()).toBeGreaterThan(1);
    const malformed = plugin([credential({ token: 'alicetoken', expirationTimestamp: 'next tuesday' })]);
    const bad = await kubectl(kubeconfig(malformed.exec), whoami);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('decoding stdout');
  });

  it('[AC-AUTHN-136] without an expiry the credential is kept for the process until the server answers 401', async () => {
    const steady = plugin([credential({ token: 'alicetoken' })]);
    expect((await kubectl(kubeconfig(steady.exec), manyRequests)).code).toBe(0);
    expect(steady.calls()).toBe(1);
    // The first answer is refused with 401: the plugin is asked again.
    const stale = plugin([credential({ token: 'revoked-token' }), credential({ token: 'alicetoken' })]);
    await kubectl(kubeconfig(stale.exec), manyRequests);
    expect(stale.calls()).toBeGreaterThanOrEqual(2);
  });
});

describe('exec configuration kubectl checks', () => {
  it('[AC-AUTHN-124] [AC-AUTHN-130] [AC-AUTHN-132] [AC-AUTHN-133] apiVersion is required, interactiveMode is Never, IfAvailable or Always (IfAvailable when v1beta1 leaves it out), and Always needs a terminal', async () => {
    const p = plugin([credential({ token: 'alicetoken' })]);
    const noVersion = await kubectl(kubeconfig({ ...p.exec, apiVersion: undefined }), whoami);
    expect(noVersion.code).not.toBe(0);
    expect(noVersion.stderr).toBe('error: apiVersion must be specified for plugin-user to use exec authentication plugin\n');
    const sometimes = await kubectl(kubeconfig({ ...p.exec, interactiveMode: 'Sometimes' }), whoami);
    expect(sometimes.code).not.toBe(0);
    expect(sometimes.stderr).toBe('error: invalid interactiveMode for plugin-user: "Sometimes"\n');
    expect(p.calls()).toBe(0);
    const beta = plugin([{ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'alicetoken' } }]);
    const v1beta1 = await kubectl(kubeconfig({ apiVersion: 'client.authentication.k8s.io/v1beta1', command: beta.exec['command'] }), whoami);
    expect(v1beta1.stderr).toBe('');
    expect(beta.info().spec.interactive).toBe(false);
    const always = plugin([credential({ token: 'alicetoken' })]);
    const noTty = await kubectl(kubeconfig({ ...always.exec, interactiveMode: 'Always' }), whoami);
    expect(noTty.code).not.toBe(0);
    expect(noTty.stderr).toBe('Unable to connect to the server: getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal\n');
    expect(always.calls()).toBe(0);
  });
});
