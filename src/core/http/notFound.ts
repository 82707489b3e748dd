/**
 * kube-apiserver's two answers for a path nothing serves.
 *
 * Built-in API groups are go-restful web services (`/api`, `/api/v1`,
 * `/apis/{group}`, `/apis/{group}/{version}`, and `/version`); the director
 * hands any path under one of them to go-restful, whose route miss
 * serviceErrorHandler turns into a negotiated Status
 * (NewGenericServerResponse(404, ..., isUnexpectedResponse=false): NotFound,
 * "the server could not find the requested resource", empty details).
 *
 * Every other path (an unknown group, a custom resource group's unknown
 * resource or unserved version, a non-API path) falls through the aggregator
 * and apiextensions to the NotFoundHandler at the end of the delegation
 * chain: Go's http.NotFound, plain text.
 */
import { newGenericNotFound } from '../errors';
import type { ResourceRegistry } from '../registry/registry';
import { writeError, writeText } from './responseWriter';

/** Whether a served group has a built-in (go-restful) web service: at least one version of built-in resources. */
function builtinGroup(registry: ResourceRegistry, group: string): boolean {
  const served = registry.group(group);
  return !!served && served.versions.some((v) => registry.resourcesIn(group, v).some((r) => !r.custom));
}

/** Whether kube's director would dispatch `path` to go-restful (a built-in web service's prefix). */
export function underRestfulWebService(registry: ResourceRegistry, path: string): boolean {
  const [root, group] = path.split('/').filter((s) => s !== '');
  if (root === 'api' || root === 'version') return true;
  return root === 'apis' && group !== undefined && builtinGroup(registry, group);
}

/** http.NotFound: the NotFoundHandler once every path is installed. */
export function writePlainNotFound(): Response {
  return writeText(404, '404 page not found\n');
}

/** The 404 kube-apiserver answers for `path`, which nothing serves. */
export function writeNotFound(registry: ResourceRegistry, request: Request, path: string): Response {
  return underRestfulWebService(registry, path) ? writeError(newGenericNotFound(), request) : writePlainNotFound();
}
