/**
 * A pod that writes through the API server, across a restart of the Node
 * host: the simulated kubelet replays a running container's process from its
 * start, and what the process did before the restart must not be done again.
 * Real kubectl against a host on SQLite and a fake clock, stopped and started
 * again on the same data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../server/host';
import { eventually } from '../src/core/testing/eventually';
import { run, withoutClientLogs, type RunResult } from './support/host';

const dir = mkdtempSync(join(tmpdir(), 'kubesim-e2e-replay-'));
const home = join(dir, 'home');
const t0 = Date.parse('2026-03-01T09:00:00Z');
let host: RunningHost | undefined;

const start = async (clockMs: number) => {
  host = await startHost({ port: 0, bindAddress: '127.0.0.1', dataDir: join(dir, 'data'), store: 'sqlite', tls: true, securePort: 0, help: false, simulatedNodes: 1, fakeClock: new Date(clockMs) });
};
const kubectl = async (args: string[], input = ''): Promise<RunResult> => withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: home, KUBECONFIG: host!.kubeconfigPath }, input));
const advance = async (duration: string) => expect((await kubectl(['create', '--raw', `/debug/kubesim/clock?advance=${duration}`, '-f', '-'], '{}')).code).toBe(0);
const ticks = async () => (await kubectl(['get', 'configmaps', '-o', 'name'])).stdout.split('\n').filter((l) => l.startsWith('configmap/tick-')).length;
const logLines = async () => (await kubectl(['logs', 'ticker'])).stdout.split('\n').filter(Boolean);

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a pod writing through the API server, across a host restart', () => {
  it('the writes its process made before the restart are replayed as dry runs: nothing is created twice, its log reads as before, and its writes after the restart go through', async () => {
    await start(t0);
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'tick-' } });
    const loop = `while true; do curl -sk -o /dev/null -w '%{http_code}\\n' -X POST -H 'Content-Type: application/json' -d '${body}' https://kubernetes.default.svc/api/v1/namespaces/default/configmaps; sleep 10; done`;
    expect((await kubectl(['run', 'ticker', '--image=curlimages/curl:8.11.1', '--command', '--', 'sh', '-c', loop])).code).toBe(0);
    await eventually(ticks, (n) => n === 1, 'the first ConfigMap');
    await advance('25s');
    // Posts at t0, t0+10s and t0+20s.
    await eventually(ticks, (n) => n === 3, 'three ConfigMaps');
    expect(await logLines()).toEqual(['201', '201', '201']);
    await host!.close();
    host = undefined;

    // 65 s after t0: the process is replayed from t0, its posts at t0+30s to t0+60s made while the host was down.
    await start(t0 + 65_000);
    await eventually(logLines, (lines) => lines.length === 7, 'the replayed log', 200);
    expect(await logLines()).toEqual(Array(7).fill('201'));
    expect(await ticks()).toBe(3);
    await advance('10s');
    await eventually(ticks, (n) => n === 4, 'the post after the restart');
  });

  it('kubectl exec of a request to the API server or a kubelet is answered while the fake clock stands still', async () => {
    const version = await kubectl(['exec', 'ticker', '--', 'curl', '-sk', 'https://kubernetes.default.svc/version']);
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({ major: '1' });
    const nodeIP = (await kubectl(['get', 'pod', 'ticker', '-o', 'jsonpath={.status.hostIP}'])).stdout;
    expect(await kubectl(['exec', 'ticker', '--', 'sh', '-c', `curl -sk -o /dev/null -w '%{http_code}' https://${nodeIP}:10250/pods`])).toMatchObject({ code: 0, stdout: '401' });
  });
});
