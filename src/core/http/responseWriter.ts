/**
 * Writing responses: objects and Status errors in the negotiated encoding.
 * Compression is a filter of its own (filters/compression.ts).
 */
import { errorToStatus, type Status } from '../errors';
import { jsonSerializer } from './serializers/json';
import type { Serializer } from './serializers/types';
import { serializerFor } from './negotiation';
import { parseAccept, essence } from './mediaType';
import { cborServedFrom } from './request/context';
import { LightResponse } from './lightResponse';

export interface WriteOptions {
  pretty?: boolean;
  headers?: HeadersInit;
  warnings?: string[];
  /** writeError: the CBORServingAndStorage gate (default: as the handler chain recorded it), without which a Status is never CBOR. */
  cbor?: boolean;
}

const utf8 = new TextEncoder();

export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

function baseHeaders(contentType: string, options: WriteOptions): Headers {
  const headers = new Headers(options.headers);
  headers.set('Content-Type', contentType);
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-cache, private');
  for (const w of options.warnings ?? []) headers.append('Warning', warningHeaderValue(w));
  return headers;
}

/**
 * A complete body answer. It is a LightResponse with its headers as a plain record (names in lower
 * case, as Headers lists them), which a host writes and an in-process client reads without building
 * a Headers or a body stream.
 */
export function writeBytes(status: number, contentType: string, bytes: Uint8Array, options: WriteOptions = {}): Response {
  let headers: Record<string, string>;
  if (options.headers === undefined) {
    // The common answer. Repeated Warning values join with ", " as Headers would join them.
    headers = { 'cache-control': 'no-cache, private', 'content-length': String(bytes.byteLength), 'content-type': contentType };
    if (options.warnings?.length) headers['warning'] = options.warnings.map(warningHeaderValue).join(', ');
  } else {
    const merged = baseHeaders(contentType, options);
    merged.set('Content-Length', String(bytes.byteLength));
    headers = Object.fromEntries(merged);
  }
  return new LightResponse(bytes, { status, headers }) as unknown as Response;
}

/**
 * A complete JSON answer as text (a stored object's JSON): kept as a string, so an in-process
 * client parses it with no encode and decode on the way; its Content-Length is counted when its
 * headers are first read, and a host counts the bytes it writes.
 */
export function writeJsonText(status: number, mediaType: string, text: string, options: WriteOptions = {}): Response {
  if (options.headers !== undefined) return writeBytes(status, mediaType, utf8.encode(text), options);
  const headers: Record<string, string> = { 'cache-control': 'no-cache, private', 'content-type': mediaType };
  if (options.warnings?.length) headers['warning'] = options.warnings.map(warningHeaderValue).join(', ');
  return LightResponse.sized(text, { status, headers }) as unknown as Response;
}

export function writeObject(serializer: Serializer, status: number, obj: unknown, options: WriteOptions = {}): Response {
  // A kind the encoding cannot carry (a Table in protobuf) goes out as JSON, as the apiserver falls back.
  if (serializer.supports && !serializer.supports(obj as { apiVersion?: unknown; kind?: unknown })) serializer = jsonSerializer;
  return writeBytes(status, serializer.mediaType, serializer.encode(obj, { pretty: options.pretty }), options);
}

/**
 * A Status error in the best encoding the client accepts (JSON when it
 * accepts nothing we can write, as kube-apiserver falls back).
 */
export function writeError(err: unknown, request?: Request, options: WriteOptions = {}): Response {
  const status: Status = errorToStatus(err);
  let serializer: Serializer = jsonSerializer;
  for (const m of parseAccept(request?.headers.get('accept') ?? null)) {
    if (m.params['as']) continue;
    const s = serializerFor(essence(m));
    if (s && (s.mediaType !== 'application/cbor' || (options.cbor ?? (request !== undefined && cborServedFrom(request))))) {
      serializer = s;
      break;
    }
    if (essence(m) === '*/*' || essence(m) === 'application/*') break;
  }
  if (!status.details?.retryAfterSeconds) return writeObject(serializer, status.code, status, options);
  const headers = new Headers(options.headers);
  headers.set('Retry-After', String(status.details.retryAfterSeconds));
  return writeObject(serializer, status.code, status, { ...options, headers });
}

export function writeText(status: number, text: string, options: WriteOptions = {}): Response {
  const headers = baseHeaders('text/plain; charset=utf-8', options);
  headers.set('X-Content-Type-Options', 'nosniff');
  return new LightResponse(text, { status, headers: Object.fromEntries(headers) }) as unknown as Response;
}
