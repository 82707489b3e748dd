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
