/**
 * Where the API server proxies to what a Service or a Pod serves, as
 * `kubectl proxy` exposes it: services/{name}:{port}/proxy/ for the
 * Service's first port (by name when it has one), pods/{name}:{port}/proxy/
 * for the first port a container declares. The service worker answers a tab
 * opened there (src/sw/apiPaths.ts isProxyPath), so the page a simulated
 * server in the pod writes opens in the browser.
 */
import { arr, record, str } from '../../../core/printers/format';
import type { KubeObject, ResourceKind } from '../../api';

export function proxyPathOf(kind: ResourceKind, object: KubeObject): string | undefined {
  if (kind.group !== '') return undefined;
  const ns = encodeURIComponent(object.metadata?.namespace ?? 'default');
  const name = encodeURIComponent(object.metadata?.name ?? '');
  const spec = record(object['spec']);
  if (kind.kind === 'Service') {
    const port = record(arr(spec['ports'])[0]);
    if (!Object.keys(port).length || str(spec['type']) === 'ExternalName') return undefined;
    return `/api/v1/namespaces/${ns}/services/${name}:${str(port['name']) || String(port['port'] ?? '')}/proxy/`;
  }
  if (kind.kind === 'Pod') {
    const port = arr(spec['containers']).flatMap((c) => arr(record(c)['ports']))[0];
    if (port === undefined) return undefined;
    return `/api/v1/namespaces/${ns}/pods/${name}:${String(record(port)['containerPort'] ?? '')}/proxy/`;
  }
  return undefined;
}
