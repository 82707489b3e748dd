/**
 * The PodSecurity admission plugin (k8s.io/pod-security-admission/admission
 * and plugin/pkg/admission/security/podsecurity), validating CREATE and
 * UPDATE:
 * - Pods are evaluated against their namespace's enforce level (denied with
 *   403), audit level (an audit annotation) and warn level (a Warning).
 *   Updates that change no image (nor seccomp annotation) and the status,
 *   binding, eviction, exec/attach/log/portforward/proxy subresources are
 *   not evaluated.
 * - Pod-template workloads are only warned and audited.
 * - Namespaces: invalid pod-security labels are refused (422) on create and
 *   when they change; tightening the enforce level evaluates the existing
 *   pods and warns about the ones that would be refused.
 */
import type { KubeObject, ObjectMeta } from '../../api/types';
import { invalid, newForbidden, newInternalError, newInvalid, type StatusError } from '../../errors';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes';
import {
  auditViolationsAnnotationKey,
  compareLevels,
  defaultPolicy,
  enforcedPolicyAnnotationKey,
  exemptionReasonAnnotationKey,
  fullyPrivileged,
  labelPrefix,
  levelVersionString,
  policyToEvaluate,
  sameLevelVersion,
  versionString,
  type LabelError,
  type LevelVersion,
  type Policy,
} from './api';
import { aggregateCheckResults, forbiddenDetail, forbiddenReason, type AggregateCheckResult, type Evaluator, type PodSpec } from './policy';
import { extractPodSpec, hasPodSpec } from './podSpec';
import type { PodSecurityRecorder } from './metrics';

/** PodSecurityConfiguration's exemptions (kube-apiserver's default exempts nothing). */
export interface Exemptions {
  usernames: string[];
  namespaces: string[];
  runtimeClasses: string[];
}

