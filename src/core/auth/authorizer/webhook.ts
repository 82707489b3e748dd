/**
 * The webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook):
 * the request becomes a SubjectAccessReview, filtered first by the
 * matchConditions (CEL over the v1 review: any false skips the webhook,
 * an error without a false follows failurePolicy), answered from the
 * allow/deny caches when it can be, otherwise POSTed to the remote service
 * through an injected transport. A failed call or a malformed answer
 * follows failurePolicy: NoOpinion lets the next authorizer decide, Deny denies;
 * either way the failure travels as an error, which makes the request a 500
 * unless a later authorizer allows it.
 */
import { compileKubernetes, newEnvironment, subjectAccessReviewRequest, typeToString, type CelProgram, type SubjectAccessReviewSpec } from '../../cel';
import type { Attributes, AuthorizationResult, Authorizer } from './types';

/** POSTs a review and resolves with the decoded response body; rejects on transport errors and non-2xx answers. */
export type ReviewTransport = (review: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

export interface WebhookOptions {
  name: string;
  transport: ReviewTransport;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  failurePolicy: 'NoOpinion' | 'Deny';
  timeoutMs: number;
  /** 5m0s by default. */
  authorizedTTLMs?: number;
  /** 30s by default. */
  unauthorizedTTLMs?: number;
  cacheAuthorizedRequests?: boolean;
  cacheUnauthorizedRequests?: boolean;
  /** CEL expressions over `request` (compiled by the configuration loader first). */
  matchConditions?: string[];
  now?: () => number;
}

interface Status {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export function reviewSpec(attrs: Attributes): SubjectAccessReviewSpec {
  const spec: SubjectAccessReviewSpec = { user: attrs.user.username, groups: attrs.user.groups };
  if (attrs.user.uid) spec.uid = attrs.user.uid;
  if (attrs.user.extra) spec.extra = attrs.user.extra;
  if (attrs.isResourceRequest) {
    spec.resourceAttributes = {
      namespace: attrs.namespace, verb: attrs.verb, group: attrs.apiGroup, version: attrs.apiVersion,
      resource: attrs.resource, subresource: attrs.subresource, name: attrs.name,
    };
    if (attrs.fieldSelector) spec.resourceAttributes.fieldSelector = { rawSelector: attrs.fieldSelector };
    if (attrs.labelSelector) spec.resourceAttributes.labelSelector = { rawSelector: attrs.labelSelector };
  } else {
    spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
  }
  return spec;
}

/** Compiles match conditions; the errors are the configuration's (`compilation failed: ...`). */
export function compileMatchConditions(expressions: readonly string[]): { programs: CelProgram[]; errors: { index: number; message: string }[] } {
  const env = newEnvironment('authorization');
  const programs: CelProgram[] = [];
  const errors: { index: number; message: string }[] = [];
  expressions.forEach((e, index) => {
    const r = compileKubernetes(env, e);
    if (!r.program) errors.push({ index, message: `compilation failed: ${r.message ?? 'invalid expression'}` });
    else if (r.ast && !['bool', 'dyn'].includes(typeToString(r.ast.type))) errors.push({ index, message: 'must evaluate to bool' });
    else programs.push(r.program);
  });
  return { programs, errors };
}

/** The v1beta1 spec names groups `group`. */
function wireSpec(spec: SubjectAccessReviewSpec, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  if (version === 'v1') return { ...spec };
  const { groups, ...rest } = spec;
  return groups ? { ...rest, group: groups } : rest;
}

function parseStatus(body: unknown, version: string): Status {
  if (typeof body !== 'object' || body === null) throw new Error('malformed response: not an object');
  const b = body as Record<string, unknown>;
  if (b['apiVersion'] !== `authorization.k8s.io/${version}` || b['kind'] !== 'SubjectAccessReview') {
    throw new Error(`malformed response: expected authorization.k8s.io/${version} SubjectAccessReview, got ${String(b['apiVersion'])} ${String(b['kind'])}`);
  }
  const s = b['status'];
  if (typeof s !== 'object' || s === null) return { allowed: false };
  const st = s as Record<string, unknown>;
  if (st['allowed'] !== undefined && typeof st['allowed'] !== 'boolean') throw new Error('malformed response: status.allowed is not a boolean');
  return {
    allowed: st['allowed'] === true,
    denied: st['denied'] === true,
    reason: typeof st['reason'] === 'string' ? st['reason'] : undefined,
    evaluationError: typeof st['evaluationError'] === 'string' ? st['evaluationError'] : undefined,
  };
}

export interface WebhookAuthorizer extends Authorizer {
  /** Calls made to the remote service (for tests and metrics). */
  readonly calls: number;
}

export function webhookAuthorizer(options: WebhookOptions): WebhookAuthorizer {
  const now = options.now ?? Date.now;
  const authorizedTTL = options.authorizedTTLMs || 5 * 60_000;
  const unauthorizedTTL = options.unauthorizedTTLMs || 30_000;
  const cache = new Map<string, { status: Status; expires: number }>();
  const { programs } = compileMatchConditions(options.matchConditions ?? []);
  const onError = (why: string): AuthorizationResult => ({
    decision: options.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion',
    reason: '',
    error: why,
    explanation: { webhook: options.name, failure: why, failurePolicy: options.failurePolicy },
  });
  let calls = 0;

  return {
    name: `webhook:${options.name}`,
    get calls() {
      return calls;
    },
    async authorize(attrs) {
      const spec = reviewSpec(attrs);
      if (programs.length) {
        const request = subjectAccessReviewRequest(spec);
        let failure: string | undefined;
        for (const p of programs) {
          const r = p.eval({ request });
          if (!r.ok) failure ??= r.error.message;
          else if (r.value === false) return { decision: 'NoOpinion', reason: '', explanation: { webhook: options.name, skipped: 'a match condition is false' } };
        }
        if (failure) return onError(`match condition error: ${failure}`);
      }
      const key = JSON.stringify(spec);
      const hit = cache.get(key);
      let status: Status;
      if (hit && hit.expires > now()) {
        status = hit.status;
      } else {
        const version = options.subjectAccessReviewVersion;
        try {
          calls++;
          const body = await options.transport({ apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec: wireSpec(spec, version), status: { allowed: false } }, AbortSignal.timeout(options.timeoutMs));
          status = parseStatus(body, version);
        } catch (e) {
          return onError((e as Error).message);
        }
        if (status.allowed ? options.cacheAuthorizedRequests !== false : options.cacheUnauthorizedRequests !== false) {
          cache.set(key, { status, expires: now() + (status.allowed ? authorizedTTL : unauthorizedTTL) });
        }
      }
      const explanation = { webhook: options.name };
      if (status.denied && status.allowed) return { decision: 'Deny', reason: status.reason ?? '', error: 'webhook subject access review returned both allow and deny response', explanation };
      if (status.denied) return { decision: 'Deny', reason: status.reason ?? '', explanation };
      if (status.allowed) return { decision: 'Allow', reason: status.reason ?? '', explanation };
      return { decision: 'NoOpinion', reason: status.reason ?? '', explanation };
    },
  };
}
