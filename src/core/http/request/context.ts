/**
 * Values scoped to one request (k8s.io/apiserver/pkg/endpoints/request/context.go):
 * the request attributes, the authenticated user and the trace every stage
 * appends to. Filters set them with withX and read them with xFrom; the key is
 * the Request itself, so nothing leaks across requests.
 */
import type { UserInfo } from '../../auth/user';
import type { RequestInfo } from '../requestInfo';
import { RecentKeys } from '../../util/recentKeys';

/** One step of a request's trace: which stage decided what (the workbench explains requests from these). */
export interface TraceEntry {
  /** `authentication`, `impersonation`, `authorization`, `admission`, `fieldManager`, `storage`, ... */
  stage: string;
  message: string;
  details?: Record<string, unknown>;
}

interface RequestContext {
  /** request.url parsed, once per request. */
  url?: URL;
  /** Whether url is the one shared by the requests to its text (seen lately): caches keyed by it or by its RequestInfo keep entries only then. */
  sharedUrl?: boolean;
  info?: RequestInfo;
  user?: UserInfo;
  /** The user before impersonation was applied (set only when it was). */
  originalUser?: UserInfo;
  /** Whether this server serves CBOR (CBORServingAndStorage), for errors written before any handler. */
  cbor?: boolean;
  /** Whether the client asked for the trace (X-Kubesim-Trace): entries are recorded only then. */
  tracing?: boolean;
  /** Set when the request was served by a deprecated API version: its planned removal release ('' when none). */
  deprecatedRemovedRelease?: string;
  /** Made when the first entry is recorded: most requests are not traced. */
  trace: TraceEntry[] | undefined;
}

/**
 * The context rides on the Request under a private symbol: a property read
 * where a WeakMap lookup would hash the key, on every one of the dozen
 * reads a request makes.
 */
const contextKey = Symbol('kubesim.requestContext');
type WithContext = Request & { [contextKey]?: RequestContext };

function existing(request: Request): RequestContext | undefined {
  return (request as WithContext)[contextKey];
}

function contextOf(request: Request): RequestContext {
  return ((request as WithContext)[contextKey] ??= { url: undefined, sharedUrl: undefined, info: undefined, user: undefined, originalUser: undefined, cbor: undefined, tracing: undefined, deprecatedRemovedRelease: undefined, trace: undefined });
}

/**
 * URLs parsed lately, by their text. Clients repeat the same few paths, and
 * a lookup costs less than a parse. A URL is kept from its text's second
 * sighting in a while on: a client that goes through many objects in turn
 * (each path seen once) keeps no URL, and no entry of the caches keyed by it
 * or by its RequestInfo, alive for the garbage collector to copy for no hit.
 * Both tables start over when full. The URLs are shared between requests, so
 * nobody may change one.
 */
const parsedUrlsLimit = 256;
const parsedUrls = new Map<string, URL>();
const seenUrls = new RecentKeys<string>(parsedUrlsLimit);

/** The request's URL, parsed once however many stages read it. Callers must not change it. */
export function requestUrl(request: Request): URL {
  const ctx = contextOf(request);
  if (ctx.url) return ctx.url;
  const text = request.url;
  let url = parsedUrls.get(text);
  if (url) ctx.sharedUrl = true;
  else {
    url = new URL(text);
    ctx.sharedUrl = seenUrls.repeated(text);
    if (ctx.sharedUrl) {
      if (parsedUrls.size >= parsedUrlsLimit) parsedUrls.clear();
      parsedUrls.set(text, url);
    }
  }
  return (ctx.url = url);
}

/** Whether the request's URL (requestUrl) is shared with the requests to its text: what is kept for it is found again. */
export function hasSharedUrl(request: Request): boolean {
  return existing(request)?.sharedUrl === true;
}

export function withRequestInfo(request: Request, info: RequestInfo): void {
  contextOf(request).info = info;
}

export function requestInfoFrom(request: Request): RequestInfo | undefined {
  return existing(request)?.info;
}

export function withUser(request: Request, user: UserInfo): void {
  contextOf(request).user = user;
}

export function userFrom(request: Request): UserInfo | undefined {
  return existing(request)?.user;
}

export function withOriginalUser(request: Request, user: UserInfo): void {
  contextOf(request).originalUser = user;
}

export function originalUserFrom(request: Request): UserInfo | undefined {
  return existing(request)?.originalUser;
}

export function withCborServed(request: Request, served: boolean): void {
  contextOf(request).cbor = served;
}

export function cborServedFrom(request: Request): boolean {
  return existing(request)?.cbor === true;
}

/** Marks the request as served by a deprecated API version (apiserver_requested_deprecated_apis counts it). */
export function withDeprecatedApi(request: Request, removedRelease: string): void {
  contextOf(request).deprecatedRemovedRelease = removedRelease;
}

/** The removal release of the deprecated version that served the request ('' when none is planned); undefined when not deprecated. */
export function deprecatedApiFrom(request: Request): string | undefined {
  return existing(request)?.deprecatedRemovedRelease;
}

/** Turns recording on for this request's trace (withTraceHeader, when the client asks for it). */
export function withTracing(request: Request): void {
  contextOf(request).tracing = true;
}

/** Records entry when the request is traced; otherwise it is dropped. */
export function addTrace(request: Request, entry: TraceEntry): void {
  const ctx = existing(request);
  if (ctx?.tracing) (ctx.trace ??= []).push(entry);
}

/**
 * Where this request's trace entries go, or undefined when nobody asked for
 * them, so a stage whose entries cost work to build (ownership changes,
 * storage writes) skips them.
 */
export function traceSink(request: Request): ((entry: TraceEntry) => void) | undefined {
  const ctx = existing(request);
  return ctx?.tracing ? (entry) => (ctx.trace ??= []).push(entry) : undefined;
}

export function traceFrom(request: Request): readonly TraceEntry[] {
  return existing(request)?.trace ?? [];
}
