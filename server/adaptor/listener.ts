/**
 * The Node host's HTTP adaptor: each IncomingMessage becomes the core's
 * Request (adaptor/request.ts) and the Response is written back to the
 * ServerResponse. A light response (adaptor/response.ts) goes out in one
 * writeHead and end; a streamed one (watch) is pumped with backpressure, and
 * a socket close cancels its stream. A close before the response finished
 * aborts the Request's signal, so long-running requests stop.
 */
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isPortForward, upgradeSessionOf } from '../../src/core/http/upgrade';
import { servePortForward } from './portForward';
import { serveExecStream } from './remoteCommand';
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import { BadRequestTarget, IncomingRequest, knownPlainTargetUrl, requestTargetUrl } from './request';
import { lightParts } from './response';

/**
 * The core's entry: one Request in, one Response out. The IncomingMessage is there for what only the
 * socket knows (client certificates); `plainTarget` says the target is a plain path seen lately (no
 * escapes, no dot segments), so checks of the raw target can be skipped.
 */
export type FetchHandler = (request: Request, incoming: IncomingMessage, plainTarget: boolean) => Response | Promise<Response>;

const defaultContentType = 'text/plain; charset=UTF-8';

/** A Headers as ServerResponse header values (Set-Cookie as its list). */
function outgoingHeaders(headers: Headers, hasBody: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) if (name !== 'set-cookie') out[name] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  if (hasBody) out['content-type'] ??= defaultContentType;
  return out;
}

function hasContentLength(headers: Record<string, unknown>): boolean {
  for (const name in headers) if (name.length === 14 && name.toLowerCase() === 'content-length') return true;
  return false;
}

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

