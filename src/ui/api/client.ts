/**
 * The workbench's HTTP client for the API server. It speaks JSON over fetch,
 * exactly as any other client would, and turns every failure into an
 * ApiError that carries the whole Status (reason, details, causes).
 */
import { responseText } from './protobufGuard';
import type { KubeObject, Status } from './types';

/** Anything that maps a Request to a Response: the browser's fetch, or the core's handle in tests. */
export type FetchFn = (request: Request) => Promise<Response>;

export class ApiError extends Error {
  constructor(
    readonly status: Status,
    /** Warning headers that came with the failure (fieldValidation=Warn, deprecations). */
    readonly warnings: readonly string[] = [],
  ) {
    super(status.message ?? status.reason ?? `request failed with ${status.code ?? 'no'} code`);
    this.name = 'ApiError';
  }

  /** The HTTP status code (0 when the request never reached the server). */
  get code(): number {
    return this.status.code ?? 0;
  }

  get reason(): string {
    return this.status.reason ?? 'Unknown';
  }
}

/** A body the client cannot decode (a protobuf body without the `k8s\0` prefix, say), with the response's code. */
export class ResponseDecodeError extends ApiError {}

/** A successful response's JSON body; ResponseDecodeError for a body that is not JSON the client can read. */
async function readJson<T>(response: Response, warnings: readonly string[] = []): Promise<T> {
  const body = await responseText(response);
  if ('problem' in body) {
    throw new ResponseDecodeError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: response.status, reason: 'Unknown', message: body.problem }, warnings);
  }
  return JSON.parse(body.text) as T;
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export interface CreateOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

