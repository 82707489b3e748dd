/**
 * /healthz, /livez, /readyz with their named checks and `?verbose` output,
 * answered as plain text the way kube-apiserver's healthz package writes it.
 */
import { writeText } from '../http/responseWriter';

const checks: Record<string, string[]> = {
  healthz: ['ping', 'log', 'etcd', 'poststarthook/start-apiextensions-informers', 'poststarthook/crd-informer-synced', 'poststarthook/rbac/bootstrap-roles'],
  livez: ['ping', 'log', 'etcd', 'poststarthook/start-apiextensions-informers', 'poststarthook/crd-informer-synced', 'poststarthook/rbac/bootstrap-roles'],
  readyz: ['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', 'poststarthook/start-apiextensions-informers', 'poststarthook/crd-informer-synced', 'poststarthook/rbac/bootstrap-roles', 'shutdown'],
};

export function serveHealth(path: string, url: URL): Response | undefined {
  const m = /^\/(healthz|livez|readyz)(?:\/(.+))?\/?$/.exec(path);
  if (!m) return undefined;
  const endpoint = m[1]!;
  const names = checks[endpoint]!;
  const single = m[2];
  if (single) {
    if (!names.includes(single)) return writeText(404, '404 page not found\n');
    return writeText(200, 'ok');
  }
  const excluded = new Set(url.searchParams.getAll('exclude'));
  if (url.searchParams.has('verbose')) {
    const lines = names.map((n) => (excluded.has(n) ? `[+]${n} excluded: ok` : `[+]${n} ok`));
    return writeText(200, `${lines.join('\n')}\n${endpoint} check passed\n`);
  }
  return writeText(200, 'ok');
}
