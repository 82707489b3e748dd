/** Reading pods/log as the Logs view does: through the workbench's client, against a simulated kubelet, and a body split mid-character. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../../../core/testing/client';
import { eventually } from '../../../../core/testing/eventually';
import { createApiClient, isApiError, type ApiClient, type KubeObject } from '../../../api';
import { readPodLog } from './logStream';
import { appendLogText, EMPTY_LOG, endLogText } from './logText';
import { logContainers, podLogPath, serverErrorText } from './podLogs';

const pods = '/api/v1/namespaces/default/pods';

async function read(client: ApiClient, path: string, signal = new AbortController().signal): Promise<{ opened: boolean; text: string }> {
  const out = { opened: false, text: '' };
  await readPodLog(client, path, signal, { onOpen: () => (out.opened = true), onText: (t) => (out.text += t) });
  return out;
}

async function refusal(client: ApiClient, path: string): Promise<string> {
  try {
    await read(client, path);
  } catch (error) {
    if (isApiError(error)) return serverErrorText(error.status);
    throw error;
  }
  throw new Error(`${path} was answered`);
}

describe('reading a pod\'s log from a simulated kubelet', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });

  it('refusals read as kubectl prints them (a kubelet that is down, a missing pod, no previous run); a running container\'s follow stream opens and closes with the view', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    const client = createApiClient((request) => s.server.handle(request), 'http://kubesim.test');
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
    const node = '/api/v1/nodes/node-1';
    await eventually(async () => (await s.json('GET', node)).status, (c) => c === 200, 'node-1');
    const annotate = (value: string | null) => s.json('PATCH', node, { body: { metadata: { annotations: { 'kubesim.io/kubelet': value } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    // A node whose kubelet is down: the API server cannot reach it, and says so as kube-apiserver's proxy does.
    expect((await annotate('stopped')).status).toBe(200);
    await client.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }, { name: 'side', image: 'busybox', command: ['sleep', '3600'] }] } });
    const options = { follow: true, previous: false, timestamps: false };
    expect(await refusal(client, podLogPath('default', 'web', { ...options, container: 'app' }))).toMatch(/^Error from server: Get "https:\/\/node-1:10250\/containerLogs\/default\/web\/app\?follow=true": dial tcp/);
    expect(await refusal(client, podLogPath('default', 'nope', { ...options, container: 'app' }))).toBe('Error from server (NotFound): pods "nope" not found');

    expect((await annotate(null)).status).toBe(200);
    const pod = await eventually(() => client.get<KubeObject>(`${pods}/web`), (p) => (p.status as { phase?: string } | undefined)?.phase === 'Running', 'web running');
    expect(logContainers(pod).map((c) => c.name)).toEqual(['app', 'side']);
    expect(await refusal(client, podLogPath('default', 'web', { ...options, container: 'side', previous: true }))).toBe('Error from server (BadRequest): previous terminated container "side" in pod "web" not found');

    const view = new AbortController();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const following = readPodLog(client, podLogPath('default', 'web', { ...options, container: 'app' }), view.signal, { onOpen: opened, onText: () => undefined });
    await open;
    // The view closes: the read ends without an error.
    view.abort();
    await expect(following).resolves.toBeUndefined();
  });
});

describe('a log body split anywhere', () => {
  it('a character cut between two chunks is decoded whole, and the lines come out as written', async () => {
    const bytes = new TextEncoder().encode('caf\u00e9 ouvert\nline 2\nlast');
    const cut = 4; // inside the two bytes of é
    const client = createApiClient(async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes.slice(0, cut));
            controller.enqueue(bytes.slice(cut));
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/plain' } },
      ),
    'http://kubesim.test');
    const pieces: string[] = [];
    await readPodLog(client, '/api/v1/namespaces/default/pods/web/log?container=app', new AbortController().signal, { onOpen: () => undefined, onText: (text) => pieces.push(text) });
    expect(pieces[0]).toBe('caf');
    const log = endLogText(pieces.reduce((l, p) => appendLogText(l, p), EMPTY_LOG));
    expect(log.lines).toEqual(['caf\u00e9 ouvert', 'line 2', 'last']);
  });

  it('a refusal that is not a Status still reads as kubectl words it', async () => {
    const client = createApiClient(async () => new Response('upstream gone', { status: 503 }), 'http://kubesim.test');
    const error = await readPodLog(client, '/x', new AbortController().signal, { onOpen: () => undefined, onText: () => undefined }).catch((e: unknown) => e);
    expect(isApiError(error) && serverErrorText(error.status)).toBe('Error from server (ServiceUnavailable): the server is currently unable to handle the request');
  });
});
