/**
 * Request attributes for authorization (k8s.io/apiserver/pkg/endpoints/filters
 * GetAuthorizerAttributes) and the 403 a denial becomes
 * (endpoints/handlers/responsewriters.Forbidden).
 */
import { goQuote, StatusError } from '../../errors';
import type { RequestInfo } from '../../http/requestInfo';
import type { UserInfo } from '../user';
import type { Attributes } from './types';

export function attributesFor(user: UserInfo, info: RequestInfo, url: URL): Attributes {
  const attrs: Attributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: url.pathname,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
  if (info.isResourceRequest && url.search !== '') {
    const fs = url.searchParams.get('fieldSelector');
    const ls = url.searchParams.get('labelSelector');
    if (fs) attrs.fieldSelector = fs;
    if (ls) attrs.labelSelector = ls;
  }
  return attrs;
}

/** `User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"` (or at the cluster scope, or path). */
export function forbiddenMessage(attrs: Attributes): string {
  const user = goQuote(attrs.user.username);
  if (!attrs.isResourceRequest) return `User ${user} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} ${where}`;
}

/** apierrors.NewForbidden over the request's group/resource; a non-resource path has neither. */
export function newAuthorizationForbidden(attrs: Attributes, reason: string): StatusError {
  const why = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  const gr = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  let message: string;
  if (!gr) message = `forbidden: ${why}`;
  else if (!attrs.name) message = `${gr} is forbidden: ${why}`;
  else message = `${gr} ${goQuote(attrs.name)} is forbidden: ${why}`;
  const details: { name?: string; group?: string; kind?: string } = {};
  if (attrs.name) details.name = attrs.name;
  if (attrs.apiGroup) details.group = attrs.apiGroup;
  if (attrs.resource) details.kind = attrs.resource;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
}
