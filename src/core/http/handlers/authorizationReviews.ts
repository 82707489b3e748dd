/**
 * The access reviews of authorization.k8s.io (pkg/registry/authorization/*):
 * SubjectAccessReview asks about any user, SelfSubjectAccessReview about the
 * caller, LocalSubjectAccessReview about any user in one namespace, and
 * SelfSubjectRulesReview lists the caller's rules in a namespace. Each asks
 * the server's own authorizer chain, so `kubectl auth can-i` sees exactly
 * what a request would meet; `status.reason` carries the authorizer's why.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { Attributes, Authorizer, RuleResolver } from '../../auth/authorizer/types';
import type { UserInfo } from '../../auth/user';
import { newBadRequest, newInvalid, type FieldError } from '../../errors';
import { userFrom } from '../request/context';
import { writeObject } from '../responseWriter';
import { readReview } from './reviews';
import type { RequestScope } from './scope';

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function resourceAttributes(user: UserInfo, ra: Json): Attributes {
  const attrs: Attributes = {
    user,
    verb: str(ra['verb']),
    isResourceRequest: true,
    path: '',
    namespace: str(ra['namespace']),
    apiGroup: str(ra['group']),
    // An empty version matches every version (matchAllVersionIfEmpty).
    apiVersion: str(ra['version']) || '*',
    resource: str(ra['resource']),
    subresource: str(ra['subresource']),
    name: str(ra['name']),
  };
  const fs = isObject(ra['fieldSelector']) ? str(ra['fieldSelector']['rawSelector']) : '';
  const ls = isObject(ra['labelSelector']) ? str(ra['labelSelector']['rawSelector']) : '';
  if (fs) attrs.fieldSelector = fs;
  if (ls) attrs.labelSelector = ls;
  return attrs;
}

function nonResourceAttributes(user: UserInfo, nra: Json): Attributes {
  return { user, verb: str(nra['verb']), isResourceRequest: false, path: str(nra['path']), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec. */
function validateSpec(spec: Json, self: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  if (isObject(ra) && isObject(nra)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', valueText: goStruct('NonResourceAttributes', nra), detail: 'cannot be specified in combination with resourceAttributes' });
  }
  if (!isObject(ra) && !isObject(nra)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', value: 'null', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  }
  if (!self && !str(spec['user']) && !strings(spec['groups']).length) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.user', value: '', detail: 'at least one of user or group must be specified' });
  }
  return errs;
}

/** %#v of a NonResourceAttributes value, as field.Invalid prints it. */
function goStruct(kind: string, v: Json): string {
  return `authorization.${kind}{Path:${JSON.stringify(str(v['path']))}, Verb:${JSON.stringify(str(v['verb']))}}`;
}

function specUser(spec: Json): UserInfo {
  const user: UserInfo = { username: str(spec['user']), groups: strings(spec['groups']) };
  const uid = str(spec['uid']);
  if (uid) user.uid = uid;
  if (isObject(spec['extra'])) {
    user.extra = {};
    for (const [k, v] of Object.entries(spec['extra'])) user.extra[k] = strings(v);
  }
  return user;
}

async function accessReviewStatus(authorizer: Authorizer, attrs: Attributes): Promise<Json> {
  const r = await authorizer.authorize(attrs);
  const status: Json = { allowed: r.decision === 'Allow' };
  if (r.decision === 'Deny') status['denied'] = true;
  if (r.reason) status['reason'] = r.reason;
  if (r.error) status['evaluationError'] = r.error;
  return status;
}

function isRuleResolver(a: Authorizer): a is Authorizer & RuleResolver {
  return typeof (a as Partial<RuleResolver>).rulesFor === 'function';
}

