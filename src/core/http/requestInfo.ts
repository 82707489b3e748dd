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

export function newRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
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
  let parts: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s !== '' || (i > 0 && i < segments.length - 1)) parts.push(decodeSegment(s));
  }
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info; // /apis
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info; // /api, /apis/{group}
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info; // /api/v1, /apis/{g}/{v}

  info.isResourceRequest = true;
  const query = queryOf(url);
  // The deprecated /watch/ path prefix.
  let watchPrefix = false;
  if (parts[0] === 'watch') {
    watchPrefix = true;
    parts = parts.slice(1);
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
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) {
        parts = parts.slice(2);
      }
    }
  }
  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;
  // The namespaces resource itself: /api/v1/namespaces/{name} is not "in" a namespace.
  if (info.resource === 'namespaces') info.namespace = parts.length >= 2 ? info.name : '';
  if (parts.length > 3) info.parts = parts.slice(3);
  else info.parts = [];

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
