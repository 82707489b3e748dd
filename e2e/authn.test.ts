/** Real kubectl over the Node host's TLS port: the admin token of the written kubeconfig, --token, whoami. */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
const tokenFile = join(tmpdir(), `kubesim-authn-tokens-${process.pid}.csv`);
beforeAll(async () => {
  writeFileSync(tokenFile, 'admintoken,kubesim-admin,a-1,system:masters\nalicetoken,alice,u-1,"dev,ops"\n');
  t = await startTestHost({ tls: true, authn: { tokenAuthFile: tokenFile } });
});
afterAll(async () => {
  await t?.stop();
});

describe('kubectl with bearer tokens', () => {
  it('[AC-REV-035] [AC-AUTHN-009] the written kubeconfig authenticates as the admin of the token file', async () => {
    expect(readFileSync(t.host.kubeconfigPath, 'utf8')).toContain('token: admintoken');
    const w = await t.kubectl(['auth', 'whoami', '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'kubesim-admin', uid: 'a-1', groups: ['system:masters', 'system:authenticated'] });
  });

  it('[AC-AUTHN-030] [AC-AUTHN-031] [AC-REV-014] --token of another row: whoami shows its user, uid and groups', async () => {
    const w = await t.kubectl(['auth', 'whoami', '--token=alicetoken']);
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/Username\s+alice\n/);
    expect(w.stdout).toMatch(/UID\s+u-1\n/);
    expect(w.stdout).toMatch(/Groups\s+\[dev ops system:authenticated\]/);
  });

  it('[AC-AUTHN-117] an unknown token is refused with 401', async () => {
    const r = await t.kubectl(['get', 'ns', '--token=wrong']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error: You must be logged in to the server (the server has asked for the client to provide credentials)');
  });
});

describe('kubectl impersonation', () => {
  it('[AC-IMP-012] [AC-IMP-013] [AC-IMP-001] --as and --as-group: whoami shows the impersonated identity', async () => {
    const w = await t.kubectl(['auth', 'whoami', '--as=bob', '--as-group=g1', '--as-group=g2', '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toEqual({ username: 'bob', groups: ['g1', 'g2', 'system:authenticated'] });
  });
});

describe('service account tokens', () => {
  it('[AC-AUTHN-044] [AC-AUTHN-035] [AC-AUTHN-040] [AC-AUTHN-041] kubectl create token: the token authenticates as the account', async () => {
    expect((await t.kubectl(['create', 'serviceaccount', 'sa1'])).stdout.trim()).toBe('serviceaccount/sa1 created');
    const c = await t.kubectl(['create', 'token', 'sa1', '--duration=20m', '--audience=https://kubernetes.default.svc.cluster.local']);
    expect(c.stderr).toBe('');
    const token = c.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const w = await t.kubectl(['auth', 'whoami', `--token=${token}`, '-o', 'json']);
    expect(w.stderr).toBe('');
    expect(JSON.parse(w.stdout).status.userInfo).toMatchObject({
      username: 'system:serviceaccount:default:sa1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    const missing = await t.kubectl(['create', 'token', 'nope']);
    expect(missing.stderr.trim()).toBe('error: failed to create token: serviceaccounts "nope" not found');
  });

  it('[AC-REV-003] @kubernetes/client-node with a service account token: requests and a TokenReview', async () => {
    const token = (await t.kubectl(['create', 'token', 'sa1'])).stdout.trim();
    const kc = new KubeConfig();
    kc.loadFromFile(t.host.kubeconfigPath);
    const admin = kc.makeApiClient(AuthenticationV1Api);
    const review = await admin.createTokenReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe('system:serviceaccount:default:sa1');
    const asSa = new KubeConfig();
    asSa.loadFromOptions({
      clusters: [{ name: 'c', server: t.host.secureUrl!, caData: kc.getCurrentCluster()!.caData }],
      users: [{ name: 'u', token }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const ns = await asSa.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
    const bad = new KubeConfig();
    bad.loadFromOptions({ ...JSON.parse(JSON.stringify({ clusters: asSa.clusters, contexts: asSa.contexts, currentContext: 'x' })), users: [{ name: 'u', token: 'x' + token }] });
    await expect(bad.makeApiClient(CoreV1Api).readNamespace({ name: 'default' })).rejects.toMatchObject({ code: 401 });
  });
});

