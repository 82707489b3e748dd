/** exec on the service-worker host: the page's stream messages bridged to the session the core hands over. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../core/testing/client';
import { eventually } from '../core/testing/eventually';
import { parsePageMessage, parseStreamMessage, type StreamMessage } from './protocol';
import { createStreamHost, type StreamHost } from './streams';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

async function clusterWithPod(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 });
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } };
  expect((await t.json('POST', `${ns}/pods`, { body })).status).toBe(201);
  await eventually(async () => (await t!.json('GET', `${ns}/pods/web`)).body, (p: any) => p?.status?.phase === 'Running', 'pod web running');
  return t;
}

/** A page's side of one stream: what arrived on its port, parsed as the page parses it. */
function pagePort() {
  const got: StreamMessage[] = [];
  return {
    got,
    port: { postMessage: (m: StreamMessage) => void got.push(parseStreamMessage(JSON.parse(JSON.stringify(m)))!) },
    text: () => got.flatMap((m) => (m.type === 'output' ? [m.text] : [])).join(''),
  };
}

function send(host: StreamHost, message: unknown, port?: ReturnType<typeof pagePort>['port']): Promise<void> {
  const parsed = parsePageMessage(message);
  if (!parsed || parsed.type === 'kubesim/hello' || parsed.type === 'kubesim/claim') throw new Error(`not a stream message: ${JSON.stringify(message)}`);
  return host.receive(parsed, port);
}

const execPath = (command: string[], q: Record<string, string>) => `${ns}/pods/web/exec?${[...command.map((c) => `command=${encodeURIComponent(c)}`), ...Object.entries(q).map(([k, v]) => `${k}=${v}`)].join('&')}`;

describe('exec streams on the service-worker host', () => {
  it('runs a shell with a terminal: prompt, echo, output, and the exit as the error channel Status', async () => {
    const s = await clusterWithPod();
    const host = createStreamHost('http://127.0.0.1', async () => s.server);
    const page = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 's1', path: execPath(['sh'], { container: 'app', stdin: 'true', stdout: 'true', tty: 'true' }) }, page.port);
    expect(page.got[0]).toEqual({ type: 'opened' });
    expect(host.open).toBe(1);
    await eventually(async () => page.text(), (x) => x.includes('/ # '), 'the prompt');
    await send(host, { type: 'kubesim/stream-input', id: 's1', data: 'echo hi $((1+2))\r' });
    await eventually(async () => page.text(), (x) => x.includes('hi 3\r\n'), 'the echoed command and its output');
    expect(page.text()).toContain('echo hi $((1+2))');
    await send(host, { type: 'kubesim/stream-input', id: 's1', data: 'exit 3\r' });
    const done = await eventually(async () => page.got.find((m) => m.type === 'done'), (m) => m !== undefined, 'the end');
    expect(done).toMatchObject({ type: 'done', status: { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } } });
    expect(host.open).toBe(0);
  });

  it('a command reading stdin ends when the page closes the input; without a terminal stdout and stderr stay apart', async () => {
    const s = await clusterWithPod();
    const host = createStreamHost('http://127.0.0.1', async () => s.server);
    const page = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 's2', path: execPath(['sh', '-c', 'cat; echo oops >&2'], { stdin: 'true', stdout: 'true', stderr: 'true' }) }, page.port);
    await send(host, { type: 'kubesim/stream-input', id: 's2', data: 'line one\n' });
    await send(host, { type: 'kubesim/stream-close-input', id: 's2' });
    await eventually(async () => page.got.find((m) => m.type === 'done'), (m) => m !== undefined, 'the end');
    expect(page.got.filter((m) => m.type === 'output')).toEqual([
      { type: 'output', stream: 1, text: 'line one\n' },
      { type: 'output', stream: 2, text: 'oops\n' },
    ]);
    expect(page.got.at(-1)).toEqual({ type: 'done', status: { metadata: {}, status: 'Success' } });
  });

  it('a refusal is the API server answer: a container the pod lacks is 400, a command the container lacks fails to start', async () => {
    const s = await clusterWithPod();
    const host = createStreamHost('http://127.0.0.1', async () => s.server);
    const page = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 's3', path: execPath(['sh'], { container: 'nope', stdout: 'true' }) }, page.port);
    expect(page.got).toHaveLength(1);
    const refused = page.got[0]!;
    expect(refused).toMatchObject({ type: 'refused', code: 400 });
    expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'container nope is not valid for pod web' });
    expect(host.open).toBe(0);

    const missing = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 's4', path: execPath(['no-such-tool'], { stdout: 'true', stderr: 'true' }) }, missing.port);
    await eventually(async () => missing.got.find((m) => m.type === 'done'), (m) => m !== undefined, 'the end');
    const done = missing.got.at(-1) as unknown as { status: { message: string; code: number } };
    expect(done.status.code).toBe(500);
    expect(done.status.message).toContain('executable file not found in $PATH');
  });

  it('the page leaving stops the exec and sends nothing more; pings and unknown ids are ignored', async () => {
    const s = await clusterWithPod();
    const host = createStreamHost('http://127.0.0.1', async () => s.server);
    const page = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 's5', path: execPath(['sh'], { stdin: 'true', stdout: 'true', tty: 'true' }) }, page.port);
    await eventually(async () => page.text(), (x) => x.includes('/ # '), 'the prompt');
    await send(host, { type: 'kubesim/stream-ping', id: 's5' });
    await send(host, { type: 'kubesim/stream-input', id: 'other', data: 'x' });
    await send(host, { type: 'kubesim/stream-detach', id: 's5' });
    expect(host.open).toBe(0);
    const before = page.got.length;
    await send(host, { type: 'kubesim/stream-input', id: 's5', data: 'echo late\r' });
    await new Promise((r) => setTimeout(r, 50));
    expect(page.got.length).toBe(before);
  });

  it('port-forward is refused in the browser with a Status', async () => {
    const s = await clusterWithPod();
    const host = createStreamHost('http://127.0.0.1', async () => s.server);
    const page = pagePort();
    await send(host, { type: 'kubesim/stream-open', id: 'pf', path: `${ns}/pods/web/portforward?ports=8080` }, page.port);
    expect(page.got).toHaveLength(1);
    expect(page.got[0]).toMatchObject({ type: 'refused', code: 400 });
    expect(JSON.parse((page.got[0] as { body: string }).body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'port-forward is not available in the browser: run kubectl port-forward against the Node host' });
    expect(host.open).toBe(0);
  });

  it('stream messages are parsed strictly', () => {
    expect(parsePageMessage({ type: 'kubesim/stream-open', id: 'a', path: 'http://elsewhere/x' })).toBeUndefined();
    expect(parsePageMessage({ type: 'kubesim/stream-open', path: '/api' })).toBeUndefined();
    expect(parsePageMessage({ type: 'kubesim/stream-input', id: 'a', data: 1 })).toBeUndefined();
    expect(parsePageMessage({ type: 'kubesim/stream-detach', id: 'a', extra: true })).toEqual({ type: 'kubesim/stream-detach', id: 'a' });
    expect(parseStreamMessage({ type: 'output', stream: 3, text: 'x' })).toBeUndefined();
    expect(parseStreamMessage({ type: 'done', status: null })).toBeUndefined();
  });
});
