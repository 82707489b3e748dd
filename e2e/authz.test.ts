/**
 * Real kubectl 1.32 against the Node host started with --authorization-mode=RBAC:
 * users with different bindings see kube-apiserver's 403 text, `auth can-i`
 * (with --list) answers from the server's own chain, and role and binding
 * writes beyond one's own permissions are refused. Users authenticate with
 * bearer tokens from --token-auth-file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';
import { run, type RunResult } from './support/host';

let host: RunningHost;
let dir: string;

function kubectl(token: string, args: string[], input?: string): Promise<RunResult> {
  return run('kubectl', [`--token=${token}`, ...args], { HOME: join(dir, 'home'), KUBECONFIG: host.kubeconfigPath }, input);
}

const tokens = 'admin-token,admin,1,system:masters\nalice-token,alice,2,devs\ncarol-token,carol,3\n';
const admin = (args: string[], input?: string) => kubectl('admin-token', args, input);

/** The bytes of a body kubectl -v=8 dumps as `00000000  6b 38 73 00 ...  |k8s.|` lines. */
function hexDumpBytes(dump: string): Buffer {
  const hex = dump.split('\n').map((line) => /^\s*[0-9a-f]{8}\s+((?:[0-9a-f]{2}\s+)+)\|/.exec(line)?.[1] ?? '').join(' ');
  return Buffer.from(hex.replace(/\s+/g, ''), 'hex');
}
const alice = (args: string[], input?: string) => kubectl('alice-token', args, input);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesim-authz-'));
  writeFileSync(join(dir, 'tokens.csv'), tokens);
  host = await startHost({
    // Over TLS: kubectl sends bearer tokens only to an https server.
    port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'data'), store: 'memory', tls: true, securePort: 0, help: false,
    authorizationModes: 'RBAC', authn: { tokenAuthFile: join(dir, 'tokens.csv') },
  });
  for (const ns of ['team', 'other']) expect((await admin(['create', 'namespace', ns])).code).toBe(0);
  expect((await admin(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', 'team'])).code).toBe(0);
  expect((await admin(['create', 'role', 'role-writer', '--verb=create,get,list', '--resource=roles,rolebindings', '-n', 'team'])).code).toBe(0);
  for (const r of ['pod-reader', 'role-writer']) {
    const b = await admin(['create', 'rolebinding', `alice-${r}`, `--role=${r}`, '--user=alice', '-n', 'team']);
    expect(b.code, b.stderr).toBe(0);
  }
});

afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kubectl with RBAC', () => {
  it('[AC-AUTHZ-002][API-ERR-021] a request beyond the user\'s bindings: Error from server (Forbidden) with kube\'s message', async () => {
    expect((await alice(['get', 'pods', '-n', 'team'])).code).toBe(0);
    const r = await alice(['get', 'pods', '-n', 'other']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "other"');
    const s = await alice(['get', 'secret', 'x', '-n', 'team']);
    expect(s.stderr.trim()).toBe('Error from server (Forbidden): secrets "x" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team"');
    const n = await alice(['get', 'nodes']);
    expect(n.stderr.trim()).toBe('Error from server (Forbidden): nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
  });

  it('[AC-REV-016][AC-REV-018][AC-REV-019][AC-REV-032][AC-REV-033][AC-REV-034] kubectl auth can-i answers yes or no, through a SelfSubjectAccessReview in the namespace asked', async () => {
    const yes = await alice(['auth', 'can-i', 'list', 'pods', '-n', 'team']);
    expect(yes.stdout).toBe('yes\n');
    expect(yes.code).toBe(0);
    const no = await alice(['auth', 'can-i', 'delete', 'pods', '-n', 'team']);
    expect(no.stdout).toBe('no\n');
    expect(no.code).toBe(1);
    expect((await alice(['auth', 'can-i', 'list', 'pods', '-n', 'other'])).stdout).toBe('no\n');
    const verbose = await alice(['auth', 'can-i', 'get', 'pods', '-n', 'team', '-v=8']);
    expect(verbose.stderr).toMatch(/POST https:\/\/127\.0\.0\.1:\d+\/apis\/authorization\.k8s\.io\/v1\/selfsubjectaccessreviews\n[^]*?Response Status: 201 Created/);
    // The body kubectl sent (protobuf, dumped in hex): resourceAttributes namespace "team", verb "get", resource "pods".
    const sent = hexDumpBytes(verbose.stderr.split('"Request Body"').at(-1)!.split(' >')[0]!);
    expect(sent.subarray(0, 4).toString('latin1')).toBe('k8s\0');
    expect(sent.includes(Buffer.from('\x0a\x04team\x12\x03get', 'latin1'))).toBe(true);
    expect(sent.includes(Buffer.from('\x2a\x04pods', 'latin1'))).toBe(true);
    expect((await admin(['auth', 'can-i', '*', '*'])).stdout).toBe('yes\n');
    expect((await alice(['auth', 'can-i', 'get', '/healthz'])).stdout).toBe('yes\n');
    // --as goes through impersonation: the admin asks as alice and as bob.
    expect((await admin(['auth', 'can-i', 'list', 'pods', '-n', 'team', '--as=alice'])).stdout).toBe('yes\n');
    expect((await admin(['auth', 'can-i', 'list', 'pods', '-n', 'team', '--as=bob'])).stdout).toBe('no\n');
    const notAllowed = await alice(['auth', 'can-i', 'list', 'pods', '--as=bob']);
    expect(notAllowed.stderr.trim()).toBe('Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('[AC-REV-025] kubectl auth can-i --list prints the rules review', async () => {
    const r = await alice(['auth', 'can-i', '--list', '-n', 'team']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    expect(r.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(r.stdout).toMatch(/^roles\.rbac\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create get list\]$/m);
    expect(r.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(r.stdout).toMatch(/^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
  });

  it('[AC-RBAC-118][AC-RBAC-119][AC-RBAC-122] kubectl create role/rolebinding: within one\'s permissions it works, beyond them it is refused', async () => {
    const ok = await alice(['create', 'role', 'pod-getter', '--verb=get', '--resource=pods', '-n', 'team']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('role.rbac.authorization.k8s.io/pod-getter created\n');
    const big = await alice(['create', 'role', 'secret-admin', '--verb=get,delete', '--resource=secrets', '-n', 'team']);
    expect(big.code).toBe(1);
    expect(big.stderr.trim()).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "secret-admin" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
      + '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
    const bind = await alice(['create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'team']);
    expect(bind.code).toBe(1);
    expect(bind.stderr).toContain('rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:');
    const fine = await alice(['create', 'rolebinding', 'bob-reader', '--role=pod-reader', '--user=bob', '-n', 'team']);
    expect(fine.code, fine.stderr).toBe(0);
  });

  it('kubectl auth reconcile -f creates and extends a role, subject to escalation checks', async () => {
    const roleFile = (verbs: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reconciled
  namespace: team
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: [${verbs}]
`;
    const r = await admin(['auth', 'reconcile', '-f', '-'], roleFile('"get"'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('role.rbac.authorization.k8s.io/reconciled reconciled\n');
    const again = await admin(['auth', 'reconcile', '-f', '-'], roleFile('"get", "list"'));
    expect(again.code, again.stderr).toBe(0);
    const got = await admin(['get', 'role', 'reconciled', '-n', 'team', '-o', 'jsonpath={.rules[*].verbs}']);
    expect(got.stdout).toContain('list');
    const denied = await alice(['auth', 'reconcile', '-f', '-'], roleFile('"delete"').replace('name: reconciled', 'name: alices'));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('is attempting to grant RBAC permissions not currently held');
  });
});

describe('webhook authorization over HTTP (--authorization-config)', () => {
  let hookHost: RunningHost;
  let stub: Server;
  let hookDir: string;
  const received: { apiVersion: string; spec: { user: string; resourceAttributes?: { resource: string } } }[] = [];

  beforeAll(async () => {
    hookDir = mkdtempSync(join(tmpdir(), 'kubesim-hook-'));
    writeFileSync(join(hookDir, 'tokens.csv'), tokens);
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body);
        received.push(review);
        const allowed = review.spec.user === 'carol' && review.spec.resourceAttributes?.resource === 'configmaps';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed, reason: allowed ? 'carol may' : 'not carol' } }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const port = (stub.address() as AddressInfo).port;
    writeFileSync(join(hookDir, 'hook.kubeconfig'), `apiVersion: v1
kind: Config
clusters: [{name: hook, cluster: {server: "http://127.0.0.1:${port}/authorize"}}]
users: [{name: apiserver, user: {}}]
contexts: [{name: hook, context: {cluster: hook, user: apiserver}}]
current-context: hook
`);
    writeFileSync(join(hookDir, 'authz.yaml'), `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: stub
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    unauthorizedTTL: 1ms
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${join(hookDir, 'hook.kubeconfig')}
    matchConditions:
    - expression: has(request.resourceAttributes)
- type: RBAC
  name: rbac
`);
    hookHost = await startHost({
      port: 0, bindAddress: '127.0.0.1', dataDir: join(hookDir, 'data'), store: 'memory', tls: true, securePort: 0, help: false,
      authorizationConfig: join(hookDir, 'authz.yaml'), authn: { tokenAuthFile: join(hookDir, 'tokens.csv') },
    });
  });

  afterAll(async () => {
    await hookHost?.close();
    await new Promise((r) => stub?.close(r));
    if (hookDir) rmSync(hookDir, { recursive: true, force: true });
  });

  it('[AC-AUTHZ-004][AC-AUTHZ-038] the stub decides resource requests; its reason reaches kubectl', async () => {
    const asUser = (token: string, args: string[]) => run('kubectl', [`--token=${token}`, ...args], { HOME: join(hookDir, 'home'), KUBECONFIG: hookHost.kubeconfigPath });
    const ok = await asUser('carol-token', ['get', 'configmaps', '-n', 'default']);
    expect(ok.code, ok.stderr).toBe(0);
    const no = await asUser('carol-token', ['get', 'secrets', '-n', 'default']);
    expect(no.stderr.trim()).toBe('Error from server (Forbidden): secrets is forbidden: User "carol" cannot list resource "secrets" in API group "" in the namespace "default": not carol');
    expect(received.some((r) => r.apiVersion === 'authorization.k8s.io/v1' && r.spec.user === 'carol')).toBe(true);
    // Non-resource requests (discovery) never reach the stub: the match condition is false.
    expect(received.every((r) => r.spec.resourceAttributes)).toBe(true);
  });
});
