/** The Node host's adaptor over real sockets: what the core's Request shows, and what goes on the wire for each kind of Response. */
import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHostServer, type FetchHandler } from './listener';
import { LightResponse } from '../../src/core/http/lightResponse';
import { lightParts } from './response';

/** The core's light Response, as its response writer makes them. */
const light = (body: string | Uint8Array | null, init?: ResponseInit) => new LightResponse(body, init) as unknown as Response;

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(fetch: FetchHandler): Promise<number> {
  server = createHostServer({ fetch, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

function send(port: number, path: string, options: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The raw bytes of one exchange, for what a client library would hide (header case, framing). */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('the core Request', () => {
  it('has the method, the absolute URL and header lookups as a Fetch Request gives them', async () => {
    let seen: Record<string, unknown> = {};
    const port = await serve((request) => {
      seen = {
        isRequest: request instanceof Request,
        method: request.method,
        url: request.url,
        accept: request.headers.get('Accept'),
        // Repeated fields Node keeps once are joined, as Headers joins them.
        authorization: request.headers.get('authorization'),
        groups: request.headers.get('impersonate-group'),
        missing: request.headers.get('x-missing'),
        has: request.headers.has('X-Custom'),
        keys: [...request.headers.keys()],
        body: request.body,
      };
      return new Response('ok', { status: 200, headers: { 'content-type': 'text/plain' } });
    });
    await send(port, '/api/v1/namespaces?limit=1', { headers: { accept: 'application/json', authorization: ['Bearer a', 'Bearer b'], 'impersonate-group': ['g1', 'g2'], 'x-custom': ' padded ' } });
    expect(seen).toEqual({
      isRequest: true,
      method: 'GET',
      url: `http://127.0.0.1:${port}/api/v1/namespaces?limit=1`,
      accept: 'application/json',
      authorization: 'Bearer a, Bearer b',
      groups: 'g1, g2',
      missing: null,
      has: true,
      keys: ['accept', 'authorization', 'connection', 'host', 'impersonate-group', 'x-custom'],
      body: null,
    });
  });

  it('iterates, copies and changes its headers as a Headers', async () => {
    let seen: Record<string, unknown> = {};
    const port = await serve((request) => {
      const copy = new Headers(request.headers);
      request.headers.delete('x-one');
      seen = { isHeaders: request.headers instanceof Headers, entries: [...copy].filter(([k]) => k.startsWith('x-')), after: request.headers.get('x-one'), two: request.headers.get('x-two') };
      return new Response(null, { status: 204 });
    });
    await send(port, '/', { headers: { 'x-one': '1', 'x-two': '2' } });
    expect(seen).toEqual({ isHeaders: true, entries: [['x-one', '1'], ['x-two', '2']], after: null, two: '2' });
  });

  it('reads a body whole (text, arrayBuffer) or as a stream, once', async () => {
    const seen: unknown[] = [];
    const port = await serve(async (request) => {
      const how = request.headers.get('x-read');
      if (how === 'text') seen.push(await request.text());
      else if (how === 'bytes') seen.push(new Uint8Array(await request.arrayBuffer()).length);
      else {
        const reader = request.body!.getReader();
        let n = 0;
        for (let r = await reader.read(); !r.done; r = await reader.read()) n += r.value.byteLength;
        seen.push(n);
      }
      seen.push(await request.text().then(() => 'read twice', (e: Error) => e.message));
      return new Response(null, { status: 204 });
    });
    await send(port, '/', { method: 'POST', headers: { 'x-read': 'text', 'content-type': 'application/json' }, body: '{"a":"é"}' });
    await send(port, '/', { method: 'PUT', headers: { 'x-read': 'bytes' }, body: 'x'.repeat(100_000) });
    // Chunked: no Content-Length.
    await send(port, '/', { method: 'POST', headers: { 'x-read': 'stream', 'transfer-encoding': 'chunked' }, body: 'y'.repeat(70_000) });
    expect(seen).toEqual(['{"a":"é"}', 'Body is unusable', 100_000, 'Body is unusable', 70_000, 'Body is unusable']);
  });

  it('aborts its signal when the client goes before the response is finished', async () => {
    let aborted: (reason: unknown) => void = () => {};
    const abort = new Promise((resolve) => (aborted = resolve));
    const port = await serve((request) => {
      request.signal.addEventListener('abort', () => aborted(request.signal.reason));
      // A watch: headers at once, then nothing until the client leaves.
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n')) }), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const first = await new Promise<{ headers: IncomingHttpHeaders; chunk: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/pods?watch=1' }, (res) => {
        res.once('data', (c: Buffer) => {
          resolve({ headers: res.headers, chunk: c.toString() });
          req.destroy();
        });
      });
      req.on('error', () => {});
      req.on('error', reject);
      req.end();
    });
    expect(first.headers['transfer-encoding']).toBe('chunked');
    expect(first.headers['content-length']).toBeUndefined();
    expect(first.chunk).toBe('{"type":"ADDED"}\n');
    // Node reports the reset as the request's error, which becomes the reason.
    expect(await abort).toBe('Error: aborted');
  });

  it('refuses a target the URL parser would rewrite (a backslash in the path): 400 before the core', async () => {
    let called = false;
    const port = await serve(() => {
      called = true;
      return new Response(null, { status: 204 });
    });
    const reply = await rawExchange(port, 'GET /api\\v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(called).toBe(false);
  });

  it('builds the URL from an absolute-form target, and normalises an unusual one', async () => {
    const urls: string[] = [];
    const port = await serve((request) => {
      urls.push(request.url);
      return new Response(null, { status: 204 });
    });
    await rawExchange(port, 'GET http://example.com:8080/api?x=1 HTTP/1.1\r\nHost: other\r\nConnection: close\r\n\r\n');
    await rawExchange(port, 'GET /api/v1/x%7Cy HTTP/1.1\r\nHost: LOCALHOST:80\r\nConnection: close\r\n\r\n');
    await rawExchange(port, 'GET /version HTTP/1.0\r\n\r\n');
    expect(urls).toEqual(['http://example.com:8080/api?x=1', 'http://localhost/api/v1/x%7Cy', 'http://127.0.0.1/version']);
  });

  it('gives a repeated plain target the same URL, per Host, and still checks targets it has not seen', async () => {
    const urls: string[] = [];
    const port = await serve((request) => {
      urls.push(request.url);
      return new Response(null, { status: 204 });
    });
    const target = '/api/v1/namespaces/default/configmaps/c';
    for (const host of ['a.example:8080', 'b.example:8080', 'a.example:8080']) {
      const reply = await rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    }
    const dotted = await rawExchange(port, `GET ${target}/.. HTTP/1.1\r\nHost: a.example:8080\r\nConnection: close\r\n\r\n`);
    expect(dotted.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(urls).toEqual([`http://a.example:8080${target}`, `http://b.example:8080${target}`, `http://a.example:8080${target}`, 'http://a.example:8080/api/v1/namespaces/default/configmaps/']);
  });
});

describe('writing the Response', () => {
  it('writes a light response with its headers as given, adding only Content-Length', async () => {
    const port = await serve(() => light('{"kind":"Status"}\n', { status: 404, headers: { 'Content-Type': 'application/json', 'cache-control': 'no-cache, private' } }));
    const reply = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const [head, body] = reply.split('\r\n\r\n');
    const lines = head!.split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 404 Not Found');
    expect(lines).toContain('Content-Type: application/json');
    expect(lines).toContain('cache-control: no-cache, private');
    expect(lines).toContain('Content-Length: 18');
    expect(body).toBe('{"kind":"Status"}\n');
  });

  it('sizes each response of a shared header record by its own body, leaving the record as it was', async () => {
    const shared = { 'content-type': 'application/json' };
    const bodies = ['{}\n', '{"a":"é"}\n'];
    let n = 0;
    const port = await serve(() => light(bodies[n++ % 2]!, { status: 200, headers: shared }));
    const first = await send(port, '/');
    const second = await send(port, '/');
    expect([first.headers['content-length'], second.headers['content-length']]).toEqual(['3', '11']);
    expect([first.body, second.body]).toEqual(bodies);
    expect(shared).toEqual({ 'content-type': 'application/json' });
  });

  it('writes headers changed after the response was made (a Warning appended)', async () => {
    const port = await serve(() => {
      const response = light(new TextEncoder().encode('é'), { status: 200, headers: { 'content-type': 'text/plain', 'content-length': '2' } });
      response.headers.append('Warning', '299 - "deprecated"');
      return response;
    });
    const reply = await send(port, '/');
    expect(reply.headers).toMatchObject({ 'content-type': 'text/plain', 'content-length': '2', warning: '299 - "deprecated"' });
    expect(reply.body).toBe('é');
  });

  it('answers HEAD with the headers and no body', async () => {
    const port = await serve(() => light('abc', { status: 200, headers: { 'content-type': 'text/plain' } }));
    const reply = await rawExchange(port, 'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(reply).toMatch(/Content-Length: 3\r\n/);
    expect(reply.endsWith('\r\n\r\n')).toBe(true);
  });

  it('sends a stream that ends at once with a Content-Length, a longer one chunked, and full Responses with their Headers', async () => {
    const port = await serve((request) => {
      const bytes = new TextEncoder();
      if (request.url.endsWith('/stream')) return new Response(new ReadableStream({ start: (c) => (c.enqueue(bytes.encode('abcdef')), c.close()) }), { headers: new Headers({ 'x-kind': 'stream' }) });
      if (request.url.endsWith('/chunks')) return new Response(new ReadableStream({ start: (c) => (c.enqueue(bytes.encode('abc')), c.enqueue(bytes.encode('def')), c.close()) }));
      return Response.json({ a: 1 }, { status: 201, headers: { 'set-cookie': 'a=1' } });
    });
    const stream = await send(port, '/stream');
    expect(stream).toMatchObject({ status: 200, body: 'abcdef' });
    expect(stream.headers).toMatchObject({ 'content-length': '6', 'x-kind': 'stream', 'content-type': 'text/plain; charset=UTF-8' });
    const chunks = await send(port, '/chunks');
    expect(chunks).toMatchObject({ status: 200, body: 'abcdef' });
    expect(chunks.headers['transfer-encoding']).toBe('chunked');
    const json = await send(port, '/json');
    expect(json).toMatchObject({ status: 201, body: '{"a":1}' });
    expect(json.headers).toMatchObject({ 'content-type': 'application/json', 'set-cookie': ['a=1'] });
  });

  it('answers 500 with no body when the handler throws, and keeps serving', async () => {
    const port = await serve((request) => {
      if (request.url.endsWith('/sync')) throw new Error('boom');
      if (request.url.endsWith('/async')) return Promise.reject(new Error('boom'));
      return new Response('fine', { headers: { 'content-type': 'text/plain' } });
    });
    expect(await send(port, '/sync')).toMatchObject({ status: 500, body: '' });
    expect(await send(port, '/async')).toMatchObject({ status: 500, body: '' });
    expect(await send(port, '/')).toMatchObject({ status: 200, body: 'fine' });
  });
});

describe('the core\'s LightResponse in the host', () => {
  it('is written in one go while light and unread; a read or streamed one is a Fetch Response to stream', async () => {
    const text = light('hello', { status: 201, headers: { 'x-a': '1' } });
    expect(lightParts(text)).toEqual({ status: 201, body: 'hello', headers: { 'x-a': '1' } });
    await text.clone().text();
    expect(lightParts(text)).toBeDefined();
    await text.text();
    expect(lightParts(text)).toBeUndefined();
    expect(lightParts(light(new ReadableStream() as unknown as string))).toBeUndefined();
    expect(lightParts(new Response('native'))).toBeUndefined();
    // The host does not replace the global Response.
    const port = await serve(() => new Response('native body', { status: 200 }));
    expect(globalThis.Response).not.toBe(LightResponse);
    expect(await send(port, '/')).toMatchObject({ status: 200, body: 'native body' });
  });
});

describe('upgrade requests', () => {
  it('an h2c upgrade is served as the plain request it also is, body included, on a connection kept open', async () => {
    const seen: string[] = [];
    const port = await serve(async (request) => {
      seen.push(`${request.method} ${await request.text()} ${request.headers.get('upgrade')}`);
      return new Response('ok', { status: 201 });
    });
    const body = '{"a":1}';
    const head = (method: string, extra = '') => `${method} /x HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n${extra}\r\n`;
    // One request, its answer, then the next on the same connection.
    const out = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(head('POST', `Content-Length: ${body.length}\r\n`) + body));
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (c: string) => {
        text += c;
        if (text.endsWith('ok') && !text.includes('\r\n\r\nokHTTP')) socket.end(head('GET'));
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(out.match(/HTTP\/1\.1 201 Created/g)).toHaveLength(2);
    expect(seen).toEqual(['POST {"a":1} null', 'GET  null']);
  });

  it('a WebSocket upgrade the core does not take is answered with its Response and the connection closed', async () => {
    const port = await serve(() => new Response('{"message":"Upgrade refused"}', { status: 400, headers: { 'content-type': 'application/json' } }));
    const out = await rawExchange(port, 'GET /api/v1/namespaces/default/pods/p/exec HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(out).toMatch(/\r\nConnection: close\r\n/i);
    expect(out.endsWith('{"message":"Upgrade refused"}')).toBe(true);
  });
});
