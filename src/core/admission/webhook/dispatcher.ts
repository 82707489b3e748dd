/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins
 * (admission/plugin/webhook/{generic,mutating,validating}): which webhooks a
 * request calls (rules, namespace and object selectors, matchConditions),
 * the dry-run guard on sideEffects, and what their answers do. Mutating
 * webhooks run in order, each seeing the previous one's patch, with one
 * reinvocation pass for IfNeeded webhooks whose object changed after them;
 * validating webhooks run in parallel and the first denial (in order) wins.
 */
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import type { Authorizer } from '../../auth/authorizer/types';
import { AuthorizerValue, fromJson, PER_CALL_LIMIT, requestResourceCheck, type CelValue } from '../../cel';
import { newForbidden, newInternalError, StatusError } from '../../errors';
import { applyJSONPatch, type JsonObject } from '../../patch';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes';
import { matches } from '../matching';
import { MAX_ROUNDS, PrefetchingAuthorizer } from '../policyAuthorizer';
import { callWebhook, ErrCallingWebhook, type AdmissionWebhookTransport } from './client';
import type { Webhook } from './configurations';
import { dryRunUnsupported, toStatusErr } from './errors';
import { admissionReview, reviewVersion, verifyAdmissionResponse, type AdmissionResult } from './review';

export interface DispatchDeps {
  transport: AdmissionWebhookTransport;
  authorizer?: () => Authorizer;
  /** The request's namespace object (namespaceSelector), undefined when there is none. */
  namespaceObject(a: AdmissionAttributes): Promise<KubeObject | undefined>;
  /** Other served versions of the request's resource (matchPolicy Equivalent). */
  equivalentVersions(a: AdmissionAttributes): string[];
  /** One call made (apiserver_admission_webhook_* metrics): `code` the HTTP status, 0 without an answer. */
  observe?: WebhookObserver;
  /** The request kind's defaulter (its strategy's), run on a patched object as the codec defaults what it decodes. */
  defaulter?(a: AdmissionAttributes): ((obj: KubeObject) => void) | undefined;
}

export type WebhookObserver = (webhook: string, type: 'admit' | 'validating', operation: string, rejected: boolean, code: number, seconds: number) => void;

const allowAll: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'Allow', reason: '' }) };

/** matchConditions: false if any is false; else errors fail closed (Forbidden) or, under Ignore, skip the webhook. */
async function conditionsMatch(hook: Webhook, a: AdmissionAttributes, deps: DispatchDeps): Promise<boolean> {
  if (!hook.matchConditions.length) return true;
  const checks = new PrefetchingAuthorizer(deps.authorizer?.() ?? allowAll);
  const authorizer = new AuthorizerValue(checks, { username: a.user.username, uid: a.user.uid, groups: a.user.groups, extra: a.user.extra });
  const vars: Record<string, CelValue | undefined> = {
    object: a.object ? fromJson(a.object) : null,
    oldObject: a.oldObject ? fromJson(a.oldObject) : null,
    request: fromJson(admissionReview(a, '', 'v1')['request']),
    authorizer,
    'authorizer.requestResource': requestResourceCheck(authorizer, { apiGroup: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name }),
  };
  let errors: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    errors = [];
    let falsy = false;
    for (const c of hook.matchConditions) {
      if (!c.program) {
        errors.push(`compilation failed: ${c.error ?? ''}`);
        continue;
      }
      const r = c.program.eval(vars, { costLimit: PER_CALL_LIMIT });
      if (!r.ok) errors.push(`expression '${c.expression}' resulted in error: ${r.error.message}`);
      else if (r.value !== true) falsy = true;
    }
    if (!checks.pending) {
      if (falsy) return false;
      break;
    }
    await checks.resolve();
  }
  if (!errors.length) return true;
  if (hook.spec.failurePolicy === 'Ignore') return false;
  const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  throw newForbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, message);
}

