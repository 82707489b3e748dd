import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../core';
import { createFetchListener, type RequestHandler } from './fetchHandler';
import type { FetchEvent } from './types';

const ORIGIN = 'http://127.0.0.1:5173';

interface Dispatched {
  answered: boolean;
  response?: Promise<Response>;
}

/** Runs the listener on a stand-in FetchEvent and records whether it answered. */
function dispatch(listener: (event: FetchEvent) => void, request: Request, mode?: RequestMode): Dispatched {
  const result: Dispatched = { answered: false };
  const event = {
    request: mode ? new Proxy(request, { get: (t, p) => (p === 'mode' ? mode : Reflect.get(t, p, t)) }) : request,
    clientId: 'page',
    respondWith(response: Response | Promise<Response>) {
      result.answered = true;
      result.response = Promise.resolve(response);
    },
    waitUntil() {},
  } as unknown as FetchEvent;
  listener(event);
  return result;
}

function echoServer(seen: Request[] = []): RequestHandler {
  return {
    async handle(request) {
      seen.push(request);
      return Response.json({ kind: 'NamespaceList', path: new URL(request.url).pathname });
    },
  };
}

describe('createFetchListener', () => {
  const listener = createFetchListener({ origin: ORIGIN, server: async () => echoServer() });

  it.each([
    ['/api/v1/namespaces', true],
    ['/apis', true],
    ['/version', true],
    ['/', false],
    ['/assets/index.js', false],
  ])('same-origin %s answered: %s', (path, answered) => {
    expect(dispatch(listener, new Request(ORIGIN + path)).answered).toBe(answered);
  });

  it('ignores other origins and navigations', () => {
    expect(dispatch(listener, new Request('http://example.com/api/v1')).answered).toBe(false);
    expect(dispatch(listener, new Request(ORIGIN + '/api/v1'), 'navigate').answered).toBe(false);
  });

  it('answers a tab opened on a pod or service proxy (what the pod serves)', () => {
    expect(dispatch(listener, new Request(ORIGIN + '/api/v1/namespaces/default/services/web:http/proxy/'), 'navigate').answered).toBe(true);
    expect(dispatch(listener, new Request(ORIGIN + '/api/v1/namespaces/default/pods/web/proxy/a.html'), 'navigate').answered).toBe(true);
    expect(dispatch(listener, new Request(ORIGIN + '/api/v1/namespaces/default/pods/web'), 'navigate').answered).toBe(false);
  });

  it('hands the core the same method, URL, headers and body', async () => {
    const seen: Request[] = [];
    const l = createFetchListener({ origin: ORIGIN, server: async () => echoServer(seen) });
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    const d = dispatch(
      l,
      new Request(ORIGIN + '/api/v1/namespaces/default/configmaps?fieldManager=ui', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      }),
    );
    const response = await d.response!;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ kind: 'NamespaceList', path: '/api/v1/namespaces/default/configmaps' });
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe(ORIGIN + '/api/v1/namespaces/default/configmaps?fieldManager=ui');
    expect(seen[0]!.headers.get('content-type')).toBe('application/json');
    expect(await seen[0]!.text()).toBe(body);
  });

  it('cancelling a streamed response aborts the core request', async () => {
    const seen: Request[] = [];
    const watchServer: RequestHandler = {
      async handle(request) {
        seen.push(request);
        const encoder = new TextEncoder();
        return new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(encoder.encode('{"type":"ADDED"}\n'));
            },
          }),
          { status: 200, headers: { 'Content-Type': 'application/json' } },
        );
      },
    };
    const l = createFetchListener({ origin: ORIGIN, server: async () => watchServer });
    const response = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces?watch=1')).response!;
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('{"type":"ADDED"}\n');
    expect(seen[0]!.signal.aborted).toBe(false);
    await reader.cancel();
    expect(seen[0]!.signal.aborted).toBe(true);
  });

  it('hands a body of known length to the browser as the core made it', async () => {
    const made: Response[] = [];
    const server: RequestHandler = {
      async handle() {
        const bytes = new TextEncoder().encode('{"kind":"ConfigMap"}\n');
        made.push(new Response(bytes, { status: 201, headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes.byteLength) } }));
        return made[0]!;
      },
    };
    const l = createFetchListener({ origin: ORIGIN, server: async () => server });
    const response = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces/default/configmaps', { method: 'POST', body: '{}' })).response!;
    expect(response).toBe(made[0]);
    expect(await response.text()).toBe('{"kind":"ConfigMap"}\n');
  });

  it("aborting the page's request aborts the core request", async () => {
    const seen: Request[] = [];
    const l = createFetchListener({ origin: ORIGIN, server: async () => echoServer(seen) });
    const page = new AbortController();
    await dispatch(l, new Request(ORIGIN + '/api/v1/pods?watch=true', { signal: page.signal })).response;
    expect(seen[0]!.signal.aborted).toBe(false);
    page.abort();
    expect(seen[0]!.signal.aborted).toBe(true);
  });

  it('answers 503 ServiceUnavailable when the core cannot start', async () => {
    const errors: unknown[] = [];
    const l = createFetchListener({
      origin: ORIGIN,
      server: () => Promise.reject(new Error('IndexedDB blocked')),
      onError: (e) => errors.push(e),
    });
    const response = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!;
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'ServiceUnavailable',
      code: 503,
    });
    expect(errors).toHaveLength(1);
  });

  it("reports each of the core's answers (the controllers start after the first), not a failure to start", async () => {
    let answers = 0;
    let starting = true;
    const l = createFetchListener({
      origin: ORIGIN,
      server: async () => {
        if (starting) throw new Error('IndexedDB blocked');
        return echoServer();
      },
      onAnswer: () => answers++,
    });
    expect((await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!).status).toBe(503);
    expect(answers).toBe(0);
    starting = false;
    expect((await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!).status).toBe(200);
    expect((await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!).status).toBe(200);
    expect(answers).toBe(2);
  });

  it('answers 500 InternalError when the core throws', async () => {
    const l = createFetchListener({
      origin: ORIGIN,
      server: async () => ({ handle: () => Promise.reject(new Error('boom')) }),
    });
    const response = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!;
    expect(response.status).toBe(500);
    const status = (await response.json()) as { reason: string; message: string };
    expect(status.reason).toBe('InternalError');
    expect(status.message).toContain('boom');
  });
});

describe('createFetchListener over the real core', () => {
  it('serves a NamespaceList and streams a watch until the page cancels it', async () => {
    const core = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(5) });
    await core.ready;
    const seen: Request[] = [];
    const l = createFetchListener({
      origin: ORIGIN,
      server: async () => ({ handle: (request) => (seen.push(request), core.handle(request)) }),
    });

    const list = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces')).response!;
    // The core answers with a light Response; respondWith is handed a platform one.
    expect(Object.getPrototypeOf(list)).toBe(Response.prototype);
    expect(list.status).toBe(200);
    const body = (await list.json()) as { kind: string; items: { metadata: { name: string } }[] };
    expect(body.kind).toBe('NamespaceList');
    expect(body.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));

    const watch = await dispatch(l, new Request(ORIGIN + '/api/v1/namespaces?watch=1')).response!;
    expect(watch.status).toBe(200);
    const reader = watch.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first.split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { kind: 'Namespace' } });
    await reader.cancel();
    expect(seen.at(-1)!.signal.aborted).toBe(true);
    await core.close();
  });
});
