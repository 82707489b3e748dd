/**
 * A Request for callers in the same process (the in-process client): the
 * method, URL, header lookups and a complete body are kept as given, and a
 * Fetch Request (with its Headers, body stream and signal) is built only
 * when the core asks for something else. `new Request(url, init)` costs
 * several microseconds of Headers and stream set-up per call.
 *
 * Both classes' prototype chains reach the Fetch ones, so they are a Request
 * and a Headers to `instanceof`.
 */
const NativeHeaders = globalThis.Headers;
const NativeRequest = globalThis.Request;

const utf8 = new TextDecoder();

/**
 * Header fields as a record of lower-case names, with the names sorted as
 * Headers lists them. One record is shared by every request a client makes;
 * it is never changed (a request that changes its headers gets a copy).
 */
export interface HeaderFields {
  readonly values: Readonly<Record<string, string>>;
  readonly names: readonly string[];
}

/** Header fields from a record of any case (the last of two names differing only in case wins). */
export function headerFields(init: Readonly<Record<string, string>>): HeaderFields {
  const values: Record<string, string> = {};
  for (const name in init) values[name.toLowerCase()] = init[name]!.trim();
  return { values, names: Object.keys(values).sort() };
}

/**
 * A Headers whose lookups read the request as its host received it: get(),
 * has() and keys() are the subclass's, and anything else (iteration,
 * changes) works on a Fetch Headers the subclass builds on first use; once
 * built, every call reads it. The Node host's IncomingHeaders is the other
 * subclass.
 */
export abstract class LazyHeaders {
  #native: Headers | undefined;

  /** The Fetch Headers holding the same fields. */
  protected abstract build(): Headers;
  /** get() of a lower-case name, before any Fetch Headers exists. */
  protected abstract lookup(name: string): string | null;
  /** has() of a lower-case name, before any Fetch Headers exists. */
  protected abstract present(name: string): boolean;
  /** The lower-case names in the order Headers lists them, before any Fetch Headers exists. */
  protected abstract names(): readonly string[];

  protected headers(): Headers {
    return (this.#native ??= this.build());
  }

  get(name: string): string | null {
    return this.#native ? this.#native.get(name) : this.lookup(name.toLowerCase());
  }

  has(name: string): boolean {
    return this.#native ? this.#native.has(name) : this.present(name.toLowerCase());
  }

  keys(): HeadersIterator<string> {
    return this.#native ? this.#native.keys() : (this.names()[Symbol.iterator]() as HeadersIterator<string>);
  }

  values(): HeadersIterator<string> {
    return this.headers().values();
  }

  entries(): HeadersIterator<[string, string]> {
    return this.headers().entries();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.headers()[Symbol.iterator]();
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.headers().forEach((value, key) => callback.call(thisArg, value, key, this as unknown as Headers));
  }

  getSetCookie(): string[] {
    return this.headers().getSetCookie();
  }

  append(name: string, value: string): void {
    this.headers().append(name, value);
  }

  set(name: string, value: string): void {
    this.headers().set(name, value);
  }

  delete(name: string): void {
    this.headers().delete(name);
  }
}
Object.setPrototypeOf(LazyHeaders.prototype, NativeHeaders.prototype);

/** Headers over shared HeaderFields (one record for every request a client makes, copied when changed). */
export class LightHeaders extends LazyHeaders {
  #fields: HeaderFields;

  constructor(fields: HeaderFields) {
    super();
    this.#fields = fields;
  }

  protected build(): Headers {
    const native = new NativeHeaders();
    for (const name of this.#fields.names) native.append(name, this.#fields.values[name]!);
    return native;
  }

  protected lookup(name: string): string | null {
    return this.#fields.values[name] ?? null;
  }

  protected present(name: string): boolean {
    return this.#fields.values[name] !== undefined;
  }

  protected names(): readonly string[] {
    return this.#fields.names;
  }
}

function bodyUnusable(): Promise<never> {
  return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
}

/**
 * A Request whose hot parts (method, URL, headers, a complete body) are its
 * subclass's own, with a Fetch Request built on first use for the rest
 * (blob, formData, clone and the fetch-only properties); its prototype chain
 * reaches Request.prototype, so it is a Request to `instanceof`. The Node
 * host's IncomingRequest is the other subclass.
 */
export abstract class LazyRequest {
  /** The Fetch Request, once something needed it. */
  protected native: Request | undefined;

  /** Builds the Fetch Request with the same method, URL, headers, body and signal. */
  protected abstract build(): Request;

  protected request(): Request {
    return (this.native ??= this.build());
  }

  blob(): Promise<Blob> {
    return this.request().blob();
  }

  formData(): Promise<FormData> {
    return this.request().formData();
  }

  clone(): Request {
    return this.request().clone();
  }

  static {
    for (const name of ['cache', 'credentials', 'destination', 'duplex', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy'] as const) {
      Object.defineProperty(LazyRequest.prototype, name, {
        get(this: LazyRequest) {
          return this.request()[name as keyof Request];
        },
      });
    }
  }
}
Object.setPrototypeOf(LazyRequest.prototype, NativeRequest.prototype);

/** A signal for requests whose caller gave none: nothing aborts it. */
let neverAborted: AbortSignal | undefined;

export class LightRequest extends LazyRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  #body: Uint8Array | null;
  #signal: AbortSignal | undefined;
  #used = false;

  /** body: the complete body (its length should be in the headers' Content-Length, as an HTTP client sends it). */
  constructor(method: string, url: string, headers: HeaderFields, body: Uint8Array | null = null, signal?: AbortSignal) {
    super();
    this.method = method;
    this.url = url;
    this.headers = new LightHeaders(headers) as unknown as Headers;
    this.#body = body;
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    return this.#signal ?? (neverAborted ??= new AbortController().signal);
  }

  protected build(): Request {
    const body = this.#used ? new Uint8Array(0) : this.#body;
    // The caller's signal only: a Fetch Request listens on the signal it is given for as long as that
    // signal lives, so the shared never-aborted one would keep every Request built from it alive.
    return new NativeRequest(this.url, { method: this.method, headers: this.headers, body: body as BodyInit | null, signal: this.#signal });
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === null && !this.native) return null;
    return this.request().body;
  }

  get bodyUsed(): boolean {
    return this.native ? this.native.bodyUsed : this.#used;
  }

  #take(): Uint8Array | false {
    if (this.#used) return false;
    this.#used = true;
    return this.#body ?? new Uint8Array(0);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.native) return this.native.arrayBuffer();
    const b = this.#take();
    if (!b) return bodyUnusable();
    // The body is this request's own: its buffer is handed over when it is exactly the body.
    const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
    return Promise.resolve(whole ? (b.buffer as ArrayBuffer) : (b.slice().buffer as ArrayBuffer));
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.arrayBuffer().then((b) => new Uint8Array(b));
  }

  text(): Promise<string> {
    if (this.native) return this.native.text();
    const b = this.#take();
    return b ? Promise.resolve(utf8.decode(b)) : bodyUnusable();
  }

  json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t) as unknown);
  }
}
