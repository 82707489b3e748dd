/** `kubesim run --kubeconfig` plays a scenario against a running server: here the Node host, over HTTP. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioCommand } from '../server/scenario';
import { startTestHost, type TestHost } from './support/host';

let host: TestHost;
const dir = mkdtempSync(join(tmpdir(), 'kubesim-e2e-scenario-'));

beforeAll(async () => {
  host = await startTestHost({ store: 'memory' });
});
afterAll(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubesim run --kubeconfig', () => {
  it('[API-META-002] applies the objects and checks each step against the running host; as: users are impersonated', async () => {
    const file = join(dir, 'host.yaml');
    writeFileSync(
      file,
      `name: against the host
settings: { fakeClock: true }
objects:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: from-scenario, namespace: default }, data: { k: v } }
steps:
  - request: POST /api/v1/namespaces/default/configmaps
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: from-scenario } }
    expect: { status: 409, reason: AlreadyExists, message: 'configmaps "from-scenario" already exists' }
  - as: { user: alice, groups: [dev] }
    request: POST /apis/authentication.k8s.io/v1/selfsubjectreviews
    body: { apiVersion: authentication.k8s.io/v1, kind: SelfSubjectReview }
    expect: { status: 201, body: { status: { userInfo: { username: alice } } } }
`,
    );
    const lines: string[] = [];
    const code = await runScenarioCommand(['--kubeconfig', host.host.kubeconfigPath, file], { write: (l) => lines.push(l) });
    expect(lines).toEqual([
      'note: settings are not applied to a cluster from a kubeconfig; it runs as configured',
      'scenario: against the host',
      'PASS step 1: POST /api/v1/namespaces/default/configmaps -> 409 AlreadyExists',
      'PASS step 2: POST /apis/authentication.k8s.io/v1/selfsubjectreviews as alice -> 201',
      '2 passed, 0 failed',
    ]);
    expect(code).toBe(0);
    const got = await host.kubectl(['get', 'configmap', 'from-scenario', '-o', 'jsonpath={.data.k}']);
    expect(got.stdout).toBe('v');
  });

  it('advanceClock steps move the clock of a host started with --fake-clock (POST /debug/kubesim/clock); a real-clock host refuses them', async () => {
    const clocked = await startTestHost({ store: 'memory', flags: { fakeClock: new Date('2030-01-01T00:00:00Z') } });
    try {
      const file = join(dir, 'clock.yaml');
      writeFileSync(
        file,
        `name: moving the host clock
steps:
  - advanceClock: 90s
  - request: GET /debug/kubesim/clock
    expect: { status: 200, body: { now: '2030-01-01T00:01:30Z', fake: true } }
`,
      );
      const lines: string[] = [];
      expect(await runScenarioCommand(['--kubeconfig', clocked.host.kubeconfigPath, file], { write: (l) => lines.push(l) })).toBe(0);
      expect(lines).toEqual(['scenario: moving the host clock', 'PASS step 1: advance the clock 90000ms', 'PASS step 2: GET /debug/kubesim/clock -> 200', '2 passed, 0 failed']);
      const real: string[] = [];
      expect(await runScenarioCommand(['--kubeconfig', host.host.kubeconfigPath, file], { write: (l) => real.push(l) })).toBe(1);
      expect(real[1]).toBe('FAIL step 1: advance the clock 90000ms');
      expect(real.join('\n')).toContain('advancing the clock: 400: the server clock is real; start the server with --fake-clock to advance it');
    } finally {
      await clocked.stop();
    }
  });
});
