/**
 * The web Request the core sees for one IncomingMessage, built lazily: the
 * method, URL and header lookups read Node's parsed request directly, and a
 * full Fetch Request (with its Headers, body stream and signal) is made only
 * when the core asks for something else. A GET costs one small object where
 * `new Request(url, init)` costs several microseconds.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { LazyHeaders, LazyRequest } from '../../src/core/http/lightRequest';

const NativeHeaders = globalThis.Headers;
const NativeRequest = globalThis.Request;

/**
 * Headers Node keeps only the first of when a request repeats them
 * (IncomingMessage's matchKnownFields); Fetch Headers joins every value with
 * ", ", so these are read from the raw header list.
 */
const firstValueOnly = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent', 'set-cookie',
]);

function isHttpWhitespace(code: number): boolean {
  return code === 9 || code === 10 || code === 13 || code === 32;
}

/** A header value with HTTP whitespace trimmed at both ends, as Headers normalises it. */
function normalized(value: string): string {
  return isHttpWhitespace(value.charCodeAt(0)) || isHttpWhitespace(value.charCodeAt(value.length - 1)) ? value.trim() : value;
}

/**
 * Header names in code unit order, as Array.prototype.sort orders them: an
 * insertion sort, which for the handful of names a request carries costs a
 * fraction of the generic sort (every request's impersonation check lists them).
 */
function sortNames(names: string[]): string[] {
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!;
    let j = i - 1;
    for (; j >= 0 && names[j]! > name; j--) names[j + 1] = names[j]!;
    names[j + 1] = name;
  }
  return names;
}

/**
 * Request headers over Node's parsed ones: get() and has() read them in
 * place, keys() lists their names, anything else works on a Fetch Headers
 * made from the raw list on first use (LazyHeaders).
 */
export class IncomingHeaders extends LazyHeaders {
  #incoming: IncomingMessage;

  constructor(incoming: IncomingMessage) {
    super();
    this.#incoming = incoming;
  }

  protected build(): Headers {
    const native = new NativeHeaders();
    const raw = this.#incoming.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) native.append(raw[i]!, raw[i + 1]!);
    return native;
  }

  /** Every value of a header Node keeps once, joined as Headers joins them. */
  #joined(name: string): string | null {
    const raw = this.#incoming.rawHeaders;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!;
      if (n.length === name.length && n.toLowerCase() === name) value = value === null ? normalized(raw[i + 1]!) : `${value}, ${normalized(raw[i + 1]!)}`;
    }
    return value;
  }

  protected lookup(name: string): string | null {
    const value = this.#incoming.headers[name];
    if (value === undefined) return null;
    if (typeof value !== 'string' || firstValueOnly.has(name)) return this.#joined(name);
    return normalized(value);
  }

  protected present(name: string): boolean {
    return this.#incoming.headers[name] !== undefined;
  }

  /** Node's names are lower case already, one per header; Headers lists them sorted. */
  protected names(): readonly string[] {
    return sortNames(Object.keys(this.#incoming.headers));
  }
}

/**
 * Reads a whole request body (a Node stream) into one buffer. The listeners
 * stay on the finished message, which goes with the request; they are
 * passed inline because tsx names every function it sees assigned to a
 * local, and that costs a microsecond per function made.
 */
function readAll(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    incoming.on('error', (err: Error) => reject(err));
    incoming.on('close', () => {
      if (!incoming.readableEnded) reject(new Error('Client connection prematurely closed.'));
    });
  });
}

function bodyUnusable(): TypeError {
  return new TypeError('Body is unusable');
}

/**
 * One request as the core's Request. Its prototype chain reaches
 * Request.prototype, so it is a Request to `instanceof`; properties the core
 * never reads on the hot path come from a full Request built on first use.
 */
export class IncomingRequest extends LazyRequest {
  readonly method: string;
  readonly url: string;
  #incoming: IncomingMessage;
  #headers: IncomingHeaders | undefined;
  #controller: AbortController | undefined;
  #abortReason: string | undefined;
  /** Called when something first listens for an abort, so the host watches the connection only then. */
  #onSignal: (() => void) | undefined;
  #bodyUsed = false;
  #bodyStream: ReadableStream<Uint8Array> | undefined;

  constructor(incoming: IncomingMessage, url: string, onSignal?: () => void) {
    super();
    this.method = incoming.method ?? 'GET';
    this.url = url;
    this.#incoming = incoming;
    this.#onSignal = onSignal;
  }

  get headers(): Headers {
    return (this.#headers ??= new IncomingHeaders(this.#incoming)) as unknown as Headers;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
      else this.#onSignal?.();
    }
    return this.#controller.signal;
  }