/** The query parameters every write takes, as kubectl's flags set them. */
export interface WriteOptions extends CreateOptions {
  /** Server-side apply only: take over fields other managers own. */
  force?: boolean;
  /** Ignore, Warn or Strict; undefined leaves the server's default (Warn). */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/** A write's answer: the object the server returned and the texts of its Warning headers. */
export interface WriteResult<T extends KubeObject = KubeObject> {
  object: T;
  warnings: string[];
}

export type WriteVerb = 'create' | 'replace' | 'apply' | 'delete';

export interface ApiClient {
  /** Sends a request and returns the raw Response (for streams); only an unreachable server throws. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** GETs a path and parses the JSON body; `accept` asks for another representation (a server-side Table). */
  get<T>(path: string, init?: { signal?: AbortSignal; accept?: string }): Promise<T>;
  /** POSTs an object to a collection path and returns the created object. */
  create<T extends KubeObject = KubeObject>(collectionPath: string, object: KubeObject, options?: CreateOptions): Promise<T>;
  /**
   * create POSTs to a collection; replace PUTs, apply PATCHes
   * (application/apply-patch+yaml) and delete DELETEs an object path.
   * Failures throw an ApiError carrying the Status and the warnings.
   */
  write<T extends KubeObject = KubeObject>(verb: WriteVerb, path: string, body: KubeObject | string | undefined, options?: WriteOptions): Promise<WriteResult<T>>;
}

/** One request the client made and the server's trace of it (X-Kubesim-Trace), for the Trace panel. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  trace: TraceEntry[];
}

export interface TraceEntry {
  stage: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Reads the `X-Kubesim-Trace` response header (URI-encoded JSON). */
export function traceOf(response: Response): TraceEntry[] {
  const header = response.headers.get('X-Kubesim-Trace');
  if (!header) return [];
  try {
    return JSON.parse(decodeURIComponent(header)) as TraceEntry[];
  } catch {
    return [];
  }
}

/**
 * `observe`, when given, asks the server for each request's trace and
 * reports every exchange to it.
 */
export function createApiClient(
  fetchFn: FetchFn = (request) => fetch(request),
  baseUrl = globalThis.location?.origin ?? 'http://localhost',
  observe?: (exchange: Exchange) => void,
): ApiClient {
  async function raw(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      const request = new Request(new URL(path, baseUrl), init);
      if (observe) request.headers.set('X-Kubesim-Trace', '1');
      const response = await fetchFn(request);
      observe?.({ method: request.method, path, status: response.status, trace: traceOf(response) });
      return response;
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: `could not reach the API server: ${error instanceof Error ? error.message : String(error)}`,
        reason: 'ServiceUnavailable',
        code: 0,
      });
    }
  }

  async function send<T>(path: string, init: RequestInit): Promise<T> {
    const response = await raw(path, init);
    if (!response.ok) throw new ApiError(await statusFrom(response));
    return readJson<T>(response);
  }

  async function write<T extends KubeObject>(verb: WriteVerb, path: string, body: KubeObject | string | undefined, options: WriteOptions = {}): Promise<WriteResult<T>> {
    const query = new URLSearchParams();
    if (options.fieldManager && verb !== 'delete') query.set('fieldManager', options.fieldManager);
    if (options.dryRun) query.set('dryRun', 'All');
    if (options.force && verb === 'apply') query.set('force', 'true');
    if (options.fieldValidation && verb !== 'delete') query.set('fieldValidation', options.fieldValidation);
    const qs = query.size > 0 ? `?${query}` : '';
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = verb === 'apply' ? 'application/apply-patch+yaml' : 'application/json';
    const response = await raw(path + qs, {
      method: WRITE_METHODS[verb],
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const warnings = warningsOf(response.headers);
    if (!response.ok) throw new ApiError(await statusFrom(response), warnings);
    return { object: await readJson<T>(response, warnings), warnings };
  }

  return {
    fetch: raw,
    write,
    get: (path, init) => send(path, { headers: { Accept: init?.accept ?? 'application/json' }, signal: init?.signal }),
    create: (collectionPath, object, options) => {
      const query = new URLSearchParams();
      if (options?.fieldManager) query.set('fieldManager', options.fieldManager);
      if (options?.dryRun) query.set('dryRun', 'All');
      const qs = query.size > 0 ? `?${query}` : '';
      return send(collectionPath + qs, {
        method: 'POST',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
        body: JSON.stringify(object),
      });
    },
  };
}

const WRITE_METHODS: Record<WriteVerb, string> = { create: 'POST', replace: 'PUT', apply: 'PATCH', delete: 'DELETE' };

/**
 * The texts of `Warning: 299 - "text"` headers (RFC 7234 warn-text, quoted
 * with backslash escapes), as client-go's warning handler prints them.
 */
export function warningsOf(headers: Headers): string[] {
  const value = headers.get('Warning');
  if (!value) return [];
  const texts: string[] = [];
  const pattern = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
  for (const match of value.matchAll(pattern)) {
    try {
      texts.push(JSON.parse(`"${match[1]!}"`) as string);
    } catch {
      texts.push(match[1]!);
    }
  }
  return texts;
}

/**
 * Reads a failed response's Status. A body that is not a Status (a proxy's
 * HTML page, say) becomes one synthesised from the code, as client-go does.
 */
export async function statusFrom(response: Response): Promise<Status> {
  const body = await responseText(response);
  const text = 'text' in body ? body.text : '';
  if ('problem' in body) {
    return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: response.status, reason: REASON_BY_CODE[response.status] ?? 'Unknown', message: body.problem };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isStatus(parsed)) return { ...parsed, code: parsed.code ?? response.status };
  } catch {
    // not JSON: fall through
  }
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: response.status,
    reason: REASON_BY_CODE[response.status] ?? 'Unknown',
    message: MESSAGE_BY_CODE[response.status] ?? `an error on the server (${text.trim().slice(0, 200) || response.statusText}) has prevented the request from succeeding`,
  };
}

function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const MESSAGE_BY_CODE: Record<number, string> = {
  401: 'the server has asked for the client to provide credentials',
  403: 'the server does not allow access to the requested resource',
  404: 'the server could not find the requested resource',
  409: 'the server reported a conflict',
  503: 'the server is currently unable to handle the request',
  504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
};
