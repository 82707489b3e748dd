/**
 * API discovery: pure functions from a ResourceRegistry to the documents
 * kube-apiserver serves at /api, /apis, /api/v1, /apis/{group} and
 * /apis/{group}/{version}, in the legacy shapes and in aggregated discovery
 * (apidiscovery.k8s.io/v2 and v2beta1), plus the Accept negotiation between
 * them. HTTP wiring (status codes, errors, compression) is the caller's.
 */
import type { ResourceRegistry } from '../registry/registry';
import { aggregatedDiscovery } from './aggregated';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './legacy';
import { aggregatedContentType, negotiateDiscovery } from './negotiation';

export * from './aggregated';
export * from './legacy';
export * from './negotiation';

export interface DiscoveryOptions {
  /** Address clients should use, reported in /api's serverAddressByClientCIDRs (e.g. "10.0.0.1:6443"). */
  serverAddress: string;
}

export interface DiscoveryResponse {
  /** 200, or 406 when the Accept header allows neither JSON shape. */
  status: 200 | 406;
  contentType: string;
  body: unknown;
  /** Discovery depends on Accept, so caches must key on it. */
  headers: Record<string, string>;
}

const vary = { Vary: 'Accept' };

/**
 * Answers GET on a discovery path. `path` is the URL path without query
 * (a trailing slash is ignored). Returns undefined for paths that are not
 * discovery documents of a served group or group version (the caller answers
 * 404). /api and /apis honour aggregated discovery; the per-group and
 * per-version documents only exist in the legacy shape.
 */
export function serveDiscovery(
  registry: ResourceRegistry,
  path: string,
  accept: string | null | undefined,
  options: DiscoveryOptions,
): DiscoveryResponse | undefined {
  const segments = path.replace(/\/+$/, '').split('/').filter((s) => s !== '');
  const [root, a, b, ...rest] = segments;
  if (rest.length > 0 || (root !== 'api' && root !== 'apis')) return undefined;

  if (a === undefined) {
    const shape = negotiateDiscovery(accept);
    if (shape.kind === 'notAcceptable') {
      return { status: 406, contentType: 'application/json', body: undefined, headers: vary };
    }
    if (shape.kind === 'aggregated') {
      return {
        status: 200,
        contentType: aggregatedContentType(shape.version),
        body: aggregatedDiscovery(registry, root, shape.version),
        headers: vary,
      };
    }
    const body = root === 'api' ? apiVersions(registry, options.serverAddress) : apiGroupList(registry);
    return { status: 200, contentType: 'application/json', body, headers: vary };
  }

  let body: unknown;
  if (root === 'api') {
    body = b === undefined ? apiResourceList(registry, '', a) : undefined;
  } else if (b === undefined) {
    body = apiGroup(registry, a);
  } else {
    body = apiResourceList(registry, a, b);
  }
  return body === undefined ? undefined : { status: 200, contentType: 'application/json', body, headers: {} };
}
