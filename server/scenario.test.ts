import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioCommand } from './scenario';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(yaml: string): Promise<{ code: number; lines: string[] }> {
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const lines: string[] = [];
  const code = await runScenarioCommand([file], { write: (l) => lines.push(l) });
  return { code, lines };
}

describe('kubesim run', () => {
  it('API-SSA-049: objects are applied, steps run in order, exit 0 when every expectation holds', async () => {
    const { code, lines } = await run(`
name: a conflicting apply
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: app, namespace: default }
    data: { mode: a }
steps:
  - name: bob applies another value
    request: PATCH /api/v1/namespaces/default/configmaps/app?fieldManager=bob
    contentType: application/apply-patch+yaml
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: app }, data: { mode: b } }
    expect:
      status: 409
      reason: Conflict
      message: 'Apply failed with 1 conflict: conflict with "kubesim-scenario": .data.mode'
  - request: GET /api/v1/namespaces/default/configmaps/app
    expect: { status: 200, body: { data: { mode: a } } }
`);
    expect(lines).toEqual([
      'scenario: a conflicting apply',
      'PASS step 1: bob applies another value: PATCH /api/v1/namespaces/default/configmaps/app?fieldManager=bob -> 409 Conflict',
      'PASS step 2: GET /api/v1/namespaces/default/configmaps/app -> 200',
      '2 passed, 0 failed',
    ]);
    expect(code).toBe(0);
  });

  it('requests run as the named user under the scenario authorization mode (RBAC)', async () => {
    const { code, lines } = await run(`
name: rbac
settings: { authorizationMode: RBAC }
objects:
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: { name: cm-reader, namespace: default }
    rules: [{ apiGroups: [""], resources: [configmaps], verbs: [list] }]
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: { name: alice-reads, namespace: default }
    roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader }
    subjects: [{ kind: User, apiGroup: rbac.authorization.k8s.io, name: alice }]
steps:
  - as: alice
    request: GET /api/v1/namespaces/default/configmaps
    expect: { status: 200 }
  - as: alice
    request: GET /api/v1/namespaces/default/secrets
    expect:
      status: 403
      reason: Forbidden
      message: 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default"'
`);
    expect(lines.slice(1)).toEqual([
      'PASS step 1: GET /api/v1/namespaces/default/configmaps as alice -> 200',
      'PASS step 2: GET /api/v1/namespaces/default/secrets as alice -> 403 Forbidden',
      '2 passed, 0 failed',
    ]);
    expect(code).toBe(0);
  });

  it('API-ERR-010: with a fake clock, advancing it past the watch history makes an old resourceVersion 410 Expired', async () => {
    const { code, lines } = await run(`
name: expired
settings: { fakeClock: true }
objects:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: one, namespace: default } }
steps:
  - request: GET /api/v1/namespaces/default/configmaps?resourceVersion=1&resourceVersionMatch=NotOlderThan
    expect: { status: 200 }
  - advanceClock: 6m
  - request: POST /api/v1/namespaces/default/configmaps
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: two } }
    expect: { status: 201 }
  - request: GET /api/v1/namespaces/default/configmaps?resourceVersion=2&resourceVersionMatch=Exact
    expect: { status: 410, reason: Expired }
`);
    expect(lines.at(-1)).toBe('4 passed, 0 failed');
    expect(code).toBe(0);
  });

  it('a failed expectation is listed under its step and the exit code is 1', async () => {
    const { code, lines } = await run(`
steps:
  - request: GET /api/v1/namespaces/default/configmaps/missing
    expect: { status: 200, body: { kind: ConfigMap } }
`);
    expect(lines).toEqual([
      'scenario: scenario',
      'FAIL step 1: GET /api/v1/namespaces/default/configmaps/missing -> 404 NotFound',
      '     status: expected 200, got 404',
      '     body.kind: expected "ConfigMap", got "Status"',
      '0 passed, 1 failed',
    ]);
    expect(code).toBe(1);
  });

  it('an invalid scenario is reported with where, exit code 2', async () => {
    const { code, lines } = await run('steps:\n  - request: LIST configmaps\n  - advanceClock: soon\n');
    expect(lines).toEqual(['error: steps[0].request: must be "METHOD /path", e.g. "GET /api/v1/namespaces"', 'error: steps[1].advanceClock: not a duration like 90s, 6m or 1h']);
    expect(code).toBe(2);
  });
});

describe('kubesim run --kubeconfig against a server that answers protobuf', () => {
  it('[API-ENC-009] a step whose answer is protobuf without the k8s\\0 prefix fails with the prefix error', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
      res.end(Buffer.from([0, 0, 0, 0, 0x0a, 0x00]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const kubeconfig = join(dir, 'pb-kubeconfig.yaml');
      writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
current-context: pb
contexts: [{ name: pb, context: { cluster: pb, user: pb } }]
clusters: [{ name: pb, cluster: { server: "http://127.0.0.1:${port}" } }]
users: [{ name: pb, user: { token: t } }]
`);
      const file = join(dir, 'pb.yaml');
      writeFileSync(file, `name: protobuf answer
steps:
  - request: GET /api/v1/namespaces/default/configmaps/x
    expect: { status: 200 }
`);
      const lines: string[] = [];
      const code = await runScenarioCommand(['--kubeconfig', kubeconfig, file], { write: (l) => lines.push(l) });
      expect(lines).toEqual([
        'scenario: protobuf answer',
        'FAIL step 1: GET /api/v1/namespaces/default/configmaps/x -> 200',
        '     response body: provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
        '0 passed, 1 failed',
      ]);
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('kubesim run: deletion on a fake clock', () => {
  it('a bound pod deleted with a grace period is gone once the clock passes it; settings.controllers can switch that off', async () => {
    const scenario = (controllers: string) => `
name: graceful
settings: { fakeClock: true, controllers: [${controllers}] }
objects:
  - { apiVersion: v1, kind: Pod, metadata: { name: p, namespace: default }, spec: { nodeName: node-1, containers: [{ name: c, image: nginx }] } }
steps:
  - request: DELETE /api/v1/namespaces/default/pods/p?gracePeriodSeconds=20
    expect: { status: 200, body: { metadata: { deletionGracePeriodSeconds: 20 } } }
  - advanceClock: 21s
  - request: GET /api/v1/namespaces/default/pods/p
    expect: { status: 404 }
`;
    const on = await run(scenario("'*'"));
    expect(on.lines.at(-1)).toBe('3 passed, 0 failed');
    const off = await run(scenario("'*', '-pod-garbage-collector-controller'"));
    expect(off.lines.at(-1)).toBe('2 passed, 1 failed');
    const bad = await run(scenario("'*', '-kubelet'"));
    expect(bad.lines).toEqual(['error: settings.controllers: "kubelet" is not in the list of known controllers']);
    expect(bad.code).toBe(2);
  });
});
