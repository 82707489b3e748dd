/** Readiness probes against what the pod's processes listen on: Ready, endpoints and the kubelet's Unhealthy events. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { ContainerProbes, type ProbeEvent, type ProbeKind, type ProbeResult } from './prober';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const serve = 'mkdir -p /www; echo ok > /www/index.html; httpd -f -p 8080 -h /www';

function podWithProbe(name: string, probe: Record<string, unknown>) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'busybox:1.36', command: ['sh', '-c', serve], ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { periodSeconds: 5, ...probe } }] } };
}

const readyOf = async (s: TestServer, name: string) => (await s.json('GET', `${ns}/pods/${name}`)).body?.status?.containerStatuses?.[0]?.ready;
const unhealthy = async (s: TestServer, name: string) =>
  ((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name},reason%3DUnhealthy`)).body.items as { message: string; type: string }[]).map((e) => `${e.type} ${e.message}`);

describe('readiness probes of simulated containers', () => {
  it('httpGet and tcpSocket probes pass on what the server listens on, and fail with the prober messages otherwise', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    const bodies = [
      podWithProbe('page', { httpGet: { path: '/', port: 'http' } }),
      podWithProbe('missing', { httpGet: { path: '/healthz', port: 8080 } }),
      podWithProbe('socket', { tcpSocket: { port: 8080 } }),
      podWithProbe('closed', { tcpSocket: { port: 9090 } }),
    ];
    for (const body of bodies) expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    await eventually(async () => (await s.json('GET', `${ns}/pods/closed`)).body?.status?.phase, (p) => p === 'Running', 'the pods running');
    // Probes run each period: move the clock past a few.
    for (let i = 0; i < 3; i++) {
      s.clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    await eventually(() => readyOf(s, 'page'), (r) => r === true, 'page ready');
    await eventually(() => readyOf(s, 'socket'), (r) => r === true, 'socket ready');
    expect(await readyOf(s, 'missing')).toBe(false);
    expect(await readyOf(s, 'closed')).toBe(false);
    const ip = (await s.json('GET', `${ns}/pods/closed`)).body.status.podIP;
    await eventually(() => unhealthy(s, 'closed'), (e) => e.length > 0, 'the closed port event');
    expect(await unhealthy(s, 'closed')).toEqual([`Warning Readiness probe failed: dial tcp ${ip}:9090: connect: connection refused`]);
    expect(await unhealthy(s, 'missing')).toEqual(['Warning Readiness probe failed: HTTP probe failed with statuscode: 404']);
    // The Pod's Ready condition says which containers are not ready.
    const conditions = (await s.json('GET', `${ns}/pods/missing`)).body.status.conditions as { type: string; status: string; message?: string }[];
    expect(conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', message: 'containers with unready status: [web]' });
  });

  it('an image kubesim does not run (no command) passes, as it presumably serves', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'envoy' }, spec: { containers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', readinessProbe: { tcpSocket: { port: 9901 } } }] } };
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    await eventually(() => readyOf(s, 'envoy'), (r) => r === true, 'envoy ready');
    expect(await unhealthy(s, 'envoy')).toEqual([]);
  });

  it('runs the startup probe first, then liveness and readiness each at its period, with their thresholds', async () => {
    const c = { startupProbe: { periodSeconds: 5, failureThreshold: 3 }, livenessProbe: { initialDelaySeconds: 2, periodSeconds: 10, failureThreshold: 2 }, readinessProbe: { periodSeconds: 5, successThreshold: 2 } };
    const probes = new ContainerProbes(c, 0);
    const ran: string[] = [];
    // Startup passes from 10s; liveness fails from 40s; readiness always passes.
    const run = async (kind: ProbeKind, _p: Record<string, unknown>, at: number): Promise<ProbeResult> => {
      ran.push(`${kind}@${at / 1000}`);
      const ok = kind === 'Startup' ? at >= 10_000 : kind === 'Liveness' ? at < 40_000 : true;
      return ok ? { ok } : { ok, message: 'no' };
    };
    const failures: string[] = [];
    const failed = (e: ProbeEvent) => failures.push(`${e.kind}@${e.at / 1000}`);
    expect(await probes.advance(9_999, run, failed)).toEqual({ started: false, ready: false, next: 10_000 });
    expect(await probes.advance(10_000, run, failed)).toEqual({ started: true, ready: false, next: 12_000 });
    // Ready after two passes in a row.
    expect(await probes.advance(20_000, run, failed)).toEqual({ started: true, ready: true, next: 22_000 });
    const end = await probes.advance(60_000, run, failed);
    expect(end).toEqual({ started: true, ready: true, kill: { kind: 'Liveness', at: 52_000, probe: c.livenessProbe } });
    expect(ran).toEqual(['Startup@0', 'Startup@5', 'Startup@10', 'Liveness@12', 'Readiness@15', 'Readiness@20', 'Liveness@22', 'Readiness@25', 'Readiness@30', 'Liveness@32', 'Readiness@35', 'Readiness@40', 'Liveness@42', 'Readiness@45', 'Readiness@50', 'Liveness@52']);
    expect(failures).toEqual(['Startup@0', 'Startup@5', 'Liveness@42', 'Liveness@52']);
    // A startup probe failing past its threshold kills.
    const never = new ContainerProbes({ startupProbe: { periodSeconds: 5, failureThreshold: 3 } }, 0);
    expect((await never.advance(60_000, async () => ({ ok: false, message: 'no' }), () => {})).kill).toMatchObject({ kind: 'Startup', at: 10_000 });
  });

  it('an exec probe runs its command in the container: exit 0 passes, else its output is the failure; a timeout and a command that cannot start are the kubelet\'s words', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${ns}/serviceaccounts/default`)).status, (c) => c === 200, 'the default service account');
    const pod = (name: string, probe: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 12; touch /tmp/ready; sleep 3600'], readinessProbe: { periodSeconds: 5, ...probe } }] } });
    for (const body of [
      pod('file', { exec: { command: ['cat', '/tmp/ready'] } }),
      pod('slow', { exec: { command: ['sleep', '5'] }, timeoutSeconds: 2 }),
      pod('missing', { exec: { command: ['check-ready'] } }),
    ]) expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    await eventually(async () => (await s.json('GET', `${ns}/pods/missing`)).body?.status?.phase, (p) => p === 'Running', 'the pods running');
    for (let i = 0; i < 4; i++) {
      s.clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The file appears at 12s: the probes at 0, 5 and 10s fail, the one at 15s passes.
    await eventually(() => readyOf(s, 'file'), (r) => r === true, 'file ready');
    expect(await unhealthy(s, 'file')).toEqual(["Warning Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory\n"]);
    const count = (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dfile,reason%3DUnhealthy`)).body.items[0].count;
    expect(count).toBe(3);
    expect(await readyOf(s, 'slow')).toBe(false);
    expect(await unhealthy(s, 'slow')).toEqual(['Warning Readiness probe failed: command "sleep 5" timed out']);
    expect(await readyOf(s, 'missing')).toBe(false);
    const [errored] = await unhealthy(s, 'missing');
    expect(errored).toMatch(/^Warning Readiness probe errored: rpc error: code = Unknown desc = failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "check-ready": executable file not found in \$PATH: unknown$/);
  });
});
