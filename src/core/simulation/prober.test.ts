/** Readiness probes against what the pod's processes listen on: Ready, endpoints and the kubelet's Unhealthy events. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { lastProbeAt } from './prober';

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

  it('runs at the initial delay, then each period', () => {
    const probe = { initialDelaySeconds: 5, periodSeconds: 10 };
    expect(lastProbeAt(probe, 1_000, 5_999)).toBeUndefined();
    expect(lastProbeAt(probe, 1_000, 6_000)).toBe(6_000);
    expect(lastProbeAt(probe, 1_000, 25_999)).toBe(16_000);
    expect(lastProbeAt({}, 0, 35_000)).toBe(30_000);
  });
});
