/**
 * `kubesim run --kubeconfig` against the Node host's TLS port with client
 * certificate authentication (--client-ca-file): the kubeconfig's
 * certificate and key, inline or as files next to it, the cluster's
 * authority or insecure-skip-tls-verify, and a bearer token from tokenFile.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioCommand } from '../server/scenario';
import { startTestHost, type TestHost } from './support/host';

type Pem = { cert: string; private: string };
let host: TestHost;
let server: string;
let caData: string;
let runner: Pem;
const dir = mkdtempSync(join(tmpdir(), 'kubesim-e2e-scenario-tls-'));
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(async () => {
  const clientCa = await generate([{ name: 'commonName', value: 'scenario-client-ca' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true, critical: true }],
  });
  runner = await generate([{ name: 'commonName', value: 'scenario-runner' }, { name: 'organizationName', value: 'system:masters' }], {
    keySize: 2048,
    algorithm: 'sha256',
    ca: { key: clientCa.private, cert: clientCa.cert },
    extensions: [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', clientAuth: true }],
  });
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.cert);
  writeFileSync(join(dir, 'tokens.csv'), 'file-token,token-runner,t-1,system:masters\n');
  host = await startTestHost({ tls: true, authn: { clientCaFile: join(dir, 'client-ca.crt'), tokenAuthFile: join(dir, 'tokens.csv') } });
  const written = readFileSync(host.host.kubeconfigPath, 'utf8');
  server = /server: (\S+)/.exec(written)![1]!;
  caData = /certificate-authority-data: (\S+)/.exec(written)![1]!;
  expect(server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
});
afterAll(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(name: string, cluster: string, user: string): string {
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${server}\n${cluster}contexts:\n- name: ctx\n  context: { cluster: c, user: u }\ncurrent-context: ctx\nusers:\n- name: u\n  user:\n${user}`,
  );
  return path;
}

const scenario = join(dir, 'whoami.yaml');
writeFileSync(
  scenario,
  `name: who runs it
objects:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: from-tls-scenario, namespace: default } }
steps:
  - request: POST /apis/authentication.k8s.io/v1/selfsubjectreviews
    body: { apiVersion: authentication.k8s.io/v1, kind: SelfSubjectReview }
    expect: { status: 201, body: { status: { userInfo: { username: scenario-runner } } } }
  - as: { user: alice, groups: [dev] }
    request: GET /api/v1/namespaces/default/configmaps/from-tls-scenario
    expect: { status: 200 }
  - as: { user: bob, groups: [dev, ops] }
    request: POST /apis/authentication.k8s.io/v1/selfsubjectreviews
    body: { apiVersion: authentication.k8s.io/v1, kind: SelfSubjectReview }
    expect: { status: 201, body: { status: { userInfo: { username: bob, groups: [dev, ops, "system:authenticated"] } } } }
`,
);

async function run(config: string, file = scenario): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runScenarioCommand(['--kubeconfig', config, file], { write: (l) => lines.push(l) });
  return { code, lines };
}

describe('kubesim run --kubeconfig with TLS and client certificates', () => {
  it('[AC-AUTHN-021] [AC-AUTHN-027] client-certificate-data and client-key-data, verified with certificate-authority-data: the certificate CN is the user; as: users with several groups are impersonated', async () => {
    const config = kubeconfig('inline', `    certificate-authority-data: ${caData}\n`, `    client-certificate-data: ${b64(runner.cert)}\n    client-key-data: ${b64(runner.private)}\n`);
    expect(await run(config)).toEqual({
      code: 0,
      lines: [
        'scenario: who runs it',
        'PASS step 1: POST /apis/authentication.k8s.io/v1/selfsubjectreviews -> 201',
        'PASS step 2: GET /api/v1/namespaces/default/configmaps/from-tls-scenario as alice -> 200',
        'PASS step 3: POST /apis/authentication.k8s.io/v1/selfsubjectreviews as bob -> 201',
        '3 passed, 0 failed',
      ],
    });
  });

  it('[AC-AUTHN-021] client-certificate, client-key and certificate-authority as files relative to the kubeconfig', async () => {
    writeFileSync(join(dir, 'runner.crt'), runner.cert);
    writeFileSync(join(dir, 'runner.key'), runner.private);
    writeFileSync(join(dir, 'cluster-ca.crt'), Buffer.from(caData, 'base64'));
    const config = kubeconfig('files', '    certificate-authority: cluster-ca.crt\n', '    client-certificate: runner.crt\n    client-key: runner.key\n');
    const { code, lines } = await run(config);
    expect(lines.at(-1)).toBe('3 passed, 0 failed');
    expect(code).toBe(0);
  });

  it('insecure-skip-tls-verify connects without the authority; without either the serving certificate is refused', async () => {
    const user = `    client-certificate-data: ${b64(runner.cert)}\n    client-key-data: ${b64(runner.private)}\n`;
    const insecure = await run(kubeconfig('insecure', '    insecure-skip-tls-verify: true\n', user));
    expect(insecure.lines.at(-1)).toBe('3 passed, 0 failed');
    expect(insecure.code).toBe(0);
    const unverified = await run(kubeconfig('unverified', '', user));
    expect(unverified.code).toBe(2);
    expect(unverified.lines).toEqual(['scenario: who runs it', expect.stringMatching(/^error: objects: discovery failed: .*certificate/)]);
  });

  it('[AC-AUTHN-001] a bearer token from tokenFile; a certificate from another authority is 401 Unauthorized', async () => {
    writeFileSync(join(dir, 'runner.token'), 'file-token\n');
    const tokenRun = await run(
      kubeconfig('token-file', `    certificate-authority-data: ${caData}\n`, '    tokenFile: runner.token\n'),
      (() => {
        const file = join(dir, 'token-whoami.yaml');
        writeFileSync(file, 'name: token\nsteps:\n  - request: POST /apis/authentication.k8s.io/v1/selfsubjectreviews\n    body: { apiVersion: authentication.k8s.io/v1, kind: SelfSubjectReview }\n    expect: { status: 201, body: { status: { userInfo: { username: token-runner } } } }\n');
        return file;
      })(),
    );
    expect(tokenRun).toEqual({ code: 0, lines: ['scenario: token', 'PASS step 1: POST /apis/authentication.k8s.io/v1/selfsubjectreviews -> 201', '1 passed, 0 failed'] });

    const stranger = await generate([{ name: 'commonName', value: 'stranger' }], { keySize: 2048, algorithm: 'sha256' });
    const refused = await run(kubeconfig('stranger', `    certificate-authority-data: ${caData}\n`, `    client-certificate-data: ${b64(stranger.cert)}\n    client-key-data: ${b64(stranger.private)}\n`));
    expect(refused.code).toBe(2);
    expect(refused.lines.at(-1)).toBe('error: objects: discovery failed: Unauthorized');
  });

  it('a user with an exec credential plugin is reported, not run', async () => {
    const config = kubeconfig('exec', `    certificate-authority-data: ${caData}\n`, '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: get-token\n');
    const { code, lines } = await run(config);
    expect(code).toBe(2);
    expect(lines).toEqual([`error: ${config}: the user "u" needs a credential plugin (exec or auth-provider), which kubesim run does not run; use a token or a client certificate`]);
  });
});