async function rulesReviewStatus(authorizer: Authorizer, user: UserInfo, namespace: string): Promise<Json> {
  if (!isRuleResolver(authorizer)) return { resourceRules: [], nonResourceRules: [], incomplete: true };
  const r = await authorizer.rulesFor(user, namespace);
  const status: Json = {
    resourceRules: r.resourceRules.map((rule) => {
      const out: Json = { verbs: rule.verbs };
      if (rule.apiGroups?.length) out['apiGroups'] = rule.apiGroups;
      if (rule.resources?.length) out['resources'] = rule.resources;
      if (rule.resourceNames?.length) out['resourceNames'] = rule.resourceNames;
      return out;
    }),
    nonResourceRules: r.nonResourceRules.map((rule) => (rule.nonResourceURLs?.length ? { verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs } : { verbs: rule.verbs })),
    incomplete: r.incomplete,
  };
  if (r.error) status['evaluationError'] = r.error;
  return status;
}

/** Computes the review's status; throws the Status errors upstream answers with. */
export async function reviewStatus(resource: string, obj: KubeObject, spec: Json, caller: UserInfo | undefined, authorizer: Authorizer, requestNamespace: string): Promise<Json> {
  const invalid = (errs: FieldError[]) => {
    if (errs.length) throw newInvalid({ group: 'authorization.k8s.io', kind: obj.kind || kindOf[resource] || '' }, '', errs);
  };
  switch (resource) {
    case 'subjectaccessreviews': {
      invalid(validateSpec(spec, false));
      const user = specUser(spec);
      return accessReviewStatus(authorizer, isObject(spec['resourceAttributes']) ? resourceAttributes(user, spec['resourceAttributes']) : nonResourceAttributes(user, spec['nonResourceAttributes'] as Json));
    }
    case 'localsubjectaccessreviews': {
      const errs = validateSpec(spec, false);
      const ra = spec['resourceAttributes'];
      const objNamespace = obj.metadata.namespace ?? '';
      if (isObject(ra) && str(ra['namespace']) !== objNamespace) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', value: str(ra['namespace']), detail: 'must match metadata.namespace' });
      }
      if (isObject(spec['nonResourceAttributes'])) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', valueText: goStruct('NonResourceAttributes', spec['nonResourceAttributes']), detail: 'disallowed on this kind of request' });
      }
      invalid(errs);
      if (!requestNamespace) throw newBadRequest('namespace is required on this type: ');
      if (requestNamespace !== objNamespace) throw newBadRequest(`spec.resourceAttributes.namespace must match namespace: ${requestNamespace}`);
      return accessReviewStatus(authorizer, resourceAttributes(specUser(spec), ra as Json));
    }
    case 'selfsubjectaccessreviews': {
      invalid(validateSpec(spec, true));
      if (!caller) throw newBadRequest('no user present on request');
      return accessReviewStatus(authorizer, isObject(spec['resourceAttributes']) ? resourceAttributes(caller, spec['resourceAttributes']) : nonResourceAttributes(caller, spec['nonResourceAttributes'] as Json));
    }
    case 'selfsubjectrulesreviews': {
      if (!caller) throw newBadRequest('no user present on request');
      const namespace = str(spec['namespace']);
      if (!namespace) throw newBadRequest('no namespace on request');
      return rulesReviewStatus(authorizer, caller, namespace);
    }
    default:
      return {};
  }
}

const kindOf: Record<string, string> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
};

export function isAccessReview(group: string, resource: string): boolean {
  return group === 'authorization.k8s.io' && resource in kindOf;
}

export async function createAccessReview(scope: RequestScope, authorizer: Authorizer): Promise<Response> {
  const { request, type, info } = scope;
  const { choice, obj } = await readReview(scope);
  if (type.scope === 'Namespaced') {
    // EnsureObjectNamespaceMatchesRequestNamespace: an empty namespace takes the URL's.
    if (!obj.metadata.namespace) obj.metadata.namespace = info.namespace;
    else if (obj.metadata.namespace !== info.namespace) throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const status = await reviewStatus(type.resource, obj, spec, userFrom(request), authorizer, info.namespace);
  const out = { ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, spec, status };
  return writeObject(choice.serializer, 201, out, { pretty: choice.pretty });
}
