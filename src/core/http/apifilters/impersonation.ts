/**
 * withImpersonation (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go):
 * after authentication, Impersonate-User/-Group/-Uid/-Extra-<key> headers
 * switch the request's user, each value checked first with the `impersonate`
 * verb for the real caller (users, groups, serviceaccounts in the core group;
 * userextras/<key> and uids in authentication.k8s.io). Groups, extras or a
 * uid without a user is a 500, as upstream answers it.
 */
import type { Attributes, Authorizer } from '../../auth/authorizer/types';
import { makeGroupNames, makeUsername, splitUsername } from '../../auth/serviceaccount/username';
import { allAuthenticated, allUnauthenticated, anonymousUser, type UserInfo } from '../../auth/user';
import { newForbidden } from '../../errors';
import type { Handler } from '../chain';
import { addTrace, userFrom, withOriginalUser, withUser } from '../request/context';
import { writeError, writeText } from '../responseWriter';

const userHeader = 'impersonate-user';
const uidHeader = 'impersonate-uid';
const groupHeader = 'impersonate-group';
const extraPrefix = 'impersonate-extra-';
const authenticationV1 = 'authentication.k8s.io/v1';

/** One thing to impersonate, as upstream's ObjectReference (its Go %v appears in the 500 message). */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace?: string;
  name: string;
  apiVersion?: string;
  /** The extra key (upstream keeps it in FieldPath). */
  fieldPath?: string;
}

/** Go's %v of a v1.ObjectReference: its seven string fields in order, space separated. */
function goObjectReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace ?? '', r.name, '', r.apiVersion ?? '', '', r.fieldPath ?? ''].join(' ')}}`;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function headerValues(headers: Headers, name: string): string[] {
  const v = headers.get(name);
  // Headers joins repeated fields with ", "; kubectl sends one value per field and values hold no commas in practice.
  return v === null ? [] : v.split(', ');
}

class ImpersonationHeaderError extends Error {}

const noRequests: ImpersonationRequest[] = [];

function buildImpersonationRequests(headers: Headers): ImpersonationRequest[] {
  // One pass over the names: most requests carry no Impersonate-* header at all.
  let impersonating = false;
  for (const h of headers.keys()) {
    if (h.startsWith('impersonate-')) {
      impersonating = true;
      break;
    }
  }
  if (!impersonating) return noRequests;
  const requests: ImpersonationRequest[] = [];
  const requestedUser = headers.get(userHeader) ?? '';
  if (requestedUser) {
    const sa = splitUsername(requestedUser);
    requests.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name } : { kind: 'User', name: requestedUser });
  }
  const groups = headerValues(headers, groupHeader);
  for (const group of groups) requests.push({ kind: 'Group', name: group });
  let hasExtra = false;
  // Most requests carry no extra headers: collect (and sort) only those there are.
  let extraHeaders: string[] | undefined;
  for (const h of headers.keys()) if (h.startsWith(extraPrefix)) (extraHeaders ??= []).push(h);
  for (const h of extraHeaders?.sort() ?? []) {
    hasExtra = true;
    const key = unescapeExtraKey(h.slice(extraPrefix.length));
    for (const value of headerValues(headers, h)) requests.push({ kind: 'UserExtra', apiVersion: authenticationV1, name: value, fieldPath: key });
  }
  const uid = headers.get(uidHeader) ?? '';
  if (uid) requests.push({ kind: 'UID', apiVersion: authenticationV1, name: uid });
  if ((groups.length || hasExtra || uid) && !requestedUser) {
    throw new ImpersonationHeaderError(`requested [${requests.map(goObjectReference).join(' ')}] without impersonating a user`);
  }
  return requests;
}

/** responsewriters.forbiddenMessage for a resource request. */
function forbiddenMessage(attrs: Attributes): string {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace ${JSON.stringify(attrs.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(attrs.user.username)} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${scope}`;
}

function attributesFor(requestor: UserInfo, r: ImpersonationRequest): Attributes {
  const base = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', namespace: r.namespace ?? '', apiVersion: '', subresource: '', name: r.name };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, apiGroup: '', resource: 'serviceaccounts' };
    case 'User':
      return { ...base, apiGroup: '', resource: 'users' };
    case 'Group':
      return { ...base, apiGroup: '', resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: r.fieldPath ?? '' };
    case 'UID':
      return { ...base, apiGroup: 'authentication.k8s.io', resource: 'uids' };
  }
}

export function withImpersonation(handler: Handler, authorizer: Authorizer | undefined): Handler {
  const impersonate = async (request: Request, requests: ImpersonationRequest[]): Promise<Response> => {
    const requestor = userFrom(request);
    if (!requestor) return writeText(500, `Internal Server Error: ${JSON.stringify(new URL(request.url).pathname)}: no user found for request\n`);

    // Groups given in headers are the authority; otherwise a service account's come from its name.
    const groupsSpecified = requests.some((r) => r.kind === 'Group');
    let username = '';
    let uid: string | undefined;
    let groups: string[] = [];
    const extra: Record<string, string[]> = {};
    for (const r of requests) {
      const attrs = attributesFor(requestor, r);
      switch (r.kind) {
        case 'ServiceAccount':
          username = makeUsername(r.namespace!, r.name);
          if (!groupsSpecified) groups = makeGroupNames(r.namespace!);
          break;
        case 'User':
          username = r.name;
          break;
        case 'Group':
          groups.push(r.name);
          break;
        case 'UserExtra':
          (extra[r.fieldPath!] ??= []).push(r.name);
          break;
        case 'UID':
          uid = r.name;
          break;
      }
      const decision = authorizer ? await authorizer.authorize(attrs) : { decision: 'Allow' as const, reason: '' };
      if (decision.decision !== 'Allow') {
        const message = forbiddenMessage(attrs);
        addTrace(request, { stage: 'impersonation', message: `${requestor.username} may not impersonate ${attrs.resource} ${JSON.stringify(r.name)}`, details: { attributes: { ...attrs, user: undefined }, decision } });
        return writeError(newForbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, decision.reason ? `${message}: ${decision.reason}` : message), request);
      }
    }

    if (username !== anonymousUser) {
      if (!groups.includes(allAuthenticated) && !groups.includes(allUnauthenticated)) groups.push(allAuthenticated);
    } else if (!groups.includes(allUnauthenticated)) {
      groups.push(allUnauthenticated);
    }
    const user: UserInfo = { username, groups };
    if (uid) user.uid = uid;
    if (Object.keys(extra).length) user.extra = extra;
    withOriginalUser(request, requestor);
    withUser(request, user);
    addTrace(request, { stage: 'impersonation', message: `${requestor.username} is acting as ${username}`, details: { user } });
    try {
      for (const h of [...request.headers.keys()]) if (h.startsWith('impersonate-')) request.headers.delete(h);
    } catch {
      // Immutable headers (a host's own Request): the user is already switched, so the headers are inert.
    }
    return handler(request);
  };
  return (request) => {
    let requests: ImpersonationRequest[];
    try {
      requests = buildImpersonationRequests(request.headers);
    } catch (e) {
      if (!(e instanceof ImpersonationHeaderError)) throw e;
      const uri = new URL(request.url);
      addTrace(request, { stage: 'impersonation', message: e.message });
      return Promise.resolve(writeText(500, `Internal Server Error: ${JSON.stringify(uri.pathname + uri.search)}: ${e.message}\n`));
    }
    // Most requests impersonate nobody: they go on without a turn here.
    return requests.length ? impersonate(request, requests) : handler(request);
  };
}
