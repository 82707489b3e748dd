/** The page's exec stream against the worker's stream host and a real API server with a simulated node. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../../../core/testing/client';
import { eventually } from '../../../../core/testing/eventually';
import { parsePageMessage, type MessageTarget } from '../../../../sw/protocol';
import { createStreamHost } from '../../../../sw/streams';
import { openExecStream, type ExecEnd } from './execStream';
import { execEndText, podExecPath } from './podExec';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

/** The worker's side as the page reaches it: each message parsed and handed to the stream host with its port. */
async function workerWithPod(): Promise<{ worker: MessageTarget; pings: () => number }> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 });
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] } };
  expect((await t.json('POST', `${ns}/pods`, { body })).status).toBe(201);
  await eventually(async () => (await t!.json('GET', `${ns}/pods/web`)).body, (p: any) => p?.status?.phase === 'Running', 'pod web running');
  const server = t.server;
  const host = createStreamHost('http://127.0.0.1', async () => server);
  let pings = 0;
  const worker: MessageTarget = {
    postMessage(message, transfer) {
      const parsed = parsePageMessage(message);
      if (!parsed || parsed.type === 'kubesim/hello' || parsed.type === 'kubesim/claim') throw new Error('not a stream message');
      if (parsed.type === 'kubesim/stream-ping') pings++;
      void host.receive(parsed, (transfer[0] as MessagePort | undefined) ?? undefined);
    },
  };
  return { worker, pings: () => pings };
}

describe('exec streams from the page', () => {
  it('-i without -t: a command reads what is sent until the input closes; pings keep the worker up while open', async () => {
    const { worker, pings } = await workerWithPod();
    let out = '';
    let opened = false;
    let end: ExecEnd | undefined;
    const stream = openExecStream(worker, podExecPath('default', 'web', { container: 'app', command: ['sh', '-c', 'while read l; do echo "got $l"; done; exit 4'], stdin: true, tty: false }), {
      onOpen: () => void (opened = true),
      onOutput: (_s, text) => void (out += text),
      onEnd: (e) => void (end = e),
    }, 20);
    await eventually(async () => opened, (o) => o, 'the stream open');
    stream.input('a\nb\n');
    await eventually(async () => out, (o) => o === 'got a\ngot b\n', 'the lines read');
    await eventually(async () => pings(), (n) => n >= 2, 'pings');
    stream.closeInput();
    await eventually(async () => end, (e) => e !== undefined, 'the end');
    expect(execEndText(end!)).toBe('command terminated with exit code 4');
    const after = pings();
    await new Promise((r) => setTimeout(r, 60));
    expect(pings()).toBe(after);
  });

  it('a refusal ends the stream with the API server Status, printed as kubectl prints it', async () => {
    const { worker } = await workerWithPod();
    let end: ExecEnd | undefined;
    openExecStream(worker, podExecPath('default', 'web', { container: 'nope', command: ['sh'], stdin: true, tty: true }), { onOpen: () => undefined, onOutput: () => undefined, onEnd: (e) => void (end = e) });
    await eventually(async () => end, (e) => e !== undefined, 'the end');
    expect(end).toMatchObject({ kind: 'refused', status: { code: 400, reason: 'BadRequest' } });
    expect(execEndText(end!)).toBe('Error from server (BadRequest): container nope is not valid for pod web');
  });

  it('closing from the page ends it at once as closed, and output no longer arrives', async () => {
    const { worker } = await workerWithPod();
    let out = '';
    const ends: ExecEnd[] = [];
    let opened = false;
    const stream = openExecStream(worker, podExecPath('default', 'web', { container: 'app', command: ['sh'], stdin: true, tty: true }), { onOpen: () => void (opened = true), onOutput: (_s, text) => void (out += text), onEnd: (e) => void ends.push(e) });
    await eventually(async () => out, (o) => o.includes('/ # '), 'the prompt');
    expect(opened).toBe(true);
    stream.close();
    stream.input('echo late\r');
    await new Promise((r) => setTimeout(r, 50));
    expect(ends).toEqual([{ kind: 'closed' }]);
    expect(out).not.toContain('late');
  });
});
