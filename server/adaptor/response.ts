/**
 * A lightweight Response for the Node host, installed as the global
 * Response: a body that is a string, bytes or nothing, with headers given as
 * a plain record, is kept as it was given, so the host writes it to the
 * socket without building a Headers, a body stream or a reader. Anything
 * else (a stream, a Headers init, reading the body back) is a full Fetch
 * Response, made on first use.
 */
const NativeResponse = globalThis.Response;
const NativeHeaders = globalThis.Headers;

/** Statuses whose responses have no body (Fetch's null body status, and 101/103 which it refuses outright). */
const nullBodyStatus = new Set([101, 103, 204, 205, 304]);

export type LightBody = string | Uint8Array | null;

/** What the host writes for a response kept as given. */
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

export class HostResponse {
  #status = 200;
  #body: LightBody = null;
  #init: Record<string, string> | undefined;
  #headers: Headers | undefined;
  #native: Response | undefined;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    const headers = init?.headers;
    const light = (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array) && (headers === undefined || isRecord(headers)) && init?.statusText === undefined;
    if (!light) {
      this.#native = new NativeResponse(body, init);
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

  /** The response as given, when it is still light; undefined when it is (or became) a full Response. */
  static lightParts(response: Response): LightParts | undefined {
    if (!(#native in response) || response.#native) return undefined;
    return { status: response.#status, body: response.#body, headers: response.#headers ?? response.#init };
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof NativeResponse;
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

  /** The full Response, which from now on is this response. */
  #response(): Response {
    return (this.#native ??= new NativeResponse(this.#body as BodyInit | null, { status: this.#status, headers: this.headers }));
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#response().body;
  }

  get bodyUsed(): boolean {
    return this.#native ? this.#native.bodyUsed : false;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#response().arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.#response().blob();
  }

  formData(): Promise<FormData> {
    return this.#response().formData();
  }

  json(): Promise<unknown> {
    return this.#response().json();
  }

  text(): Promise<string> {
    return this.#response().text();
  }

  clone(): Response {
    return this.#response().clone();
  }
}
Object.setPrototypeOf(HostResponse, NativeResponse);
Object.setPrototypeOf(HostResponse.prototype, NativeResponse.prototype);

/**
 * Makes HostResponse the global Response, so the core's `new Response(...)`
 * in this process builds light ones. Full Responses (fetch's, streams) are
 * still Responses to `instanceof`.
 */
export function installHostResponse(): void {
  if (globalThis.Response !== (HostResponse as unknown as typeof Response)) globalThis.Response = HostResponse as unknown as typeof Response;
}
