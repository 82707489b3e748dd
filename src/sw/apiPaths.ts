/**
 * Which same-origin paths belong to the API server. Everything else (the
 * workbench's HTML, scripts, styles, Vite's dev endpoints) goes to the network.
 */

/** First path segments kube-apiserver answers: resource APIs, discovery, OpenAPI, health, metrics, version, /debug (kubesim's operator endpoints live under /debug/kubesim). */
export const API_ROOTS: readonly string[] = [
  'api',
  'apis',
  'version',
  'openapi',
  'healthz',
  'livez',
  'readyz',
  'metrics',
  'statusz',
  'flagz',
  'debug',
];

/** True for `/api`, `/api/v1/...`, `/healthz/ping` and the like; false for `/apiary` or `/src/api.ts`. */
export function isApiPath(pathname: string): boolean {
  const first = pathname.split('/')[1] ?? '';
  return API_ROOTS.includes(first);
}

/**
 * A pod's or a service's proxy (`/api/v1/namespaces/{ns}/pods|services/{name}/proxy/...`): the one API
 * path a browser tab may open, to see what a server in a simulated pod answers, as `kubectl proxy` shows it.
 */
export function isProxyPath(pathname: string): boolean {
  return /^\/api\/v1\/namespaces\/[^/]+\/(pods|services)\/[^/]+\/proxy(\/|$)/.test(pathname);
}
