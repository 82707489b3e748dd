/**
 * client-go's dynamic client for callers in the same process: every request
 * is an HTTP request handed to the server's `handle()` (authentication with
 * the client's headers, authorization, admission, audit, metrics: the whole
 * pipeline), built as a LightRequest and answered, for complete bodies, with
 * a LightResponse, so no Fetch Request, Headers or body stream is made on the
 * way. Bodies are JSON both ways, as a remote client sends and reads them:
 * the caller's objects are never the server's.
 *
 *   const pods = createClient(api).resource({ group: '', version: 'v1', resource: 'pods' }).namespace('default');
 *   const pod = await pods.create(body, { fieldManager: 'me' });
 *
 * Failures throw a StatusError carrying the server's Status (code, reason,
 * details), as client-go returns an errors.StatusError.
 */
import type { KubeList, KubeObject } from '../api/types';
import { StatusError, type Status, type StatusReason } from '../errors';
import { headerFields, LightRequest, type HeaderFields } from '../http/lightRequest';
import {
  deleteOptionsBody,
  PatchType,
  queryString,
  type ApplyOptions,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
  type UpdateOptions,
} from './options';
import { Watch } from './watch';

/** What the client sends requests to: the core's ApiServer, or anything with its handle(). */
export interface RequestHandler {
  handle(request: Request): Promise<Response>;
}

export interface GroupVersionResource {
  /** '' for the core group. */
  group: string;
  version: string;
  resource: string;
}

export interface ClientOptions {
  /** Headers sent with every request: Authorization, Impersonate-User, Impersonate-Group (several as "a, b")... */
  headers?: Record<string, string>;
  /** The User-Agent; its part before the first "/" is the default field manager, as kube-apiserver derives it. */
  userAgent?: string;
  /** Scheme and authority of the request URLs (the core routes on the path alone). */
  server?: string;
}

/** The verbs on one resource, in a namespace or cluster-wide: client-go's dynamic.ResourceInterface. */
export interface ResourceInterface {
  create<T extends object = KubeObject>(obj: object, options?: CreateOptions, ...subresources: string[]): Promise<T>;
  update<T extends object = KubeObject>(obj: object, options?: UpdateOptions, ...subresources: string[]): Promise<T>;
  updateStatus<T extends object = KubeObject>(obj: object, options?: UpdateOptions): Promise<T>;
  /** The deleted object (or a Status), as the server answers: an object with finalizers is returned still present. */
  delete<T extends object = KubeObject | Status>(name: string, options?: DeleteOptions, ...subresources: string[]): Promise<T>;
  deleteCollection(options?: DeleteOptions, listOptions?: ListOptions): Promise<void>;
  get<T extends object = KubeObject>(name: string, options?: GetOptions, ...subresources: string[]): Promise<T>;
  list<T extends object = KubeList>(options?: ListOptions): Promise<T>;
  /** Starts a watch; resolves once the server accepted it (a refused one throws, e.g. 410 Expired). */
  watch<T extends object = KubeObject>(options?: ListOptions): Promise<Watch<T>>;
  /** data: the patch document, as text or bytes, or an object sent as JSON. */
  patch<T extends object = KubeObject>(name: string, type: PatchType, data: string | Uint8Array | object, options?: PatchOptions, ...subresources: string[]): Promise<T>;
  /** Server-side apply of obj (sent as JSON, which is YAML) by options.fieldManager. */
  apply<T extends object = KubeObject>(name: string, obj: object, options: ApplyOptions, ...subresources: string[]): Promise<T>;
  applyStatus<T extends object = KubeObject>(name: string, obj: object, options: ApplyOptions): Promise<T>;
}

export interface NamespaceableResourceInterface extends ResourceInterface {
  namespace(namespace: string): ResourceInterface;
}

export interface DynamicClient {
  resource(gvr: GroupVersionResource): NamespaceableResourceInterface;
}

const utf8 = new TextEncoder();
const jsonType = 'application/json';

/** The reason client-go gives a failure whose body is not a Status (errors.NewGenericServerResponse). */
const reasonForCode: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because it is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to process the request because of an unsupported media type'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status' && typeof (value as { code?: unknown }).code === 'number';
}

/** The StatusError for a failed answer: the server's Status, or one made from the code when the body is not one. */
function statusError(code: number, text: string): StatusError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isStatus(body)) return new StatusError(body);
  const [reason, message] = reasonForCode[code] ?? (['', `the server responded with the status code ${code} but did not return more information`] as const);
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: text.trim() ? `${message} (${text.trim()})` : message, reason, code };
  return new StatusError(status);
}

