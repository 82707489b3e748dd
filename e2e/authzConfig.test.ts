/**
 * --authorization-config on the Node host, as an operator meets it: a webhook
 * that cannot be reached follows its failurePolicy, the file's limits stop the
 * host at start, and the flag cannot be combined with --authorization-mode.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startTestHost, type TestHost } from './support/host';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-authzconfig-'));
const tokens = join(dir, 'tokens.csv');
// Nothing listens on port 1 of the loopback: every call to this webhook fails.
const deadHook = join(dir, 'dead.kubeconfig');

function config(name: string, authorizers: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${authorizers}`);
  return path;
}

function webhook(name: string, opts: { failurePolicy?: string; timeout?: string; matchConditions?: string[] }): string {
  const conditions = (opts.matchConditions ?? []).map((e) => `    - expression: ${JSON.stringify(e)}\n`).join('');
  return `- type: Webhook
  name: ${name}
  webhook:
    timeout: ${opts.timeout ?? '3s'}
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${opts.failurePolicy ?? 'NoOpinion'}
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${deadHook}}
${conditions ? `    matchConditions:\n${conditions}` : ''}`;
}

beforeAll(() => {
  writeFileSync(tokens, 'admin-token,admin,1,system:masters\nalice-token,alice,2\nbob-token,bob,3\n');
  writeFileSync(deadHook, `apiVersion: v1
kind: Config
clusters: [{name: hook, cluster: {server: "http://127.0.0.1:1/authorize"}}]
users: [{name: apiserver, user: {}}]
contexts: [{name: hook, context: {cluster: hook, user: apiserver}}]
current-context: hook
`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a webhook authorizer that cannot be reached', () => {
  let h: TestHost;
  beforeAll(async () => {
    // alice's resource requests go to a NoOpinion webhook, bob's to a Deny one; RBAC comes last.
    const path = config('dead', webhook('lenient', { failurePolicy: 'NoOpinion', matchConditions: ['has(request.resourceAttributes)', "request.user == 'alice'"] })
      + webhook('strict', { failurePolicy: 'Deny', matchConditions: ['has(request.resourceAttributes)', "request.user == 'bob'"] })
      + '- type: RBAC\n  name: rbac\n');
    h = await startTestHost({ tls: true, authn: { tokenAuthFile: tokens }, flags: { authorizationConfig: path } });
    const bound = await h.kubectl(['--token=admin-token', 'create', 'clusterrolebinding', 'viewers', '--clusterrole=view', '--user=alice', '--user=bob']);
    expect(bound.code, bound.stderr).toBe(0);
  });
  afterAll(async () => h?.stop());

  it('[AC-ERR-005] NoOpinion goes on to RBAC, which allows; Deny ends the chain with the failure as a 500', async () => {
    const alice = await h.kubectl(['--token=alice-token', 'get', 'configmaps', '-n', 'default', '-o', 'name']);
    expect(alice.code, alice.stderr).toBe(0);
    const bob = await h.kubectl(['--token=bob-token', 'get', '--raw', '/api/v1/namespaces/default/configmaps']);
    expect(bob.code).not.toBe(0);
    expect(bob.stderr).toMatch(/^Error from server \(InternalError\): Internal error occurred: /);
    // Without a grant RBAC has no opinion either, and alice's webhook error stands.
    const secrets = await h.kubectl(['--token=alice-token', 'get', '--raw', '/api/v1/namespaces/default/secrets']);
    expect(secrets.stderr).toMatch(/^Error from server \(InternalError\): Internal error occurred: /);
  });
});

describe('limits of the configuration file', () => {
  it('[AC-LIM-003][AC-LIM-004] at most 64 match conditions and a 30s timeout per webhook: beyond either the host does not start', async () => {
    const conditions = (n: number) => Array.from({ length: n }, (_, i) => `request.user != 'u${i}'`);
    await expect(startTestHost({ flags: { authorizationConfig: config('many', webhook('hook', { matchConditions: conditions(65) })) } }))
      .rejects.toThrow('authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items');
    await expect(startTestHost({ flags: { authorizationConfig: config('slow', webhook('hook', { timeout: '31s' })) } }))
      .rejects.toThrow('authorizers[0].webhook.timeout: Invalid value: "31s": must be <= 30s');
    const atLimit = await startTestHost({ flags: { authorizationConfig: config('limit', webhook('hook', { timeout: '30s', matchConditions: conditions(64) }) + '- type: RBAC\n  name: rbac\n') } });
    await atLimit.stop();
  });
});

describe('conflicting flags', () => {
  it('[AC-ERR-006] --authorization-config with --authorization-mode: the host reports the error and exits', async () => {
    const path = config('plain', '- type: RBAC\n  name: rbac\n');
    const r = await run(process.execPath, ['--import', 'tsx', 'server/main.ts', '--port=0', '--store=memory', `--data-dir=${join(dir, 'conflict')}`, '--authorization-mode=RBAC', `--authorization-config=${path}`], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  });
});