export interface PodSecurityDeps {
  evaluator: Evaluator;
  getNamespace(name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
  listPods(namespace: string): Promise<KubeObject[]>;
  exemptions?: Exemptions;
  defaults?: Policy;
  /** pod_security_* metrics. */
  metrics?: PodSecurityRecorder;
}

export interface PodSecurityPlugin {
  /** Undefined when the answer needed no read (an exempt or ignored request); throws or rejects with the refusal. */
  validate(attrs: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> | undefined;
}

/** Subresources whose writes cannot change a pod's spec. */
const ignoredPodSubresources = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** The enforce level checks at most this many existing pods on a namespace change. */
const namespaceMaxPodsToCheck = 3000;

interface Response {
  /** The refusal, returned rather than thrown so its audit annotations are kept. */
  denied?: StatusError;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export function createPodSecurityPlugin(deps: PodSecurityDeps): PodSecurityPlugin {
  const exemptions = deps.exemptions ?? { usernames: [], namespaces: [], runtimeClasses: [] };
  const defaults = deps.defaults ?? defaultPolicy;
  const { evaluator } = deps;
  const noMetrics: PodSecurityRecorder = { recordEvaluation() {}, recordExemption() {}, recordError() {} };
  const metrics = deps.metrics ?? noMetrics;
  const exemptNamespace = (ns: string) => ns !== '' && exemptions.namespaces.includes(ns);
  const exemptUser = (user: string) => user !== '' && exemptions.usernames.includes(user);
  const exemptRuntimeClass = (rc: string | undefined) => !!rc && exemptions.runtimeClasses.includes(rc);
  const exempt = (attrs: AdmissionAttributes, reason: string): Response => {
    metrics.recordExemption(attrs);
    return { auditAnnotations: { [exemptionReasonAnnotationKey]: reason } };
  };

  const evaluate = (lv: LevelVersion, meta: ObjectMeta, spec: PodSpec): AggregateCheckResult => aggregateCheckResults(evaluator.evaluatePod(lv, meta, spec));

  /** EvaluatePod: enforce (pods only), then audit, then warn, reusing a result when two modes share a level:version. */
  function evaluatePod(attrs: AdmissionAttributes, policy: Policy, policyErrors: LabelError[], meta: ObjectMeta, spec: PodSpec, enforce: boolean): Response {
    if (exemptRuntimeClass(spec.runtimeClassName)) return exempt(attrs, 'runtimeClass');
    const auditAnnotations: Record<string, string> = {};
    if (policyErrors.length) {
      auditAnnotations['error'] = `Failed to parse policy: ${labelErrorsAggregate(policyErrors)}`;
      metrics.recordError(false, attrs);
    }
    const cached = new Map<string, AggregateCheckResult>();
    const resultFor = (lv: LevelVersion) => {
      const key = levelVersionString(lv);
      let r = cached.get(key);
      if (!r) cached.set(key, (r = evaluate(lv, meta, spec)));
      return r;
    };
    let denied: StatusError | undefined;
    if (enforce) {
      auditAnnotations[enforcedPolicyAnnotationKey] = levelVersionString(policy.enforce);
      const result = resultFor(policy.enforce);
      if (!result.allowed) {
        const reason = `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(result)}`;
        denied = newForbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, reason);
      }
      metrics.recordEvaluation(denied ? 'deny' : 'allow', policy.enforce, 'enforce', attrs);
    }
    const audit = resultFor(policy.audit);
    if (!audit.allowed) {
      auditAnnotations[auditViolationsAnnotationKey] = `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`;
      metrics.recordEvaluation('deny', policy.audit, 'audit', attrs);
    }
    // A request that is refused gets no warnings.
    const warnings: string[] = [];
    const warn = denied ? undefined : resultFor(policy.warn);
    if (warn && !warn.allowed) {
      warnings.push(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`);
      metrics.recordEvaluation('deny', policy.warn, 'warn', attrs);
    }
    return { denied, warnings, auditAnnotations };
  }

  /** What a fully privileged namespace's pods are annotated with. */
  const privilegedLevel = levelVersionString(defaultPolicy.enforce);
  /** The answer for every pod of a fully privileged namespace (most of them): one object, only ever read. */
  const privilegedResponse: Response = Object.freeze({ auditAnnotations: Object.freeze({ [enforcedPolicyAnnotationKey]: privilegedLevel }) });
  /** The policy of a namespace without labels (most of them): the defaults, computed once. */
  const unlabelled = policyToEvaluate(undefined, defaults);

  /** Policies by the labels object they were read from: the lister hands out the same namespace until it changes. */
  const policies = new WeakMap<Record<string, string>, { policy: Policy; errors: LabelError[] }>();

  function namespacePolicy(ns: KubeObject): { policy: Policy; errors: LabelError[] } {
    const labels = ns.metadata.labels;
    if (!labels) return unlabelled;
    let known = policies.get(labels);
    if (!known) policies.set(labels, (known = policyToEvaluate(labels, defaults)));
    return known;
  }

  /** Pods: one namespace read, then the verdict; exempt requests answer at once. */
  function validatePod(attrs: AdmissionAttributes): Response | Promise<Response> {
    if (ignoredPodSubresources.has(attrs.subresource)) return {};
    if (exemptNamespace(attrs.namespace)) return exempt(attrs, 'namespace');
    if (exemptUser(attrs.user.username)) return exempt(attrs, 'user');
    // The namespace lister answers at once when it holds the namespace.
    const ns = deps.getNamespace(attrs.namespace);
    return ns instanceof Promise ? ns.then((found) => podVerdict(attrs, found)) : podVerdict(attrs, ns);
  }

  function podVerdict(attrs: AdmissionAttributes, ns: KubeObject | undefined): Response {
    if (!ns) {
      const message = `failed to lookup namespace ${JSON.stringify(attrs.namespace)}`;
      metrics.recordError(true, attrs);
      return { denied: newInternalError(new Error(message)), auditAnnotations: { error: `Internal error occurred: ${message}: ${namespaceNotFound(attrs.namespace)}` } };
    }
    const { policy, errors } = namespacePolicy(ns);
    if (!errors.length && fullyPrivileged(policy)) {
      metrics.recordEvaluation('allow', policy.enforce, 'enforce', attrs);
      return privilegedResponse;
    }
    const pod = attrs.object;
    if (!pod) return {};
    if (attrs.operation === 'UPDATE' && attrs.oldObject && !isSignificantPodUpdate(pod, attrs.oldObject)) return {};
    return evaluatePod(attrs, policy, errors, pod.metadata, (pod['spec'] ?? {}) as PodSpec, true);
  }

  async function validatePodController(attrs: AdmissionAttributes): Promise<Response> {
    if (attrs.subresource) return {};
    if (exemptNamespace(attrs.namespace)) return exempt(attrs, 'namespace');
    if (exemptUser(attrs.user.username)) return exempt(attrs, 'user');
    const ns = await deps.getNamespace(attrs.namespace);
    // A workload is never refused for a lookup failure: the error is only audited.
    if (!ns) {
      metrics.recordError(true, attrs);
      return { auditAnnotations: { error: `failed to lookup namespace ${JSON.stringify(attrs.namespace)}: ${namespaceNotFound(attrs.namespace)}` } };
    }
    const { policy, errors } = policyToEvaluate(ns.metadata.labels, defaults);
    if (!errors.length && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return {};
    const template = attrs.object && extractPodSpec(attrs.resource.group, attrs.resource.resource, attrs.object);
    if (!template) return {};
    return evaluatePod(attrs, policy, errors, template.metadata, template.spec, false);
  }

  async function validateNamespace(attrs: AdmissionAttributes): Promise<Response> {
    if (attrs.subresource || !attrs.object) return {};
    const namespace = attrs.object;
    const name = namespace.metadata.name ?? '';
    const next = policyToEvaluate(namespace.metadata.labels, defaults);
    const refuse = (): Response => ({ denied: newInvalid({ group: '', kind: 'Namespace' }, attrs.name, next.errors.map((e) => invalid(e.field, e.value, e.detail))) });
    if (attrs.operation === 'CREATE') {
      if (next.errors.length) return refuse();
      return exemptNamespace(name) ? exemptNamespaceWarning(name, next.policy, namespace.metadata.labels ?? {}) : {};
    }
    if (attrs.operation !== 'UPDATE' || !attrs.oldObject) return {};
    const old = policyToEvaluate(attrs.oldObject.metadata.labels, defaults);
    // Labels that were already invalid the same way may stay.
    if (next.errors.length && (!old.errors.length || labelErrorsAggregate(next.errors) !== labelErrorsAggregate(old.errors))) return refuse();
    const enforce = next.policy.enforce;
    // Existing pods are checked only when the enforce level:version tightens.
    if (sameLevelVersion(enforce, old.policy.enforce)) return {};
    if (enforce.level === 'privileged') return {};
    if (versionString(enforce.version) === versionString(old.policy.enforce.version) && compareLevels(enforce.level, old.policy.enforce.level) < 1) return {};
    if (exemptNamespace(name)) return exemptNamespaceWarning(name, next.policy, namespace.metadata.labels ?? {});
    return { warnings: await evaluatePodsInNamespace(name, enforce) };
  }

  /** Labels that set a policy on an exempt namespace are pointed out: they will not apply. */
  function exemptNamespaceWarning(name: string, policy: Policy, labels: Record<string, string>): Response {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, defaults)) return {};
    const set = (['enforce', 'audit', 'warn'] as const)
      .filter((mode) => policy[mode].level !== 'privileged' && (`${labelPrefix}${mode}` in labels || `${labelPrefix}${mode}-version` in labels))
      .map((mode) => `${mode}=${levelVersionString(policy[mode])}`);
    return { warnings: [`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${set.join(', ')}) will be ignored`] };
  }

  /** EvaluatePodsInNamespace: one warning per distinct violation, naming the first pod (by name) and how many others share it. */
  async function evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: KubeObject[];
    try {
      pods = prioritizePods(await deps.listPods(namespace), exemptRuntimeClass);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const warnings: string[] = [];
    const total = pods.length;
    const checked = pods.slice(0, namespaceMaxPodsToCheck);
    const byWarning = new Map<string, { podName: string; count: number }>();
    for (const pod of checked) {
      const r = evaluate(enforce, pod.metadata, (pod['spec'] ?? {}) as PodSpec);
      if (r.allowed) continue;
      const warning = forbiddenReason(r);
      const podName = pod.metadata.name ?? '';
      const seen = byWarning.get(warning);
      if (!seen) byWarning.set(warning, { podName, count: 1 });
      else {
        seen.count++;
        if (podName < seen.podName) seen.podName = podName;
      }
    }
    if (checked.length < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`);
    if (byWarning.size) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
    const podWarnings = [...byWarning].map(([warning, { podName, count }]) => {
      if (count === 1) return `${podName}: ${warning}`;
      if (count === 2) return `${podName} (and 1 other pod): ${warning}`;
      return `${podName} (and ${count - 1} other pods): ${warning}`;
    });
    podWarnings.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return [...warnings, ...podWarnings];
  }