/** ShouldCallHook: rules, selectors, then matchConditions. */
async function shouldCall(hook: Webhook, a: AdmissionAttributes, deps: DispatchDeps, ns: () => Promise<KubeObject | undefined>): Promise<boolean> {
  const s = hook.spec;
  const equivalents = s.matchPolicy === 'Exact' ? [] : deps.equivalentVersions(a);
  const constraints = { resourceRules: s.rules ?? [], namespaceSelector: s.namespaceSelector, objectSelector: s.objectSelector, matchPolicy: s.matchPolicy };
  // Only a namespaced object needs its namespace's labels.
  const nsObject = a.namespaced && s.namespaceSelector && Object.keys(s.namespaceSelector).length ? await ns() : undefined;
  if (!matches(constraints, a, nsObject, true, equivalents)) return false;
  return conditionsMatch(hook, a, deps);
}

/**
 * A write as kube's mutating phase sees it. A create: before BeforeCreate, so
 * without the uid, generation and creationTimestamp (null) the store has
 * already set, and without a name generated from generateName.
 */
function beforeCreate(a: AdmissionAttributes): AdmissionAttributes {
  // kube's delete handler admits a delete's mutating phase with neither object.
  if (a.operation === 'DELETE') return { ...a, oldObject: undefined };
  if (a.operation !== 'CREATE' || a.subresource || !a.object?.metadata) return a;
  const meta: Record<string, unknown> = { ...a.object.metadata, creationTimestamp: null };
  delete meta['uid'];
  delete meta['generation'];
  const { name, generateName } = a.object.metadata;
  const generated = !!generateName && !!name && name.length === generateName.length + 5 && name.startsWith(generateName);
  if (generated) delete meta['name'];
  return { ...a, name: generated ? '' : a.name, object: { ...a.object, metadata: meta as KubeObject['metadata'] } };
}

/** One call: the dry-run guard, the review, the checked answer (ErrCallingWebhook for anything unusable). */
async function call(hook: Webhook, a: AdmissionAttributes, deps: DispatchDeps, mutating: boolean): Promise<AdmissionResult> {
  const s = hook.spec;
  if (a.dryRun && s.sideEffects !== 'None' && s.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(s.name);
  const version = reviewVersion(s.admissionReviewVersions);
  if (!version) throw new ErrCallingWebhook(s.name, 'webhook does not accept known AdmissionReview versions');
  const uid = crypto.randomUUID();
  const started = performance.now();
  const observe = (rejected: boolean, code: number) => deps.observe?.(s.name, mutating ? 'admit' : 'validating', a.operation, rejected, code, (performance.now() - started) / 1000);
  let answer: unknown;
  try {
    answer = await callWebhook(deps.transport, s.name, s.clientConfig ?? {}, admissionReview(mutating ? beforeCreate(a) : a, uid, version), s.timeoutSeconds ?? 10);
  } catch (e) {
    observe(true, e instanceof ErrCallingWebhook ? e.code : 0);
    throw e;
  }
  const result = verifyAdmissionResponse(uid, version, mutating, answer);
  if (typeof result === 'string') {
    observe(true, 200);
    throw new ErrCallingWebhook(s.name, `received invalid webhook response: ${result}`, 200);
  }
  const code = typeof result.status?.['code'] === 'number' ? result.status['code'] : result.allowed ? 200 : 400;
  observe(!result.allowed, Math.min(code, 600));
  return result;
}

function record(hook: Webhook, result: AdmissionResult, outcome: AdmissionOutcome): void {
  for (const w of result.warnings) outcome.warnings.push(w);
  for (const [k, v] of Object.entries(result.auditAnnotations)) outcome.auditAnnotations[`${hook.spec.name}/${k}`] = v;
}

/** A failure to call: failurePolicy Ignore lets the request through (recorded), Fail turns it into a 500. */
function failed(e: unknown, hook: Webhook, kind: 'mutating' | 'validating', round: number, outcome: AdmissionOutcome): void {
  if (!(e instanceof ErrCallingWebhook)) throw e;
  if (hook.spec.failurePolicy === 'Ignore') {
    outcome.auditAnnotations[`failed-open.${kind}.webhook.admission.k8s.io/round_${round}_index_${hook.index}`] = hook.spec.name;
    return;
  }
  throw newInternalError(e);
}

/**
 * Applies a mutating webhook's JSON Patch to a.object in place; whether it
 * changed. The patched object is defaulted before the comparison, as kube's
 * dispatcher decodes it into a new object of the kind and defaults that:
 * a container a webhook adds gets its defaults before the next webhook, the
 * field manager and validation see it.
 */
function applyPatch(hook: Webhook, a: AdmissionAttributes, patch: unknown, defaulter: ((obj: KubeObject) => void) | undefined): boolean {
  if (patch === undefined || (Array.isArray(patch) && patch.length === 0)) return false;
  if (!a.object) throw newInternalError(new Error(`admission webhook "${hook.spec.name}" attempted to modify the object, which is not supported for this operation`));
  const result = applyJSONPatch(a.object as unknown as JsonObject, patch);
  if (!result.ok) throw newInternalError(new Error(result.error.message));
  defaulter?.(result.object as unknown as KubeObject);
  if (jsonEqual(result.object, a.object)) return false;
  const target = a.object as unknown as Record<string, unknown>;
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, result.object);
  return true;
}

