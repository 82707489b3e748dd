/**
 * The ValidatingAdmissionPolicy admission plugin
 * (k8s.io/apiserver/pkg/admission/plugin/policy/validating): for every
 * binding of every policy that matches the request (matchConstraints, the
 * binding's matchResources, matchConditions), with each param the binding
 * selects, the policy's variables and validations are evaluated in CEL;
 * failures are denied, warned or audited as the binding's validationActions
 * say, evaluation errors follow failurePolicy.
 */
import { isObject, type KubeObject } from '../api/types';
import { AuthorizerValue, CelMap, requestResourceCheck, compileKubernetes, fromJson, newEnvironment, PER_CALL_LIMIT, type CelAuthorizer, type CelProgram, type CelValue } from '../cel';
import { StatusError, qualifiedResource, type StatusReason } from '../errors';
import type { Store } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import type { Storage } from '../storage/interface';
import type { AdmissionAttributes, AdmissionOutcome } from './attributes';
import { matches, type MatchResources } from './matching';
import { typeCheckPolicy } from './typeChecking';
import { jsonEqual } from '../api/equality';
import type { Authorizer } from '../auth/authorizer/types';
import { MAX_ROUNDS, PrefetchingAuthorizer } from './policyAuthorizer';

const GROUP = 'admissionregistration.k8s.io';

export interface PolicyPluginDeps {
  storage: Storage;
  registry: ResourceRegistry;
  storeFor(type: ResourceType): Store;
  /** The server's authorizer chain, asked by the policies' `authorizer` variable. */
  authorizer?: () => Authorizer;
  /** apiserver_validating_admission_policy_check_total and _duration_seconds, per evaluation and action taken. */
  observeCheck?: (policy: string, binding: string, errorType: 'no_error' | 'invalid_error', action: 'allow' | 'deny' | 'warn' | 'audit', seconds: number) => void;
}

interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

interface PolicySpec {
  failurePolicy?: 'Fail' | 'Ignore';
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  validations?: Validation[];
  auditAnnotations?: { key: string; valueExpression: string }[];
}

interface BindingSpec {
  policyName?: string;
  paramRef?: { name?: string; namespace?: string; selector?: LabelSelectorObject; parameterNotFoundAction?: 'Allow' | 'Deny' };
  matchResources?: MatchResources;
  validationActions?: ('Deny' | 'Warn' | 'Audit')[];
}

type Compiled = { program?: CelProgram; error?: string };

interface CompiledPolicy {
  name: string;
  spec: PolicySpec;
  matchConditions: (Compiled & { name: string })[];
  variables: (Compiled & { name: string })[];
  validations: (Compiled & { v: Validation; message?: Compiled })[];
  auditAnnotations: (Compiled & { key: string })[];
}

/** Without a server chain (unit tests of the plugin alone) checks allow, as AlwaysAllow does. */
const allowAll: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'Allow', reason: '' }) };

const reasonCodes: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

function compile(env: ReturnType<typeof newEnvironment>, text: string): Compiled {
  const c = compileKubernetes(env, text);
  return c.program ? { program: c.program } : { error: c.message ?? 'compilation failed' };
}

function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = (isObject(policy['spec']) ? policy['spec'] : {}) as PolicySpec;
  const env = newEnvironment('admission');
  return {
    name: policy.metadata.name ?? '',
    spec,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, ...compile(env, m.expression) })),
    variables: (spec.variables ?? []).map((v) => ({ name: v.name, ...compile(env, v.expression) })),
    validations: (spec.validations ?? []).map((v) => ({ v, ...compile(env, v.expression), message: v.messageExpression ? compile(env, v.messageExpression) : undefined })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, ...compile(env, a.valueExpression) })),
  };
}

/** Evaluation failed: the message an error under failurePolicy Fail denies with. */
class EvaluationError extends Error {}

function evaluate(c: Compiled, vars: Record<string, CelValue | undefined>, expression: string): CelValue {
  if (!c.program) throw new EvaluationError(`compilation error: ${c.error ?? ''}`);
  const r = c.program.eval(vars, { costLimit: PER_CALL_LIMIT });
  if (!r.ok) throw new EvaluationError(`expression '${expression}' resulted in error: ${r.error.message}`);
  return r.value;
}

