/** DELETE of one object, and of a collection. */
import { isObject, type KubeObject } from '../../api/types';
import { goStringSlice, invalid, newBadRequest, newForbidden, notSupported, successStatus, type FieldError } from '../../errors';
import { userFrom } from '../request/context';
import { anonymousUser, allUnauthenticated } from '../../auth/user';
import type { DeleteOptions } from '../../registry/generic/store';
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { newInvalidOptions, protobufFor, readBody, validateDryRun } from './common';
import type { RequestScope } from './scope';
import { selectionFrom } from './selection';
import { validateListParams } from './resourceVersion';
import { optionalBoolParam } from '../queryParams';

const policies = ['Foreground', 'Background', 'Orphan'];

/**
 * DeleteOptions as the apiserver reads them: from the body when there is
 * one (JSON or protobuf; the query is then ignored), otherwise from the
 * query; then ValidateDeleteOptions (422 on DeleteOptions.meta.k8s.io).
 */
async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const { request, url } = scope;
  const body = await readBody(request);
  let o: Record<string, unknown>;
  let dryRun: string[];
  if (body.byteLength > 0) {
    const decoded = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true }).decode(body);
    if (!isObject(decoded)) throw newBadRequest('the body of the request was not a DeleteOptions object');
    o = decoded;
    dryRun = Array.isArray(o['dryRun']) ? (o['dryRun'] as unknown[]).map(String) : [];
  } else {
    const q = url.searchParams;
    o = {};
    for (const k of ['propagationPolicy', 'gracePeriodSeconds'] as const) {
      const v = q.get(k);
      if (v !== null) o[k] = k === 'gracePeriodSeconds' ? Number(v) : v;
    }
    const orphan = optionalBoolParam(q, 'orphanDependents');
    if (orphan !== undefined) o['orphanDependents'] = orphan;
    // A bare `?dryRun` is a normal request.
    dryRun = q.getAll('dryRun').filter((v) => v !== '');
  }

  const errs: FieldError[] = [];
  const policy = o['propagationPolicy'];
  if (o['orphanDependents'] !== undefined && o['orphanDependents'] !== null && policy !== undefined && policy !== null) {
    errs.push(invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && policy !== null && !policies.includes(String(policy))) {
    errs.push(notSupported('propagationPolicy', policy, [...policies, 'nil']));
  }
  errs.push(...validateDryRun(dryRun));
  // The unsafe option only means something under its (alpha, default off) gate; otherwise it is dropped.
  const unsafe = scope.gates.AllowUnsafeMalformedObjectDeletion && o['ignoreStoreReadErrorWithClusterBreakingPotential'] === true;
  if (unsafe) {
    const alone = 'must be unset when ignoreStoreReadErrorWithClusterBreakingPotential is true';
    if (dryRun.length) errs.push({ ...invalid('dryRun', dryRun, alone), valueText: goStringSlice(dryRun) });
    for (const f of ['gracePeriodSeconds', 'orphanDependents', 'preconditions', 'propagationPolicy'] as const) {
      if (o[f] !== undefined && o[f] !== null) errs.push(invalid(f, o[f], alone));
    }
  }
  if (errs.length) throw newInvalidOptions('DeleteOptions', errs);

  const opts: DeleteOptions = { dryRun: dryRun.length > 0, ignoreStoreReadErrors: unsafe };
  if (typeof policy === 'string') opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (o['orphanDependents'] === true) opts.propagationPolicy ??= 'Orphan';
  if (o['orphanDependents'] === false) {
    opts.propagationPolicy ??= 'Background';
    opts.orphanDependentsFalse = true;
  }
  const pre = o['preconditions'];
  if (isObject(pre)) opts.preconditions = { uid: pre['uid'] as string | undefined, resourceVersion: pre['resourceVersion'] as string | undefined };
  const grace = o['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null) opts.gracePeriodSeconds = Number(grace);
  return opts;
}

/** The verb the unsafe delete needs besides `delete` (authorizeUnsafeDelete). */
export const unsafeDeleteVerb = 'unsafe-delete-ignore-read-errors';

/** authorizeUnsafeDelete: the caller must also hold the unsafe verb on the object, asked as admission asks. */
async function authorizeUnsafeDelete(scope: RequestScope): Promise<void> {
  const { info, type } = scope;
  if (!scope.authorizer) return;
  const user = userFrom(scope.request) ?? { username: anonymousUser, groups: [allUnauthenticated] };
  const result = await scope.authorizer.authorize({
    user, verb: unsafeDeleteVerb, isResourceRequest: true, path: scope.url.pathname,
    namespace: info.namespace, apiGroup: info.apiGroup, apiVersion: info.apiVersion, resource: info.resource, subresource: info.subresource, name: info.name,
  });
  if (result.decision === 'Allow') return;
  throw newForbidden({ group: type.group, resource: type.resource }, info.name, `not permitted to do "${unsafeDeleteVerb}", reason: ${result.reason}`);
}

/** The NamespaceLifecycle admission plugin's immortal namespaces. */
const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

function checkNamespaceLifecycle(scope: RequestScope, name: string): void {
  if (scope.type.group === '' && scope.type.resource === 'namespaces' && immortalNamespaces.has(name)) {
    throw newForbidden({ group: '', resource: 'namespaces' }, name, 'this namespace may not be deleted');
  }
}

export async function deleteResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), url, userAgent: request.headers.get('user-agent') });
  const opts = await deleteOptions(scope);
  checkNamespaceLifecycle(scope, info.name);
  if (opts.ignoreStoreReadErrors) await authorizeUnsafeDelete(scope);
  const result = await store.delete(info.namespace, info.name, opts);
  // Objects still present (finalizers) come back as they are; deleted ones as a Success Status unless the kind returns the object.
  if (!result.deleted || store.strategy.returnDeletedObject) {
    // 202 only when the caller explicitly asked not to orphan and the object is still there (handlers/delete.go).
    const status = !result.deleted && opts.orphanDependentsFalse ? 202 : 200;
    return writeObject(choice.serializer, status, result.object, { pretty: choice.pretty, warnings: scope.warnings });
  }
  const meta = result.object.metadata;
  const details: { name?: string; group?: string; kind: string; uid?: string } = { name: meta.name, kind: store.type.resource, uid: meta.uid };
  if (store.type.group) details.group = store.type.group;
  return writeObject(choice.serializer, 200, successStatus({ name: details.name, group: details.group, kind: details.kind, uid: details.uid }), { pretty: choice.pretty, warnings: scope.warnings });
}

export async function deleteCollection(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), url, userAgent: request.headers.get('user-agent') });
  validateListParams(url, false);
  const selection = selectionFrom(url, type);
  const opts = await deleteOptions(scope);
  if (opts.ignoreStoreReadErrors) {
    throw newInvalidOptions('DeleteOptions', [invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option')]);
  }
  const listed = await store.list(info.namespace, { predicate: selection.predicate });
  const deleted: KubeObject[] = [];
  for (const obj of listed.items) {
    checkNamespaceLifecycle(scope, obj.metadata.name!);
    try {
      const r = await store.delete(obj.metadata.namespace ?? '', obj.metadata.name!, opts);
      deleted.push(r.object);
    } catch {
      // Objects deleted concurrently are skipped, as the apiserver's DeleteCollection ignores NotFound.
    }
  }
  const list = {
    kind: `${type.kind}List`,
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    metadata: { resourceVersion: String(await store.storage.currentRevision()) },
    items: deleted,
  };
  return writeObject(choice.serializer, 200, list, { pretty: choice.pretty, warnings: scope.warnings });
}
