/**
 * requestInfo: turns a URL and method into the Kubernetes request attributes
 * (k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory): which API
 * group/version/resource/subresource/name, and which verb (the spec's
 * HTTP-to-verb table).
 */
import { newBadRequest } from '../errors';
import { boolParam, queryOf } from './queryParams';

export interface RequestInfo {
  /** False for discovery, /version, /healthz and other non-resource paths. */
  isResourceRequest: boolean;
  path: string;
  /** API verb (get, list, watch, create, update, patch, delete, deletecollection) or the lowercase HTTP method for non-resource requests. */
  verb: string;
  /** "api" or "apis" for API paths. */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the subresource (proxy paths). */
  parts: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * A path segment with its escapes decoded. Go's HTTP server refuses a request
 * line with a malformed escape (`invalid URL escape "%zz"`) before any handler
 * runs; the core answers it with the same words as a 400 BadRequest.
 */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2}).{0,2}/s.exec(segment)?.[0] ?? segment;
    throw newBadRequest(`invalid URL escape ${JSON.stringify(bad)}`);
  }
}

/**
 * The attributes of an object path resolved lately, by method and the path of its collection: a
 * path naming another object of that collection has the same attributes but its name and path, so
 * a client reading many objects in turn (each path seen once) resolves one path per collection.
 * Kept for the plain case only: no query, the name last and unescaped, no subresource, and not
 * the namespaces resource (whose name is also the namespace). Starts over when full.
 */
const byCollection = new Map<string, RequestInfo>();
const byCollectionLimit = 64;

export function newRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const plain = slash > 0 && name !== '' && url.search === '' && !name.includes('%');
  // The method has no '/', the path starts with one: the two joined name one collection path.
  const collection = plain ? method + path.slice(0, slash) : '';
  const known = plain ? byCollection.get(collection) : undefined;
  if (known) {
    // Written out in the resolver's field order: every RequestInfo keeps the one shape its readers are compiled for.
    return { isResourceRequest: true, path, verb: known.verb, apiPrefix: known.apiPrefix, apiGroup: known.apiGroup, apiVersion: known.apiVersion, namespace: known.namespace, resource: known.resource, subresource: '', name, parts: [] };
  }
  const info = resolveRequestInfo(method, url, path);
  if (plain && info.isResourceRequest && info.name === name && info.subresource === '' && info.resource !== 'namespaces' && info.parts.length === 0) {
    if (byCollection.size >= byCollectionLimit) byCollection.clear();
    byCollection.set(collection, info);
  }
  return info;
}

function resolveRequestInfo(method: string, url: URL, path: string): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: '',
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const segments = path.split('/');
  // Empty segments are dropped at the ends only (`/api/v1/` is /api/v1; `a//b` keeps its empty name).
  const parts: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s !== '' || (i > 0 && i < segments.length - 1)) parts.push(decodeSegment(s));
  }
  // Walked with an index (p) rather than by slicing: this runs for every request.
  let p = 0;
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource(info, method);
  info.apiPrefix = parts[p++]!;
  if (info.apiPrefix === 'apis') {
    if (parts.length - p < 1) return nonResource(info, method); // /apis
    info.apiGroup = parts[p++]!;
  }
  if (parts.length - p < 1) return nonResource(info, method); // /api, /apis/{group}
  info.apiVersion = parts[p++]!;
  if (parts.length - p < 1) return nonResource(info, method); // /api/v1, /apis/{g}/{v}

  info.isResourceRequest = true;
  const query = queryOf(url);
  // The deprecated /watch/ path prefix.
  let watchPrefix = false;
  if (parts[p] === 'watch') {
    watchPrefix = true;
    p++;
  }

  switch (method) {
    case 'POST': info.verb = 'create'; break;
    case 'GET': case 'HEAD': info.verb = 'get'; break;
    case 'PUT': info.verb = 'update'; break;
    case 'PATCH': info.verb = 'patch'; break;
    case 'DELETE': info.verb = 'delete'; break;
    default: info.verb = ''; break;
  }

  // namespaces/{ns}/{resource}... except /namespaces/{name} and its own subresources.
  if (parts[p] === 'namespaces') {
    if (parts.length - p > 1) {
      info.namespace = parts[p + 1]!;
      if (parts.length - p > 2 && !namespaceSubresources.has(parts[p + 2]!)) p += 2;
    }
  }
  const n = parts.length - p;
  if (n >= 3) info.subresource = parts[p + 2]!;
  if (n >= 2) info.name = parts[p + 1]!;
  if (n >= 1) info.resource = parts[p]!;
  // The namespaces resource itself: /api/v1/namespaces/{name} is not "in" a namespace.
  if (info.resource === 'namespaces') info.namespace = n >= 2 ? info.name : '';
  if (n > 3) info.parts = parts.slice(p + 3);

  if (watchPrefix || (info.verb === 'get' && boolParam(query, 'watch'))) info.verb = 'watch';
  else if (info.verb === 'get' && !info.name) info.verb = 'list';
  if (info.verb === 'delete' && !info.name) info.verb = 'deletecollection';
  if ((info.verb === 'list' || info.verb === 'watch') && !info.name) {
    // A list or watch narrowed to one object by metadata.name is authorized as that object.
    const fs = query.get('fieldSelector') ?? '';
    const m = /^metadata\.name(?:==?)([^,]+)$/.exec(fs);
    if (m) info.name = m[1]!;
  }
  return info;
}

/** A non-resource request: its verb is the lowercase HTTP method. */
function nonResource(info: RequestInfo, method: string): RequestInfo {
  info.verb = method.toLowerCase();
  return info;
}