  /** The client went away: the signal aborts (now, or when first read). */
  abort(reason: string): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.native) return this.native.body;
    if (this.method === 'GET' || this.method === 'HEAD') return null;
    if (!this.#bodyStream) {
      this.#bodyStream = this.#bodyUsed ? new ReadableStream({ start: (c) => c.close() }) : (Readable.toWeb(this.#incoming) as ReadableStream<Uint8Array>);
    }
    return this.#bodyStream;
  }

  get bodyUsed(): boolean {
    if (this.native) return this.native.bodyUsed;
    return this.#bodyUsed || (this.#bodyStream?.locked ?? false);
  }

  /** The body as one buffer, straight from the socket (no web stream) unless a stream was asked for. */
  #bytes(): Promise<Buffer> {
    if (this.method === 'GET' || this.method === 'HEAD') return Promise.resolve(Buffer.alloc(0));
    if (this.#bodyUsed || this.#bodyStream) return Promise.reject(bodyUnusable());
    this.#bodyUsed = true;
    return readAll(this.#incoming);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.native) return this.native.arrayBuffer();
    return this.#bytes().then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
  }

  bytes(): Promise<Uint8Array> {
    if (this.native) return this.native.arrayBuffer().then((b) => new Uint8Array(b));
    return this.#bytes().then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
  }

  text(): Promise<string> {
    if (this.native) return this.native.text();
    return this.#bytes().then((b) => new TextDecoder().decode(b));
  }

  json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t) as unknown);
  }

  protected build(): Request {
    const hasBody = this.method !== 'GET' && this.method !== 'HEAD';
    const body = hasBody ? this.body : null;
    return new NativeRequest(this.url, { method: this.method, headers: this.headers, body, signal: this.signal, ...(body ? { duplex: 'half' } : {}) } as RequestInit);
  }
}

/** A request line or Host header the URL cannot be built from: answered 400 before the core sees it. */
export class BadRequestTarget extends Error {}

const plainTarget = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const dotSegment = /\/\.\.?(?:[/?#]|$)/;
const plainHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** The URL parser turns `\` into `/` in the path; Go keeps it, so such a target is refused rather than rewritten. */
function refuseBackslash(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return;
  const query = target.indexOf('?');
  if (query === -1 || backslash < query) throw new BadRequestTarget('Backslash in request path');
}

/**
 * Plain URLs made lately, by scheme, Host and target. Clients repeat their
 * requests: a repeated one skips the checks, and gets the very string the
 * last one got, whose hash the core's lookups by URL text already know.
 * Bounded: starts over when full.
 */
const plainUrls = { http: new Map<string, Map<string, string>>(), https: new Map<string, Map<string, string>>() };
let plainUrlCount = 0;
const plainUrlLimit = 1024;

function rememberPlainUrl(scheme: 'http' | 'https', host: string, target: string, url: string): string {
  if (++plainUrlCount > plainUrlLimit) {
    plainUrls.http.clear();
    plainUrls.https.clear();
    plainUrlCount = 1;
  }
  let byTarget = plainUrls[scheme].get(host);
  if (!byTarget) plainUrls[scheme].set(host, (byTarget = new Map()));
  byTarget.set(target, url);
  return url;
}

/**
 * The URL of a plain target (origin-form, without escapes or dot segments) seen lately under the same
 * scheme and Host, or undefined: most requests repeat one, and need no other check.
 */
export function knownPlainTargetUrl(incoming: IncomingMessage, scheme: 'http' | 'https', defaultHost: string): string | undefined {
  return plainUrls[scheme].get(incoming.headers.host || defaultHost)?.get(incoming.url ?? '');
}

/**
 * The request's absolute URL: the target as sent when it is plain (the
 * common case, no parsing, remembered for knownPlainTargetUrl), otherwise as
 * the URL parser normalises it. The listener asks knownPlainTargetUrl first.
 */
export function requestTargetUrl(incoming: IncomingMessage, scheme: 'http' | 'https', defaultHost: string): string {
  const target = incoming.url ?? '';
  if (target[0] !== '/' && (target.startsWith('http://') || target.startsWith('https://'))) {
    refuseBackslash(target);
    try {
      return new URL(target).href;
    } catch {
      throw new BadRequestTarget('Invalid absolute URL');
    }
  }
  const host = incoming.headers.host || defaultHost;
  if (!host) throw new BadRequestTarget('Missing host header');
  const url = `${scheme}://${host}${target}`;
  if (target === '') return `${url}/`;
  if (target.charCodeAt(0) !== 47) throw new BadRequestTarget('Invalid URL');
  if (plainHost.test(host) && plainTarget.test(target) && !dotSegment.test(target)) return rememberPlainUrl(scheme, host, target, url);
  refuseBackslash(target);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequestTarget('Invalid URL');
  }
  // A Host header the parser reads differently (userinfo, a path) is not a host.
  const hostname = host.includes(':') ? host.replace(/:\d+$/, '') : host;
  if (parsed.hostname.length !== host.length && parsed.hostname !== hostname.toLowerCase()) throw new BadRequestTarget('Invalid host header');
  return parsed.href;
}
