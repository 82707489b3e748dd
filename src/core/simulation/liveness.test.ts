/** Liveness and startup probes of simulated containers: Unhealthy, then Killing, the kill's exit, the restart. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../testing/client';
import { passTime, simulatedClusters } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';

const ns = '/api/v1/namespaces/default';

const cluster = simulatedClusters();

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
/** The pod's kubelet events in order, as `reason message (xcount)`. */
const eventsOf = async (s: TestServer, name: string): Promise<string[]> =>
  ((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items as any[])
    .filter((e) => ['Unhealthy', 'Killing', 'BackOff'].includes(e.reason))
    .map((e) => `${e.reason} ${e.message}${e.count > 1 ? ` (x${e.count})` : ''}`);

const pass = passTime;

const startOf = async (s: TestServer, name: string) => {
  const pod = await eventually(() => getPod(s, name), (p) => !!p?.status?.containerStatuses?.[0]?.state?.running, `${name} running`);
  return Date.parse(pod.status.containerStatuses[0].state.running.startedAt);
};
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('liveness probes', () => {
  it('kill a container after failureThreshold failures: SIGTERM ignored by its shell, SIGKILL after the grace period (137), then the restart', async () => {
    const s = await cluster();
    // The liveness-exec example of the Kubernetes docs.
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'liveness-exec' }, spec: { containers: [{ name: 'liveness', image: 'registry.k8s.io/busybox', args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'], livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 } }] } };
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    const start = await startOf(s, 'liveness-exec');
    await pass(s, 45_000);
    // The file goes at 30s: the probes at 30, 35 and 40s fail, then the kill.
    const failed = "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n";
    await eventually(() => eventsOf(s, 'liveness-exec'), (e) => e.length === 2, 'the kill');
    expect(await eventsOf(s, 'liveness-exec')).toEqual([`Unhealthy ${failed} (x3)`, 'Killing Container liveness failed liveness probe, will be restarted']);
    // busybox's sh as PID 1 ignores SIGTERM: still running through the 30s grace period.
    expect((await getPod(s, 'liveness-exec')).status.containerStatuses[0]).toMatchObject({ state: { running: {} }, restartCount: 0 });
    await pass(s, 30_000);
    const killed = await eventually(() => getPod(s, 'liveness-exec'), (p) => p.status.containerStatuses[0].restartCount === 1, 'the restart');
    expect(killed.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 137, reason: 'Error', startedAt: iso(start), finishedAt: iso(start + 70_000) });
    await pass(s, 10_000);
    await eventually(() => getPod(s, 'liveness-exec'), (p) => !!p.status.containerStatuses[0].state.running, 'running again');
    // A new run: a new layer, /tmp/healthy made again, the probes passing.
    await pass(s, 10_000);
    expect((await getPod(s, 'liveness-exec')).status.containerStatuses[0]).toMatchObject({ restartCount: 1, ready: true, started: true });
  });

  it('a server that shuts down on SIGTERM exits at once (nginx: 0), as does a shell trapping it; restartPolicy Never kills without a restart', async () => {
    const s = await cluster();
    const nginx = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', livenessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 10, failureThreshold: 2 } }] } };
    const trapped = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trapped' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', "trap 'echo bye; exit 143' TERM; while true; do sleep 1; done"], livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 10, failureThreshold: 1 } }] } };
    const once = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'once' }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 10, failureThreshold: 1 } }] } };
    for (const body of [nginx, once, trapped]) expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    const webStart = await startOf(s, 'web');
    const onceStart = await startOf(s, 'once');
    await pass(s, 15_000);
    const web = await eventually(() => getPod(s, 'web'), (p) => p.status.containerStatuses[0].restartCount === 1, 'nginx restarted');
    expect(web.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 0, reason: 'Completed', finishedAt: iso(webStart + 10_000) });
    // Restarted at once the first time: no back-off yet, and the new run's first probe at 10s fails too.
    expect(await eventsOf(s, 'web')).toEqual(['Unhealthy Liveness probe failed: HTTP probe failed with statuscode: 404 (x3)', 'Killing Container nginx failed liveness probe, will be restarted']);
    // A shell that traps SIGTERM ends at each kill with its handler's code, once the `sleep 1` it was running is done:
    // killed at its first probe, ended 1s later, restarted and killed again at once, then restarted after the 10s back-off.
    const trappedStatus = (await getPod(s, 'trapped')).status.containerStatuses[0];
    expect(trappedStatus).toMatchObject({ restartCount: 2, lastState: { terminated: { exitCode: 143, reason: 'Error' } } });
    expect(Date.parse(trappedStatus.lastState.terminated.finishedAt) - Date.parse(trappedStatus.lastState.terminated.startedAt)).toBe(1_000);
    // The handler ran: its echo is in the run's log.
    expect(await (await s.request('GET', `${ns}/pods/trapped/log?previous=true`)).text()).toBe('bye\n');
    const ip = (await getPod(s, 'once')).status.podIP;
    const done = await eventually(() => getPod(s, 'once'), (p) => p.status.phase === 'Failed', 'once failed');
    expect(done.status.containerStatuses[0]).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 137, reason: 'Error', finishedAt: iso(onceStart + 5_000) } } });
    expect(await eventsOf(s, 'once')).toEqual([`Unhealthy Liveness probe failed: dial tcp ${ip}:8080: connect: connection refused`, 'Killing Container app failed liveness probe']);
  });
});