/** The mutating phase: each matching webhook in order, then IfNeeded webhooks once more if a later one changed the object. */
export async function dispatchMutating(hooks: readonly Webhook[], a: AdmissionAttributes, outcome: AdmissionOutcome, deps: DispatchDeps): Promise<void> {
  let nsObject: Promise<KubeObject | undefined> | undefined;
  const ns = () => (nsObject ??= deps.namespaceObject(a));
  if (a.operation === 'CREATE' && a.namespaced && a.namespace) {
    // NamespaceLifecycle, first in kube's order, refuses it before any webhook: the store's namespace check does here.
    const namespace = await ns();
    if (!namespace || namespace.metadata.deletionTimestamp) return;
  }
  const defaulter = deps.defaulter?.(a);
  /** IfNeeded webhooks called in the first round, with the object as they left it. */
  const reinvocable: { hook: Webhook; after: unknown }[] = [];
  for (const round of [0, 1]) {
    for (const hook of hooks) {
      if (round === 1) {
        const seen = reinvocable.find((r) => r.hook === hook);
        if (!seen || jsonEqual(seen.after, a.object)) continue;
      }
      if (!(await shouldCall(hook, a, deps, ns))) continue;
      let result: AdmissionResult;
      try {
        result = await call(hook, a, deps, true);
      } catch (e) {
        failed(e, hook, 'mutating', round, outcome);
        continue;
      }
      record(hook, result, outcome);
      if (!result.allowed) throw toStatusErr(hook.spec.name, result.status);
      const changed = applyPatch(hook, a, result.patch, defaulter);
      if (changed) outcome.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${hook.index}`] = JSON.stringify({ configuration: hook.configuration, webhook: hook.spec.name, mutated: true });
      if (round === 0 && hook.spec.reinvocationPolicy === 'IfNeeded') reinvocable.push({ hook, after: structuredClone(a.object) });
    }
    if (!reinvocable.length) return;
  }
}

/** The validating phase: every matching webhook at once; the first error in webhook order is the answer. */
export async function dispatchValidating(hooks: readonly Webhook[], a: AdmissionAttributes, outcome: AdmissionOutcome, deps: DispatchDeps): Promise<void> {
  let nsObject: Promise<KubeObject | undefined> | undefined;
  const ns = () => (nsObject ??= deps.namespaceObject(a));
  const results = await Promise.all(hooks.map(async (hook): Promise<StatusError | undefined> => {
    try {
      if (!(await shouldCall(hook, a, deps, ns))) return undefined;
      const result = await call(hook, a, deps, false);
      record(hook, result, outcome);
      return result.allowed ? undefined : toStatusErr(hook.spec.name, result.status);
    } catch (e) {
      try {
        failed(e, hook, 'validating', 0, outcome);
        return undefined;
      } catch (err) {
        if (err instanceof StatusError) return err;
        throw err;
      }
    }
  }));
  const denied = results.find((r) => r !== undefined);
  if (denied) throw denied;
}