function failResponse(err: unknown, outgoing: ServerResponse): void {
  const error = err instanceof Error ? err : new Error('unknown error', { cause: err });
  if ((error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
  console.error(err);
  if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
  outgoing.end(`Error: ${error.message}`);
  outgoing.destroy(error);
}

/** Writes a stream's chunks as they come, waiting for drain; the socket closing cancels the stream. */
function pump(reader: ReadableStreamDefaultReader<Uint8Array>, outgoing: ServerResponse, pending?: Promise<ReadableStreamReadResult<Uint8Array>>): Promise<void> {
  const cancel = () => void reader.cancel().catch(() => {});
  if (outgoing.destroyed) {
    cancel();
    return reader.closed;
  }
  outgoing.on('close', cancel);
  outgoing.on('error', cancel);
  const fail = (err: unknown) => {
    if (err) outgoing.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  const next = () => void reader.read().then(flow, fail);
  const flow = ({ done, value }: ReadableStreamReadResult<Uint8Array>) => {
    try {
      if (done) outgoing.end();
      else if (!outgoing.write(value)) outgoing.once('drain', next);
      else next();
    } catch (e) {
      fail(e);
    }
  };
  (pending ?? reader.read()).then(flow, fail);
  return reader.closed.finally(() => {
    outgoing.off('close', cancel);
    outgoing.off('error', cancel);
  });
}

/** A read that settles now if a chunk is already there, or undefined. */
function readNow<T>(read: Promise<T>): Promise<T | undefined> {
  return Promise.race([read, Promise.resolve().then(() => undefined)]);
}

/**
 * A full Response. A stream body that ends within its first few ready
 * chunks goes out with a Content-Length; a longer one (a watch) is chunked
 * and flushed at once.
 */
async function writeStreamed(response: Response, outgoing: ServerResponse): Promise<void> {
  const body = response.body;
  const headers = outgoingHeaders(response.headers, body !== null);
  if (!body) {
    outgoing.writeHead(response.status, headers);
    outgoing.end();
    return;
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let done = false;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  if (headers['transfer-encoding'] !== 'chunked') {
    let reads = 2;
    for (let i = 0; i < reads; i++) {
      pending ??= reader.read();
      const chunk = await readNow(pending);
      if (!chunk) {
        if (i === 1) {
          // One turn of the event loop for a producer that is nearly done.
          await new Promise((resolve) => setTimeout(resolve));
          reads = 3;
          continue;
        }
        break;
      }
      pending = undefined;
      if (chunk.value) chunks.push(chunk.value);
      if (chunk.done) {
        done = true;
        break;
      }
    }
    if (done && !('content-length' in headers)) headers['content-length'] = String(chunks.reduce((n, c) => n + c.byteLength, 0));
  }
  outgoing.writeHead(response.status, headers);
  for (const c of chunks) outgoing.write(c);
  if (done) {
    outgoing.end();
    return;
  }
  if (!chunks.length) outgoing.flushHeaders();
  await pump(reader, outgoing, pending);
}

/** Writes the core's Response: a light one in one writeHead and end, anything else through its body stream. */
export function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> | void {
  const light = lightParts(response);
  if (!light) return writeStreamed(response, outgoing);
  const { status, body } = light;
  let headers: Record<string, string | string[]> | undefined;
  if (light.headers instanceof Headers) {
    headers = outgoingHeaders(light.headers, body !== null);
    if (body !== null && !('content-length' in headers)) headers['content-length'] = String(byteLength(body));
  } else {
    headers = light.headers;
    if (body !== null && (!headers || !hasContentLength(headers))) {
      // A copy, as the record may be shared; Object.assign keeps it a fast object, where a spread
      // with a key added makes one ServerResponse iterates several times slower.
      headers = Object.assign({}, headers);
      headers['Content-Length'] = String(byteLength(body));
    }
  }
  outgoing.writeHead(status, headers);
  if (body === null) outgoing.end();
  else outgoing.end(body);
}

/** The ServerResponse to a request the core did not get: 400 for a bad target, 500 (504 for a timeout) for a handler that threw. */
function writeEmpty(status: number, outgoing: ServerResponse): void {
  outgoing.writeHead(status);
  outgoing.end();
}

function fetchFailureStatus(err: unknown): number {
  return err instanceof Error && (err.name === 'TimeoutError' || err.constructor.name === 'TimeoutError') ? 504 : 500;
}

export interface ListenerOptions {
  scheme: 'http' | 'https';
  /** The host part of URLs for requests without a Host header. */
  defaultHost: string;
}

/** The `request` listener that serves `fetch` on a Node HTTP(S) server. */
export function requestListener(fetch: FetchHandler, options: ListenerOptions): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  return (incoming, outgoing) => {
    let request: IncomingRequest;
    const known = knownPlainTargetUrl(incoming, options.scheme, options.defaultHost);
    try {
      request = new IncomingRequest(incoming, known ?? requestTargetUrl(incoming, options.scheme, options.defaultHost), () => watchConnection(incoming, outgoing, request));
    } catch (e) {
      if (!(e instanceof BadRequestTarget)) throw e;
      return writeEmpty(400, outgoing);
    }
    let response: Response | Promise<Response>;
    try {
      response = fetch(request as unknown as Request, incoming, known !== undefined);
    } catch (e) {
      return writeEmpty(fetchFailureStatus(e), outgoing);
    }
    // Functions made per request are passed inline: tsx names each one assigned to a local, at a microsecond apiece.
    if (response instanceof Promise) response.then((r) => writeSafely(r, outgoing), (e: unknown) => writeEmpty(fetchFailureStatus(e), outgoing));
    else writeSafely(response, outgoing);
  };
}

function writeSafely(response: Response, outgoing: ServerResponse): void {
  try {
    const writing = writeResponse(response, outgoing);
    if (writing) writing.catch((e: unknown) => failResponse(e, outgoing));
  } catch (e) {
    failResponse(e, outgoing);
  }
}

/**
 * Aborts the request's signal if the client goes before the response is
 * finished. Attached when the core first reads the signal, so requests
 * that never look at it cost no listener.
 */
function watchConnection(incoming: IncomingMessage, outgoing: ServerResponse, request: IncomingRequest): void {
  if (outgoing.destroyed) abortUnfinished(incoming, outgoing, request);
  else outgoing.once('close', () => abortUnfinished(incoming, outgoing, request));
}

function abortUnfinished(incoming: IncomingMessage, outgoing: ServerResponse, request: IncomingRequest): void {
  if (incoming.errored) request.abort(String(incoming.errored));
  else if (!outgoing.writableFinished) request.abort('Client connection prematurely closed.');
}

export interface HostServerOptions {
  fetch: FetchHandler;
  /** The bind address, the URL host of requests without a Host header. */
  hostname: string;
  /** Serve HTTPS with these options. */
  tls?: HttpsServerOptions;
}

/**
 * The `upgrade` listener: the core answers the request as any other; when it
 * hands over a stream session (exec), the connection is upgraded to it, else
 * its answer is written and the connection closed.
 */
export function upgradeListener(fetch: FetchHandler, options: ListenerOptions, server?: Server): (incoming: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (incoming, socket, head) => {
    // Only the streaming protocols are taken up; any other (h2c) is served as the plain request it also is.
    const protocol = (incoming.headers.upgrade ?? '').toLowerCase();
    if (server && protocol !== 'websocket' && protocol !== 'spdy/3.1') return reparseWithoutUpgrade(server, options.scheme, incoming, socket, head);
    socket.on('error', () => socket.destroy());
    let request: IncomingRequest;
    try {
      request = new IncomingRequest(incoming, requestTargetUrl(incoming, options.scheme, options.defaultHost), () => socket.once('close', () => request.abort('Client connection prematurely closed.')));
    } catch (e) {
      if (!(e instanceof BadRequestTarget)) throw e;
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    void Promise.resolve()
      .then(() => fetch(request as unknown as Request, incoming, false))
      .then(
        (response) => {
          const session = upgradeSessionOf(request as unknown as Request);
          if (session) return isPortForward(session) ? servePortForward(session, incoming, socket, head) : serveExecStream(session, incoming, socket, head);
          // Written as a ServerResponse over the socket, then closed: the connection is not reused.
          const outgoing = new ServerResponse(incoming);
          outgoing.shouldKeepAlive = false;
          outgoing.assignSocket(socket as Socket);
          outgoing.once('finish', () => {
            outgoing.detachSocket(socket as Socket);
            socket.end();
          });
          writeSafely(response, outgoing);
        },
        () => socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
      );
  };
}

/**
 * Hands the connection back to the HTTP server with the request's head
 * written again without its Upgrade, so Node parses it (and its body) as a
 * plain request, as it did with no `upgrade` listener.
 */
function reparseWithoutUpgrade(server: Server, scheme: 'http' | 'https', incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
  const lines = [`${incoming.method ?? 'GET'} ${incoming.url ?? '/'} HTTP/${incoming.httpVersion}`];
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (lower === 'upgrade' || lower === 'http2-settings') continue;
    if (lower === 'connection') {
      const tokens = raw[i + 1]!.split(',').map((t) => t.trim()).filter((t) => t && !/^(upgrade|http2-settings)$/i.test(t));
      if (tokens.length) lines.push(`${name}: ${tokens.join(', ')}`);
      continue;
    }
    lines.push(`${name}: ${raw[i + 1]!}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), head]));
  server.emit(scheme === 'https' ? 'secureConnection' : 'connection', socket);
}

export function createHostServer(options: HostServerOptions): Server {
  const defaultHost = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname;
  const scheme = options.tls ? 'https' : 'http';
  const server = options.tls ? createHttpsServer(options.tls, requestListener(options.fetch, { scheme, defaultHost })) : createHttpServer(requestListener(options.fetch, { scheme, defaultHost }));
  server.on('upgrade', upgradeListener(options.fetch, { scheme, defaultHost }, server));
  return server;
}