describe('startup probes', () => {
  it('hold liveness and readiness until they pass (started follows), and kill past their failureThreshold', async () => {
    const s = await cluster();
    const probe = (file: string) => ({ exec: { command: ['test', '-f', file] }, periodSeconds: 5 });
    const pod = (name: string, script: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script], startupProbe: { ...probe('/tmp/started'), failureThreshold: 4 }, livenessProbe: { ...probe('/tmp/started'), failureThreshold: 1 }, readinessProbe: probe('/tmp/started') }] },
    });
    expect((await s.json('POST', `${ns}/pods`, { body: pod('slow', 'sleep 12; touch /tmp/started; sleep 3600') })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('stuck', 'sleep 3600') })).status).toBe(201);
    await startOf(s, 'slow');
    const stuckStart = await startOf(s, 'stuck');
    await pass(s, 10_000);
    // Not started: liveness (which would fail and kill) and readiness wait.
    expect((await getPod(s, 'slow')).status.containerStatuses[0]).toMatchObject({ started: false, ready: false, state: { running: {} } });
    await pass(s, 6_000);
    await eventually(() => getPod(s, 'slow'), (p) => p.status.containerStatuses[0].started === true, 'slow started');
    await pass(s, 5_000);
    expect((await getPod(s, 'slow')).status.containerStatuses[0]).toMatchObject({ started: true, ready: true, restartCount: 0 });
    expect(await eventsOf(s, 'slow')).toEqual(['Unhealthy Startup probe failed:  (x3)']);
    // The stuck one: four failures (0, 5, 10, 15s), then the kill; sh ignores SIGTERM: 137 after 30s.
    await eventually(() => eventsOf(s, 'stuck'), (e) => e.length === 2, 'the kill');
    expect(await eventsOf(s, 'stuck')).toEqual(['Unhealthy Startup probe failed:  (x4)', 'Killing Container app failed startup probe, will be restarted']);
    await pass(s, 30_000);
    const stuck = await eventually(() => getPod(s, 'stuck'), (p) => p.status.containerStatuses[0].restartCount === 1, 'stuck restarted');
    expect(stuck.status.containerStatuses[0]).toMatchObject({ started: false, lastState: { terminated: { exitCode: 137, finishedAt: iso(stuckStart + 45_000) } } });
  });
});

describe('sidecars', () => {
  it('are started again whenever they end, whatever the pod\'s restartPolicy: at once the first time, then with the back-off; the containers and the pod go on', async () => {
    const s = await cluster();
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'shipper' },
      spec: {
        restartPolicy: 'Never',
        initContainers: [
          { name: 'ends', image: 'busybox:1.36', restartPolicy: 'Always', command: ['sh', '-c', 'sleep 5; exit 1'] },
          { name: 'probed', image: 'busybox:1.36', restartPolicy: 'Always', command: ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"], livenessProbe: { exec: { command: ['test', '-f', '/tmp/alive'] }, periodSeconds: 10, failureThreshold: 1 } },
        ],
        containers: [{ name: 'app', image: 'nginx:1.27' }],
      },
    };
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    const start = await startOf(s, 'shipper');
    const sidecar = (p: any, name: string) => p.status.initContainerStatuses.find((c: any) => c.name === name);
    await pass(s, 6_000);
    // `ends` exited at 5s and was started again at once. `probed` failed its first probe and was killed (it exits 0
    // on TERM) although the pod's restartPolicy is Never, started again at once, killed again: now it backs off.
    const once = await eventually(() => getPod(s, 'shipper'), (p) => sidecar(p, 'ends').restartCount === 1 && !!sidecar(p, 'ends').state.running, 'the first restart');
    expect(sidecar(once, 'ends').lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error', finishedAt: iso(start + 5_000) });
    expect(sidecar(once, 'probed')).toMatchObject({ restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 0, reason: 'Completed' } } });
    expect(await eventsOf(s, 'shipper')).toEqual(expect.arrayContaining(['Killing Container probed failed liveness probe, will be restarted (x2)']));
    await pass(s, 5_000);
    const looping = await eventually(() => getPod(s, 'shipper'), (p) => sidecar(p, 'ends').state.waiting?.reason === 'CrashLoopBackOff', 'the back-off');
    expect(sidecar(looping, 'ends').state.waiting.message).toMatch(/^back-off 10s restarting failed container=ends pod=shipper_default/);
    // The app was never held back or restarted, and the pod stays Running and Initialized.
    expect(looping.status.phase).toBe('Running');
    expect(looping.status.containerStatuses[0]).toMatchObject({ name: 'app', restartCount: 0, state: { running: {} } });
    expect(looping.status.conditions.find((c: any) => c.type === 'Initialized').status).toBe('True');
    expect(looping.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'False', message: expect.stringContaining('ends') });
  });
});