/** A path segment as written: names kube allows (`system:node:a`) need no escaping. */
const plainSegment = /^[\w.~:@!$&'()*+,;=-]+$/;
function segment(name: string): string {
  if (name === '') throw new Error('resource name may not be empty');
  return plainSegment.test(name) ? name : encodeURIComponent(name);
}

function nameOf(obj: object): string {
  const name = (obj as { metadata?: { name?: unknown } }).metadata?.name;
  if (typeof name !== 'string' || name === '') throw new Error('name is required');
  return name;
}

function subresourcePath(subresources: readonly string[]): string {
  let path = '';
  for (const s of subresources) path += `/${segment(s)}`;
  return path;
}

/** Sends requests with one client's headers: the shared fields are built once, not per request. */
class Transport {
  readonly handler: RequestHandler;
  readonly server: string;
  readonly #plain: HeaderFields;
  /** Per Content-Type: the names (sorted) of a request with a body, which adds Content-Type and Content-Length. */
  readonly #withBody = new Map<string, readonly string[]>();

  constructor(handler: RequestHandler, options: ClientOptions) {
    this.handler = handler;
    this.server = (options.server ?? 'http://localhost').replace(/\/+$/, '');
    this.#plain = headerFields({ accept: jsonType, 'user-agent': options.userAgent ?? 'kubesim-client/v1.32.0', ...options.headers });
  }

  #bodyFields(contentType: string, length: number): HeaderFields {
    let names = this.#withBody.get(contentType);
    if (!names) {
      names = [...new Set([...this.#plain.names, 'content-type', 'content-length'])].sort();
      this.#withBody.set(contentType, names);
    }
    return { values: { ...this.#plain.values, 'content-type': contentType, 'content-length': String(length) }, names };
  }

  send(method: string, url: string, body?: string | Uint8Array, contentType = jsonType, signal?: AbortSignal): Promise<Response> {
    if (body === undefined) return this.handler.handle(new LightRequest(method, url, this.#plain, null, signal) as unknown as Request);
    const bytes = typeof body === 'string' ? utf8.encode(body) : body;
    return this.handler.handle(new LightRequest(method, url, this.#bodyFields(contentType, bytes.byteLength), bytes, signal) as unknown as Request);
  }

  /** The answer's object; a failure throws its StatusError. */
  async call<T>(method: string, url: string, body?: string | Uint8Array, contentType?: string): Promise<T> {
    const res = await this.send(method, url, body, contentType);
    const status = res.status;
    if (status >= 200 && status < 300) return (await res.json()) as T;
    throw statusError(status, await res.text());
  }
}

class ResourceClient implements NamespaceableResourceInterface {
  readonly #transport: Transport;
  readonly #gvr: GroupVersionResource;
  /** The collection's URL: …/api/v1[/namespaces/ns]/pods. */
  readonly #collection: string;

  constructor(transport: Transport, gvr: GroupVersionResource, namespace?: string) {
    this.#transport = transport;
    this.#gvr = gvr;
    const groupVersion = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
    const scope = namespace === undefined ? '' : `/namespaces/${segment(namespace)}`;
    this.#collection = `${transport.server}${groupVersion}${scope}/${segment(gvr.resource)}`;
  }

  namespace(namespace: string): ResourceInterface {
    return new ResourceClient(this.#transport, this.#gvr, namespace);
  }

  #item(name: string, subresources: readonly string[]): string {
    const path = `${this.#collection}/${segment(name)}`;
    return subresources.length === 0 ? path : path + subresourcePath(subresources);
  }

  async create<T extends object = KubeObject>(obj: object, options?: CreateOptions, ...subresources: string[]): Promise<T> {
    const url = subresources.length === 0 ? this.#collection : this.#item(nameOf(obj), subresources);
    return this.#transport.call<T>('POST', url + queryString(options), JSON.stringify(obj));
  }

  async update<T extends object = KubeObject>(obj: object, options?: UpdateOptions, ...subresources: string[]): Promise<T> {
    return this.#transport.call<T>('PUT', this.#item(nameOf(obj), subresources) + queryString(options), JSON.stringify(obj));
  }

  updateStatus<T extends object = KubeObject>(obj: object, options?: UpdateOptions): Promise<T> {
    return this.update<T>(obj, options, 'status');
  }

  async delete<T extends object = KubeObject | Status>(name: string, options: DeleteOptions = {}, ...subresources: string[]): Promise<T> {
    return this.#transport.call<T>('DELETE', this.#item(name, subresources), deleteOptionsBody(options));
  }

  async deleteCollection(options: DeleteOptions = {}, listOptions?: ListOptions): Promise<void> {
    await this.#transport.call<unknown>('DELETE', this.#collection + queryString(listOptions), deleteOptionsBody(options));
  }

  get<T extends object = KubeObject>(name: string, options?: GetOptions, ...subresources: string[]): Promise<T> {
    // Not an async function: the read path takes no extra promise; a bad name still rejects.
    let url: string;
    try {
      url = this.#item(name, subresources) + queryString(options);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#transport.call<T>('GET', url);
  }

  list<T extends object = KubeList>(options?: ListOptions): Promise<T> {
    return this.#transport.call<T>('GET', this.#collection + queryString(options));
  }

  async watch<T extends object = KubeObject>(options?: ListOptions): Promise<Watch<T>> {
    const abort = new AbortController();
    const res = await this.#transport.send('GET', this.#collection + queryString(options, '&watch=true'), undefined, undefined, abort.signal);
    if (res.status !== 200) {
      const error = statusError(res.status, await res.text());
      abort.abort();
      throw error;
    }
    return new Watch<T>(res.body, abort);
  }

  async patch<T extends object = KubeObject>(name: string, type: PatchType, data: string | Uint8Array | object, options?: PatchOptions, ...subresources: string[]): Promise<T> {
    const body = typeof data === 'string' || data instanceof Uint8Array ? data : JSON.stringify(data);
    return this.#transport.call<T>('PATCH', this.#item(name, subresources) + queryString(options), body, type);
  }

  apply<T extends object = KubeObject>(name: string, obj: object, options: ApplyOptions, ...subresources: string[]): Promise<T> {
    return this.patch<T>(name, PatchType.Apply, obj, options, ...subresources);
  }

  applyStatus<T extends object = KubeObject>(name: string, obj: object, options: ApplyOptions): Promise<T> {
    return this.apply<T>(name, obj, options, 'status');
  }
}

/** A dynamic client whose requests go to handler.handle() with options.headers (the user they authenticate as). */
export function createClient(handler: RequestHandler, options: ClientOptions = {}): DynamicClient {
  const transport = new Transport(handler, options);
  return { resource: (gvr) => new ResourceClient(transport, gvr) };
}
