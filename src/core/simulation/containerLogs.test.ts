/**
 * Containers on simulated nodes run their commands on the server clock:
 * pods/log answers as the kubelet's /containerLogs (the run it reads, since,
 * tail, timestamps, limitBytes, previous, follow), a process's exit ends its
 * container, and attach feeds a shell's stdin.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../testing/client';
import { simulatedClusters } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';
import { upgradeSessionOf } from '../http/upgrade';
import { runStreamSession } from '../testing/streamSession';
import { rfc3339Nano } from './containerLogs';

const ns = '/api/v1/namespaces/default';

const cluster = simulatedClusters();

const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const logOf = async (s: TestServer, name: string, query = ''): Promise<{ status: number; text: string }> => {
  const r = await s.server.handle(new Request(`http://127.0.0.1:8080${ns}/pods/${name}/log${query}`));
  return { status: r.status, text: await r.text() };
};
const counting = 'i=0; while [ $i -lt 3 ]; do echo "line $i"; i=$((i+1)); sleep 1; done';

describe('container logs', () => {
  it('a counting loop writes a line a second: the log grows with the clock, with timestamps, tail, since and a byte limit; its exit ends the pod', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${ns}/pods`, { body: pod('counter', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sh', '-c', counting] }] }) })).status).toBe(201);
    const p = await eventually(() => getPod(s, 'counter'), (x) => x?.status?.phase === 'Running', 'running');
    const started = Date.parse(p.status.containerStatuses[0].state.running.startedAt);
    expect(await logOf(s, 'counter')).toEqual({ status: 200, text: 'line 0\n' });
    s.clock.advance(1000);
    expect((await logOf(s, 'counter')).text).toBe('line 0\nline 1\n');
    expect((await logOf(s, 'counter', '?timestamps=true')).text).toBe(`${rfc3339Nano(started)} line 0\n${rfc3339Nano(started + 1000)} line 1\n`);
    s.clock.advance(2000);
    const done = await eventually(() => getPod(s, 'counter'), (x) => x?.status?.phase === 'Succeeded', 'succeeded');
    expect(done.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed', finishedAt: rfc3339Nano(started + 3000) });
    expect((await logOf(s, 'counter')).text).toBe('line 0\nline 1\nline 2\n');
    expect((await logOf(s, 'counter', '?tailLines=1')).text).toBe('line 2\n');
    expect((await logOf(s, 'counter', '?tailLines=0')).text).toBe('');
    expect((await logOf(s, 'counter', '?limitBytes=9')).text).toBe('line 0\nli');
    expect((await logOf(s, 'counter', '?sinceSeconds=2')).text).toBe('line 1\nline 2\n');
    expect((await logOf(s, 'counter', `?sinceTime=${rfc3339Nano(started + 2000)}`)).text).toBe('line 2\n');
  });

  it('the log holds the bytes the process wrote, those that are not UTF-8 included (a binaryData key cat to stdout)', async () => {
    const s = await cluster();
    const bytes = Uint8Array.from([0xff, 0xfe, 0x41, 0x0a, 0xc3, 0xa9, 0x80, 0x0a]);
    expect((await s.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blob' }, binaryData: { 'blob.bin': Buffer.from(bytes).toString('base64') } } })).status).toBe(201);
    const spec = { containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sh', '-c', 'cat /data/blob.bin; sleep 3600'], volumeMounts: [{ name: 'd', mountPath: '/data' }] }], volumes: [{ name: 'd', configMap: { name: 'blob' } }] };
    expect((await s.json('POST', `${ns}/pods`, { body: pod('binary', spec) })).status).toBe(201);
    await eventually(() => getPod(s, 'binary'), (x) => x?.status?.phase === 'Running', 'running');
    const r = await s.server.handle(new Request(`http://127.0.0.1:8080${ns}/pods/binary/log`));
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(bytes);
  });

  it('follow streams each line as the clock reaches it and ends with the container', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${ns}/pods`, { body: pod('follow', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sh', '-c', counting] }] }) })).status).toBe(201);
    await eventually(() => getPod(s, 'follow'), (x) => x?.status?.phase === 'Running', 'running');
    const r = await s.server.handle(new Request(`http://127.0.0.1:8080${ns}/pods/follow/log?follow=true`));
    expect(r.status).toBe(200);
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    const next = async () => {
      const { value, done } = await reader.read();
      return done ? undefined : decoder.decode(value);
    };
    expect(await next()).toBe('line 0\n');
    s.clock.advance(1000);
    expect(await next()).toBe('line 1\n');
    s.clock.advance(1000);
    expect(await next()).toBe('line 2\n');
    s.clock.advance(1000);
    expect(await next()).toBeUndefined();
  });

  it('a crashing container: its last run\'s log while it backs off, --previous, and the kubelet\'s 400s', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${ns}/pods`, { body: pod('crash', { containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sh', '-c', 'echo boom >&2; exit 3'] }] }) })).status).toBe(201);
    const p = await eventually(() => getPod(s, 'crash'), (x) => x?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff', 'backing off');
    expect(p.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(await logOf(s, 'crash')).toEqual({ status: 200, text: 'boom\n' });
    expect(await logOf(s, 'crash', '?previous=true')).toEqual({ status: 200, text: 'boom\n' });
    const other = await s.json('GET', `${ns}/pods/crash/log?container=nope`);
    expect(other).toMatchObject({ status: 400, body: { reason: 'BadRequest', message: 'container nope is not valid for pod crash' } });

    expect((await s.json('POST', `${ns}/pods`, { body: pod('steady', { containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sleep', '3600'] }] }) })).status).toBe(201);
    await eventually(() => getPod(s, 'steady'), (x) => x?.status?.phase === 'Running', 'running');
    const previous = await s.json('GET', `${ns}/pods/steady/log?previous=true`);
    expect(previous).toMatchObject({ status: 400, body: { kind: 'Status', reason: 'BadRequest', code: 400, message: 'previous terminated container "app" in pod "steady" not found' } });
  });

  it('a Job\'s pod runs its command and completes; with an image kubesim does not know and no command it completes at once', async () => {
    const s = await cluster();
    const job = (name: string, container: Record<string, unknown>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', ...container }] } } } });
    expect((await s.json('POST', '/apis/batch/v1/namespaces/default/jobs', { body: job('hello', { image: 'example.com/tools:1', command: ['sh', '-c', 'date; echo Hello from the Kubernetes cluster'] }) })).status).toBe(201);
    expect((await s.json('POST', '/apis/batch/v1/namespaces/default/jobs', { body: job('opaque', { image: 'example.com/batch:1' }) })).status).toBe(201);
    for (const name of ['hello', 'opaque']) await eventually(async () => (await s.json('GET', `/apis/batch/v1/namespaces/default/jobs/${name}`)).body, (j: any) => j?.status?.succeeded === 1, `${name} succeeded`);
    const pods = (await s.json('GET', `${ns}/pods?labelSelector=job-name%3Dhello`)).body.items;
    expect((await logOf(s, pods[0].metadata.name)).text).toBe('Thu Jan  1 00:00:00 UTC 2026\nHello from the Kubernetes cluster\n');
  });

  it('attach feeds a shell its stdin: what it runs comes back, and the end of input ends the container', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${ns}/pods`, { body: pod('talk', { restartPolicy: 'Never', containers: [{ name: 'sh', image: 'example.com/tools:1', command: ['sh'], stdin: true, stdinOnce: true }] }) })).status).toBe(201);
    await eventually(() => getPod(s, 'talk'), (x) => x?.status?.phase === 'Running', 'running');
    const request = new Request(`http://127.0.0.1:8080${ns}/pods/talk/attach?stdin=true&stdout=true&stderr=true`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    expect((await s.server.handle(request)).status).toBe(200);
    const result = await runStreamSession(upgradeSessionOf(request)!, 'echo hi from $HOSTNAME\nexit 4\n');
    expect(result).toMatchObject({ stdout: 'hi from talk\n', stderr: '', status: { status: 'Success' } });
    const done = await eventually(() => getPod(s, 'talk'), (x) => x?.status?.phase === 'Failed', 'failed');
    expect(done.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 4, reason: 'Error' });
  });
});

describe('init containers run their commands', () => {
  it('one at a time: the containers wait (PodInitializing) until the last has succeeded', async () => {
    const s = await cluster();
    const body = pod('staged', { initContainers: [{ name: 'setup', image: 'example.com/tools:1', command: ['sh', '-c', 'echo setting up; sleep 5'] }, { name: 'check', image: 'example.com/tools:1', command: ['echo', 'checked'] }], containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sleep', '3600'] }] });
    expect((await s.json('POST', `${ns}/pods`, { body })).status).toBe(201);
    const p = await eventually(() => getPod(s, 'staged'), (x) => x?.status?.initContainerStatuses?.[0]?.state?.running, 'setup running');
    expect(p.status.phase).toBe('Pending');
    expect(p.status.conditions.find((c: any) => c.type === 'Initialized')).toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [setup check]' });
    expect(p.status.initContainerStatuses[1].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(p.status.containerStatuses[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect((await logOf(s, 'staged', '?container=setup')).text).toBe('setting up\n');
    s.clock.advance(5000);
    const done = await eventually(() => getPod(s, 'staged'), (x) => x?.status?.phase === 'Running', 'running');
    expect(done.status.initContainerStatuses.map((c: any) => [c.name, c.state.terminated?.reason, c.state.terminated?.exitCode])).toEqual([['setup', 'Completed', 0], ['check', 'Completed', 0]]);
    expect(done.status.conditions.find((c: any) => c.type === 'Initialized').status).toBe('True');
    expect((await logOf(s, 'staged', '?container=check')).text).toBe('checked\n');
  });

  it('one that fails: restarted after the back-off (Init:CrashLoopBackOff), or under restartPolicy Never the pod fails', async () => {
    const s = await cluster();
    const failing = (name: string, restartPolicy: string) => pod(name, { restartPolicy, initContainers: [{ name: 'migrate', image: 'example.com/tools:1', command: ['sh', '-c', 'echo no database >&2; exit 2'] }], containers: [{ name: 'app', image: 'example.com/tools:1', command: ['sleep', '3600'] }] });
    expect((await s.json('POST', `${ns}/pods`, { body: failing('retry', 'Always') })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: failing('once', 'Never') })).status).toBe(201);
    const retry = await eventually(() => getPod(s, 'retry'), (x) => x?.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff', 'backing off');
    expect(retry.status.phase).toBe('Pending');
    expect(retry.status.initContainerStatuses[0]).toMatchObject({ restartCount: 1, lastState: { terminated: { exitCode: 2, reason: 'Error' } } });
    expect(retry.status.containerStatuses[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect((await logOf(s, 'retry', '?container=migrate')).text).toBe('no database\n');
    const once = await eventually(() => getPod(s, 'once'), (x) => x?.status?.phase === 'Failed', 'failed');
    expect(once.status.initContainerStatuses[0].state.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    expect(once.status.containerStatuses[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    s.clock.advance(10_000);
    await eventually(() => getPod(s, 'retry'), (x) => x?.status?.initContainerStatuses?.[0]?.restartCount === 2, 'restarted');
  });
});