/** One evaluation of a policy for one param: the failures to record (audit annotations are written to outcome). */
function evaluatePolicy(
  policy: CompiledPolicy,
  a: AdmissionAttributes,
  param: KubeObject | null,
  nsObject: KubeObject | undefined | null,
  checks: CelAuthorizer,
  failClosed: boolean,
  outcome: AdmissionOutcome,
): { message: string; reason?: string }[] {
  const failures: { message: string; reason?: string }[] = [];
  const record = (message: string, reason?: string) => failures.push({ message, reason });
  const authorizer = new AuthorizerValue(checks, { username: a.user.username, uid: a.user.uid, groups: a.user.groups, extra: a.user.extra });
  const vars: Record<string, CelValue | undefined> = {
    object: a.object ? fromJson(a.object) : null,
    oldObject: a.oldObject ? fromJson(a.oldObject) : null,
    request: fromJson(requestValue(a)),
    params: param ? fromJson(param) : null,
    namespaceObject: nsObject ? fromJson(nsObject) : null,
    authorizer,
    'authorizer.requestResource': requestResourceCheck(authorizer, {
      apiGroup: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name,
    }),
  };
  try {
    const variables = new CelMap();
    vars['variables'] = variables;
    for (const v of policy.variables) variables.set(v.name, evaluate(v, vars, v.name));
    for (const m of policy.matchConditions) {
      if (evaluate(m, vars, m.name) !== true) return failures;
    }
    for (const v of policy.validations) {
      let ok: CelValue;
      try {
        ok = evaluate(v, vars, v.v.expression);
      } catch (e) {
        if (!(e instanceof EvaluationError)) throw e;
        if (failClosed) record(e.message, v.v.reason);
        continue;
      }
      if (ok === true) continue;
      let message = v.v.message || `failed expression: ${v.v.expression.trim()}`;
      if (v.message?.program) {
        const r = v.message.program.eval(vars, { costLimit: PER_CALL_LIMIT });
        if (r.ok && typeof r.value === 'string' && r.value.trim() !== '') message = r.value;
      }
      record(message, v.v.reason);
    }
    for (const an of policy.auditAnnotations) {
      const value = evaluate(an, vars, an.key);
      if (typeof value === 'string') outcome.auditAnnotations[`${policy.name}/${an.key}`] = value;
    }
  } catch (e) {
    if (!(e instanceof EvaluationError)) throw e;
    if (failClosed) record(e.message);
  }
  return failures;
}

function requestValue(a: AdmissionAttributes): Record<string, unknown> {
  const userInfo: Record<string, unknown> = { username: a.user.username, groups: a.user.groups };
  if (a.user.uid) userInfo['uid'] = a.user.uid;
  if (a.user.extra) userInfo['extra'] = a.user.extra;
  const kind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  const resource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  return {
    kind, resource, subResource: a.subresource, requestKind: kind, requestResource: resource, requestSubResource: a.subresource,
    name: a.name, namespace: a.namespace, operation: a.operation, userInfo, dryRun: a.dryRun, options: a.options ?? null,
  };
}

