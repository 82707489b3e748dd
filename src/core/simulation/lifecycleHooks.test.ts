/** Containers' lifecycle hooks on simulated nodes: postStart holding a container in ContainerCreating, and its failure. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../testing/client';
import { execIn, passTime, simulatedClusters } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';

const ns = '/api/v1/namespaces/default';
const cluster = simulatedClusters();

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const stateOf = (p: any) => p?.status?.containerStatuses?.[0]?.state ?? {};

const pass = passTime;

describe('postStart hooks', () => {
  it('hold the container in ContainerCreating until the hook is done; its process runs meanwhile and sees what the hook wrote', async () => {
    const s = await cluster();
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hooked' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'sleep 3; echo ready > /tmp/hooked'] } } } }] } };
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    const creating = await eventually(() => getPod(s, 'hooked'), (p) => !!stateOf(p).waiting && !!p.status.containerStatuses[0].containerID, 'the hook running');
    expect(stateOf(creating)).toEqual({ waiting: { reason: 'ContainerCreating' } });
    expect(creating.status.phase).toBe('Pending');
    await pass(s, 4_000);
    const running = await eventually(() => getPod(s, 'hooked'), (p) => !!stateOf(p).running, 'running after the hook');
    // The process started with the container, before the hook ended.
    expect(stateOf(running).running.startedAt).toBe(creating.status.startTime);
    expect((await execIn(s, 'hooked', ['cat', '/tmp/hooked'])).stdout).toBe('ready\n');
    const reasons = ((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dhooked`)).body.items as any[]).map((e) => e.reason);
    expect(reasons).not.toContain('FailedPostStartHook');
  });

  it('that fail kill the container (FailedPostStartHook), which waits as PostStartHookError, is started again at once, then backs off', async () => {
    const s = await cluster();
    const watch = await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3Dbroken`);
    const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'broken' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo no config >&2; exit 2'] } } } }] } };
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    await pass(s, 1_000);
    /** The container's states in turn, as `kubectl get pods -w` shows them (STATUS, RESTARTS), and the PostStartHookError status. */
    const seen: string[] = [];
    let hookError: any;
    for (let e = await watch.next(); e; e = await watch.next()) {
      const cs = (e.object as any).status?.containerStatuses?.[0];
      if (!cs) continue;
      const state = cs.state.waiting?.reason ?? cs.state.terminated?.reason ?? 'Running';
      if (state === 'PostStartHookError') hookError = e.object;
      const line = `${state} ${cs.restartCount}`;
      if (seen.at(-1) !== line) seen.push(line);
      if (state === 'CrashLoopBackOff') break;
    }
    watch.close();
    // nginx exits 0 on the kill's SIGTERM; the first restart comes at once and fails the same way; the next waits out the back-off.
    // (The restarted run's hook fails within the same sync, so no ContainerCreating is written for it.)
    expect(seen).toEqual(['ContainerCreating 0', 'PostStartHookError 0', 'PostStartHookError 1', 'CrashLoopBackOff 1']);
    const cs = hookError.status.containerStatuses[0];
    expect(cs.state.waiting.message).toBe(`Exec lifecycle hook ([sh -c echo no config >&2; exit 2]) for Container "web" in Pod "broken_default(${hookError.metadata.uid})" failed - error: command 'sh -c echo no config >&2; exit 2' exited with 2: no config\n, message: "no config\\n"`);
    expect(cs).toMatchObject({ ready: false, lastState: { terminated: { exitCode: 0, reason: 'Completed' } } });
    const events = ((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dbroken`)).body.items as any[]).filter((e) => ['FailedPostStartHook', 'Killing'].includes(e.reason)).map((e) => [e.type, e.reason, e.message, e.count]);
    expect(events).toEqual([['Warning', 'FailedPostStartHook', 'PostStartHook failed', 2], ['Normal', 'Killing', 'FailedPostStartHook', 2]]);
    expect((await getPod(s, 'broken')).status.phase).toBe('Running');
  });

  it('over HTTP fail only when no answer comes: a preStop GET answered 404 is fine, a postStart GET refused is PostStartHookError', async () => {
    const s = await cluster();
    const pod = (name: string, hook: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', lifecycle: hook }] } });
    const watch = await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3Drefused`);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('answered', { preStop: { httpGet: { path: '/drain', port: 80 } } }) })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('refused', { postStart: { httpGet: { path: '/warm-up', port: 9999 } } }) })).status).toBe(201);
    await pass(s, 1_000);
    let failed: any;
    for (let e = await watch.next(); e && !failed; e = await watch.next()) if (stateOf(e.object).waiting?.reason === 'PostStartHookError') failed = e.object;
    watch.close();
    const ip = failed.status.podIP;
    expect(stateOf(failed).waiting.message).toBe(`HTTP lifecycle hook (/warm-up) for Container "web" in Pod "refused_default(${failed.metadata.uid})" failed - error: Get "http://${ip}:9999/warm-up": dial tcp ${ip}:9999: connect: connection refused`);
    // nginx answers /drain with its 404 page: the hook ran, and nginx then exits on SIGTERM.
    await eventually(() => getPod(s, 'answered'), (p) => !!stateOf(p).running, 'answered running');
    expect((await s.json('DELETE', `${ns}/pods/answered`)).status).toBe(200);
    await eventually(async () => (await s.json('GET', `${ns}/pods/answered`)).status, (c) => c === 404, 'answered gone');
    const reasons = ((await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Danswered`)).body.items as any[]).map((e) => e.reason);
    expect(reasons).toContain('Killing');
    expect(reasons).not.toContain('FailedPreStopHook');
  });
});
