/**
 * A Response for complete bodies (a string, bytes or nothing) with headers
 * given as a plain record. Building a Fetch Response costs a body stream and
 * a Headers even when nobody reads them; this one keeps what it was given,
 * so a host writes it to its transport as it is and an in-process caller
 * reads it with one decode. Every other member works through a Fetch
 * Response built on first use, which from then on is this response.
 *
 * Its prototype chain reaches Response.prototype (it is a Response to
 * `instanceof`), but it is not a platform object: a host handing it to the
 * platform (a service worker's `respondWith`) passes `nativeResponse(r)`.
 */
const NativeResponse = globalThis.Response;
const NativeHeaders = globalThis.Headers;

/** Statuses whose responses have no body (Fetch's null body status, and 101/103 which it refuses outright). */
const nullBodyStatus = new Set([101, 103, 204, 205, 304]);

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

export type LightBody = string | Uint8Array | null;

/** What a host writes for a response kept as given. */
export interface LightParts {
  status: number;
  body: LightBody;
  /** The init record as given, or the Headers made from it once someone read (and maybe changed) them. */
  headers: Record<string, string> | Headers | undefined;
}

function isRecord(init: HeadersInit): init is Record<string, string> {
  const proto = Object.getPrototypeOf(init) as unknown;
  return proto === Object.prototype || proto === null;
}

function bodyUnusable(): Promise<never> {
  return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
}

export class LightResponse {
  #status = 200;
  #body: LightBody = null;
  #init: Record<string, string> | undefined;
  #headers: Headers | undefined;
  #used = false;
  /** A string body whose Content-Length is still to be added when the headers are first made. */
  #sizeOnRead = false;
  #native: Response | undefined;

  /**
   * A string body with a Content-Length header, as an HTTP answer has one: it is encoded, and its
   * length known, only when someone reads the headers (an in-process client parsing the text never
   * does; a host writing it sizes the bytes it writes).
   */
  static sized(body: string, init: { status: number; headers: Record<string, string> }): LightResponse {
    const response = new LightResponse(body, init);
    response.#sizeOnRead = true;
    return response;
  }

  constructor(body?: BodyInit | LightBody, init?: ResponseInit) {
    const headers = init?.headers;
    const light = (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array) && (headers === undefined || isRecord(headers)) && init?.statusText === undefined;
    if (!light) {
      this.#native = new NativeResponse(body as BodyInit | null | undefined, init);
      return;
    }
    const status = init?.status ?? 200;
    // The checks Response's constructor makes, so the light path throws where it would.
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    if (body != null && nullBodyStatus.has(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
    this.#status = status;
    this.#body = body ?? null;
    this.#init = headers as Record<string, string> | undefined;
  }

  /** The response as given, when it is still light and unread; undefined for any other Response. */
  static lightParts(response: Response): LightParts | undefined {
    if (!(#native in response) || response.#native || response.#used) return undefined;
    return { status: response.#status, body: response.#body, headers: response.#headers ?? response.#init };
  }

  /** A platform Response for any Response: a light one becomes (and stays) its Fetch Response. */
  static toNative(response: Response): Response {
    return #native in response ? response.#response() : response;
  }

  get status(): number {
    return this.#native ? this.#native.status : this.#status;
  }

  get ok(): boolean {
    const status = this.status;
    return status >= 200 && status < 300;
  }

  get statusText(): string {
    return this.#native ? this.#native.statusText : '';
  }

  get headers(): Headers {
    if (this.#native) return this.#native.headers;
    if (!this.#headers) {
      this.#headers = new NativeHeaders(this.#init);
      // A string body is text/plain unless the headers say otherwise, as Response sets it.
      if (typeof this.#body === 'string' && !this.#headers.has('content-type')) this.#headers.set('content-type', 'text/plain;charset=UTF-8');
      if (this.#sizeOnRead && !this.#headers.has('content-length')) {
        // Whoever reads the headers (a host, a filter) writes the bytes next: encode once (natively, where
        // counting in script costs more than encoding) and keep the bytes as the body.
        const bytes = utf8Encoder.encode(this.#body as string);
        this.#body = bytes;
        this.#headers.set('content-length', String(bytes.byteLength));
      }
    }
    return this.#headers;
  }

  get type(): ResponseType {
    return this.#native ? this.#native.type : 'default';
  }

  get url(): string {
    return this.#native ? this.#native.url : '';
  }

  get redirected(): boolean {
    return this.#native ? this.#native.redirected : false;
  }

  /** The Fetch Response, which from now on is this response. */
  #response(): Response {
    if (!this.#native) {
      this.#native = new NativeResponse(this.#body as BodyInit | null, { status: this.#status, headers: this.headers });
      // A body already read here is read there too.
      if (this.#used && this.#native.body) void this.#native.body.cancel();
    }
    return this.#native;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#native && this.#body === null) return null;
    return this.#response().body;
  }

  get bodyUsed(): boolean {
    return this.#native ? this.#native.bodyUsed : this.#used;
  }

  /** The body's bytes, once: false when it was read already. */
  #take(): Uint8Array | false {
    if (this.#used) return false;
    this.#used = true;
    const body = this.#body;
    if (body === null) return new Uint8Array(0);
    return typeof body === 'string' ? utf8Encoder.encode(body) : body;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#native) return this.#native.arrayBuffer();
    const bytes = this.#take();
    return bytes ? Promise.resolve(bytes.slice().buffer) : bodyUnusable();
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#native) return this.#native.arrayBuffer().then((b) => new Uint8Array(b));
    const bytes = this.#take();
    return bytes ? Promise.resolve(bytes.slice()) : bodyUnusable();
  }

  text(): Promise<string> {
    if (this.#native) return this.#native.text();
    if (this.#used) return bodyUnusable();
    this.#used = true;
    const body = this.#body;
    return Promise.resolve(body === null ? '' : typeof body === 'string' ? body : utf8.decode(body));
  }

  json(): Promise<unknown> {
    if (this.#native) return this.#native.json();
    if (this.#used) return bodyUnusable();
    this.#used = true;
    const body = this.#body;
    try {
      return Promise.resolve(JSON.parse(body === null ? '' : typeof body === 'string' ? body : utf8.decode(body)) as unknown);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  blob(): Promise<Blob> {
    if (this.#native || this.#used) return this.#response().blob();
    const type = this.headers.get('content-type') ?? '';
    const bytes = this.#take() as Uint8Array<ArrayBuffer>;
    return Promise.resolve(new Blob([bytes], { type }));
  }

  formData(): Promise<FormData> {
    return this.#response().formData();
  }

  clone(): Response {
    if (this.#native || this.#used) return this.#response().clone();
    const copy = new LightResponse(this.#body, { status: this.#status, headers: this.#headers ? Object.fromEntries(this.#headers) : this.#init });
    copy.#sizeOnRead = this.#sizeOnRead;
    return copy as unknown as Response;
  }
}
Object.setPrototypeOf(LightResponse.prototype, NativeResponse.prototype);

/** A platform Response for any Response the core returned (see LightResponse.toNative). */
export const nativeResponse = (response: Response): Response => LightResponse.toNative(response);