export interface ValidatingAdmissionPolicyPlugin {
  /** Runs every matching policy; throws the denial, records warnings and audit annotations in outcome. Undefined at once when no policy is bound. */
  validate(a: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> | undefined;
  /** Loads policies and bindings and starts watching them. */
  start(): Promise<void>;
  /** Drops what was loaded (a policy or binding was written through this server). */
  invalidate(): void;
  /** Writes status.typeChecking (and observedGeneration) of every policy whose status is behind. */
  typeCheck(): Promise<void>;
  stop(): void;
}

export function createValidatingAdmissionPolicyPlugin(deps: PolicyPluginDeps): ValidatingAdmissionPolicyPlugin {
  const policyType = deps.registry.resourceFor(GROUP, 'v1', 'validatingadmissionpolicies');
  const bindingType = deps.registry.resourceFor(GROUP, 'v1', 'validatingadmissionpolicybindings');
  let loaded: { policies: Map<string, CompiledPolicy>; bindings: KubeObject[] } | undefined;
  let loading: Promise<void> | undefined;
  const compiledCache = new Map<string, { rv: string; compiled: CompiledPolicy }>();
  const unsubscribers: (() => void)[] = [];
  let watching = false;

  async function load(): Promise<void> {
    if (!policyType || !bindingType) {
      loaded = { policies: new Map(), bindings: [] };
      return;
    }
    const policyStore = deps.storeFor(policyType);
    const bindingStore = deps.storeFor(bindingType);
    const policies = await policyStore.list('');
    const bindings = await bindingStore.list('');
    const map = new Map<string, CompiledPolicy>();
    for (const p of policies.items) {
      const name = p.metadata.name ?? '';
      const rv = p.metadata.resourceVersion ?? '';
      let c = compiledCache.get(name);
      if (!c || c.rv !== rv) compiledCache.set(name, (c = { rv, compiled: compilePolicy(p) }));
      map.set(name, c.compiled);
    }
    loaded = { policies: map, bindings: bindings.items };
    if (!watching) {
      watching = true;
      // Any policy or binding write invalidates what was loaded.
      const invalidate = () => {
        loaded = undefined;
      };
      const revision = Math.min(policies.revision, bindings.revision);
      unsubscribers.push(await deps.storage.watch(policyStore.prefix, revision, invalidate));
      unsubscribers.push(await deps.storage.watch(bindingStore.prefix, revision, invalidate));
    }
  }

  async function current(): Promise<NonNullable<typeof loaded>> {
    while (!loaded) {
      if (!loading) loading = load().finally(() => (loading = undefined));
      await loading;
    }
    return loaded;
  }

  async function namespaceObject(a: AdmissionAttributes): Promise<KubeObject | undefined> {
    if (!a.namespaced || !a.namespace) return undefined;
    const nsType = deps.registry.resourceFor('', 'v1', 'namespaces');
    if (!nsType) return undefined;
    const kv = await deps.storeFor(nsType).getKv('', a.namespace);
    return kv ? deps.storeFor(nsType).decode(kv) : undefined;
  }

  /** The params a binding selects; undefined entries mean "no paramKind". */
  async function paramsFor(policy: CompiledPolicy, binding: BindingSpec, a: AdmissionAttributes): Promise<(KubeObject | null)[] | 'notFound' | 'allow'> {
    const kind = policy.spec.paramKind;
    if (!kind?.kind || !kind.apiVersion) return [null];
    const ref = binding.paramRef;
    if (!ref) throw new EvaluationError(`policy ${policy.name} has a paramKind but binding has no paramRef`);
    const [group, version] = kind.apiVersion.includes('/') ? (kind.apiVersion.split('/', 2) as [string, string]) : ['', kind.apiVersion];
    const type = deps.registry.kindFor(group, version, kind.kind);
    if (!type) throw new EvaluationError(`failed to find resource referenced by paramKind: '${kind.apiVersion}, Kind=${kind.kind}'`);
    const store = deps.storeFor(type);
    const namespace = type.scope === 'Namespaced' ? (ref.namespace ?? a.namespace) : '';
    let found: KubeObject[] = [];
    if (ref.name) {
      const kv = await store.getKv(namespace, ref.name);
      if (kv) found = [store.decode(kv)];
    } else if (ref.selector) {
      const sel = labelSelectorFromObject(ref.selector);
      if (!isSelectorError(sel)) found = (await store.list(namespace)).items.filter((o) => sel.matches(o.metadata.labels ?? {}));
    }
    if (found.length) return found;
    return ref.parameterNotFoundAction === 'Allow' ? 'allow' : 'notFound';
  }

  /** The other served versions of the request's resource (matchPolicy Equivalent). */
  function equivalentVersions(a: AdmissionAttributes): string[] {
    const versions = deps.registry.group(a.resource.group)?.versions ?? [];
    return versions.filter((v) => v !== a.resource.version && deps.registry.resourceFor(a.resource.group, v, a.resource.resource));
  }

  async function validate(a: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> {
    const state = await current();
    if (state.policies.size === 0 || state.bindings.length === 0) return;
    let nsObject: KubeObject | undefined | null = null;
    let equivalents: string[] | undefined;
    const denials: { policy: string; binding: string; message: string; reason?: string }[] = [];
    const bindings = [...state.bindings].sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
    for (const b of bindings) {
      const spec = (isObject(b['spec']) ? b['spec'] : {}) as BindingSpec;
      const policy = spec.policyName ? state.policies.get(spec.policyName) : undefined;
      if (!policy) continue;
      if (nsObject === null) nsObject = await namespaceObject(a);
      equivalents ??= equivalentVersions(a);
      if (!policy.spec.matchConstraints || !matches(policy.spec.matchConstraints, a, nsObject, true, equivalents)) continue;
      if (spec.matchResources && !matches(spec.matchResources, a, nsObject, false, equivalents)) continue;
      const actions = spec.validationActions ?? [];
      const bindingName = b.metadata.name ?? '';
      const failClosed = (policy.spec.failurePolicy ?? 'Fail') === 'Fail';
      const record = (message: string, reason?: string) => {
        if (actions.includes('Deny')) denials.push({ policy: policy.name, binding: bindingName, message, reason });
        if (actions.includes('Warn')) outcome.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${message}`);
        if (actions.includes('Audit')) {
          const key = 'validation.policy.admission.k8s.io/validation_failure';
          const list = outcome.auditAnnotations[key] ? (JSON.parse(outcome.auditAnnotations[key]) as unknown[]) : [];
          list.push({ message, policy: policy.name, binding: bindingName, validationActions: actions });
          outcome.auditAnnotations[key] = JSON.stringify(list);
        }
      };
      let params: (KubeObject | null)[];
      try {
        const p = await paramsFor(policy, spec, a);
        if (p === 'allow') continue;
        if (p === 'notFound') {
          record('no params found for policy binding with `Deny` parameterNotFoundAction', undefined);
          continue;
        }
        params = p;
      } catch (e) {
        if (e instanceof EvaluationError) {
          if (failClosed) record(e.message);
          continue;
        }
        throw e;
      }
      for (const param of params) {
        const started = performance.now();
        // Evaluated in rounds until every authorizer check the expressions make is answered (policyAuthorizer.ts).
        const checks = new PrefetchingAuthorizer(deps.authorizer?.() ?? allowAll);
        let results: { message: string; reason?: string }[] = [];
        for (let round = 0; round < MAX_ROUNDS; round++) {
          results = evaluatePolicy(policy, a, param, nsObject, checks, failClosed, outcome);
          if (!checks.pending) break;
          await checks.resolve();
        }
        for (const r of results) record(r.message, r.reason);
        const seconds = (performance.now() - started) / 1000;
        if (!results.length) deps.observeCheck?.(policy.name, bindingName, 'no_error', 'allow', seconds);
        else for (const action of actions) deps.observeCheck?.(policy.name, bindingName, 'invalid_error', action.toLowerCase() as 'deny' | 'warn' | 'audit', seconds);
      }
    }
    if (denials.length) {
      const d = denials[0]!;
      const message = `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
      const reason = (d.reason || 'Invalid') as StatusReason;
      const gr = { group: a.resource.group, resource: a.resource.resource };
      const name = a.name || (a.object?.metadata.name ?? '');
      const full = name ? `${qualifiedResource(gr)} "${name}" is forbidden: ${message}` : `${qualifiedResource(gr)} is forbidden: ${message}`;
      throw new StatusError({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: full, reason, code: reasonCodes[reason] ?? 400,
        details: { name, group: a.resource.group, kind: a.resource.resource, causes: [{ message }] },
      });
    }
  }

  return {
    // Loaded with no policy bound (the usual case): nothing to wait for.
    validate: (a, outcome) => (loaded && (loaded.policies.size === 0 || loaded.bindings.length === 0) ? undefined : validate(a, outcome)),
    async start() {
      await current();
    },
    invalidate() {
      loaded = undefined;
    },
    async typeCheck() {
      if (!policyType) return;
      const store = deps.storeFor(policyType);
      for (const p of (await store.list('')).items) {
        if (p.metadata.deletionTimestamp) continue;
        const warnings = typeCheckPolicy(deps.registry, p);
        const status = { observedGeneration: p.metadata.generation ?? 1, typeChecking: warnings.length ? { expressionWarnings: warnings } : {} };
        const old = isObject(p['status']) ? p['status'] : {};
        if (jsonEqual({ observedGeneration: old['observedGeneration'], typeChecking: old['typeChecking'] }, status)) continue;
        try {
          await store.update('', p.metadata.name!, (cur) => (cur ? { ...cur, status: { ...(isObject(cur['status']) ? cur['status'] : {}), ...status } } : (cur as unknown as KubeObject)), { subresource: 'status' });
        } catch {
          // Changed or deleted underneath: the next write checks it again.
        }
      }
    },
    stop() {
      for (const u of unsubscribers) u();
    },
  };
}