  /** The response on the request: warnings, audit annotations, then the refusal. */
  function answer(response: Response, outcome: AdmissionOutcome): void {
    if (response.warnings) for (const w of response.warnings) outcome.warnings.push(w);
    if (response.auditAnnotations) for (const k in response.auditAnnotations) outcome.auditAnnotations[labelPrefix + k] = response.auditAnnotations[k]!;
    if (response.denied) throw response.denied;
  }

  return {
    validate(attrs, outcome) {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return undefined;
      const { group, resource } = attrs.resource;
      let response: Response | Promise<Response>;
      if (group === '' && resource === 'namespaces') response = validateNamespace(attrs);
      else if (group === '' && resource === 'pods') response = validatePod(attrs);
      else if (hasPodSpec(group, resource)) response = validatePodController(attrs);
      else return undefined;
      if (response instanceof Promise) return response.then((r) => answer(r, outcome));
      answer(response, outcome);
      return undefined;
    },
  };
}

/** Policy.Equivalent: the same level per mode, and the same version unless the level is privileged. */
function equivalentPolicies(a: Policy, b: Policy): boolean {
  return (['enforce', 'audit', 'warn'] as const).every((m) => a[m].level === b[m].level && (a[m].level === 'privileged' || versionString(a[m].version) === versionString(b[m].version)));
}

/** The namespace getter's NotFound, as its error text. */
const namespaceNotFound = (name: string): string => `namespaces ${JSON.stringify(name)} not found`;

/** field.ErrorList.ToAggregate().Error(): one error alone, several as `[a, b]`. */
function labelErrorsAggregate(errors: readonly LabelError[]): string {
  const texts = errors.map((e) => `${e.field}: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`);
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** The pod fields that can change on update and matter to the checks: containers (count, images) and seccomp annotations. */
function isSignificantPodUpdate(pod: KubeObject, oldPod: KubeObject): boolean {
  const spec = (pod['spec'] ?? {}) as PodSpec;
  const oldSpec = (oldPod['spec'] ?? {}) as PodSpec;
  const annotations = pod.metadata.annotations ?? {};
  const oldAnnotations = oldPod.metadata.annotations ?? {};
  const changed = (c: { name: string; image?: string }, o: { name: string; image?: string }) => {
    const key = `container.seccomp.security.alpha.kubernetes.io/${c.name}`;
    return c.image !== o.image || annotations[key] !== oldAnnotations[key];
  };
  const containers = spec.containers ?? [];
  const oldContainers = oldSpec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const oldInits = oldSpec.initContainers ?? [];
  if (containers.length !== oldContainers.length || inits.length !== oldInits.length) return true;
  if (containers.some((c, i) => changed(c, oldContainers[i]!)) || inits.some((c, i) => changed(c, oldInits[i]!))) return true;
  for (const c of spec.ephemeralContainers ?? []) {
    const old = (oldSpec.ephemeralContainers ?? []).find((o) => o.name === c.name);
    if (!old || changed(c, old)) return true;
  }
  return false;
}

/** prioritizePods: exempt runtime classes out, one pod per controller first, the other replicas after. */
function prioritizePods(pods: KubeObject[], exemptRuntimeClass: (rc: string | undefined) => boolean): KubeObject[] {
  const first: KubeObject[] = [];
  const duplicates: KubeObject[] = [];
  const controllers = new Set<string>();
  for (const pod of pods) {
    if (exemptRuntimeClass(((pod['spec'] ?? {}) as PodSpec).runtimeClassName)) continue;
    const controller = pod.metadata.ownerReferences?.find((r) => r.controller === true);
    if (!controller) first.push(pod);
    else if (controllers.has(controller.uid)) duplicates.push(pod);
    else {
      controllers.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...duplicates];
}
