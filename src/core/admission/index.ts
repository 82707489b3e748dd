/**
 * The admission chain of the write handlers (k8s.io/apiserver/pkg/admission):
 * validating admission runs, per write, after the strategy validated the
 * object and before storage, on every write path (create, update, patch,
 * apply, delete, subresources), dry runs included. ValidatingAdmissionPolicy
 * and PodSecurity are its plugins; warnings become Warning headers, audit
 * annotations trace entries.
 */
import { addTrace, userFrom } from '../http/request/context';
import type { RequestInfo } from '../http/requestInfo';
import type { AdmissionReview, MutatingAdmission, ValidatingAdmission } from '../registry/generic/store';
import type { ResourceType } from '../registry/types';
import { anonymousUser, allUnauthenticated } from '../auth/user';
import type { AdmissionAttributes, AdmissionOutcome } from './attributes';
import type { ValidatingAdmissionPolicyPlugin } from './validatingAdmissionPolicy';
import type { Authorizer } from '../auth/authorizer/types';
import { admitCertificateApproval, admitCertificateSigning } from './certificateApproval';
import { admitCertificateSubjectRestriction } from './certificateSubjectRestriction';
import type { PodSecurityPlugin } from './podSecurity';
import type { WebhookAdmissionPlugin } from './webhook';

export { createValidatingAdmissionPolicyPlugin, type ValidatingAdmissionPolicyPlugin } from './validatingAdmissionPolicy';
export type { AdmissionAttributes, AdmissionOutcome } from './attributes';
export { defaultStorageClass } from './defaultStorageClass';
export { createDefaultAdmissionPlugins, type DefaultAdmissionPlugins, type DefaultPluginsOptions } from './defaultPlugins';
export { defaultPodSecurityPlugin, type PodSecurityPlugin } from './podSecurity';
export { createWebhookAdmissionPlugin, type AdmissionWebhookTransport, type WebhookAdmissionPlugin } from './webhook';

/** The options object of each operation; a connect has none. */
const optionsKinds: Partial<Record<AdmissionReview['operation'], string>> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** The admission attributes of one write of a request. */
export function requestAttributes(request: Request, info: RequestInfo, type: ResourceType, review: AdmissionReview): AdmissionAttributes {
  const obj = review.object ?? review.oldObject;
  return {
    operation: review.operation,
    resource: { group: type.group, version: type.version, resource: type.resource },
    kind: { group: type.group, version: type.version, kind: review.kind ?? type.kind },
    subresource: review.subresource,
    name: info.name || obj?.metadata.name || '',
    namespace: type.scope === 'Namespaced' ? info.namespace : '',
    namespaced: type.scope === 'Namespaced',
    object: review.object,
    oldObject: review.oldObject,
    dryRun: review.dryRun,
    user: userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] },
    options: optionsKinds[review.operation] ? { kind: optionsKinds[review.operation], apiVersion: 'meta.k8s.io/v1', ...(review.dryRun ? { dryRun: ['All'] } : {}) } : undefined,
  };
}

/**
 * The webhook phases around the built-in plugins: MutatingAdmissionWebhook
 * after the built-in mutating plugins, ValidatingAdmissionWebhook after
 * `inner`. Subclasses say which plugin runs, as whom and what becomes of an
 * outcome; the phases are objects with method steps, so a write makes no
 * closures for them.
 */
abstract class WebhookPhases {
  protected abstract plugin(): WebhookAdmissionPlugin | undefined;
  protected abstract attributes(review: AdmissionReview): AdmissionAttributes;
  /** What the webhooks' warnings and audit annotations become (nothing by default). */
  protected done(_outcome: AdmissionOutcome): void {}

  mutating(builtIn: MutatingAdmission | undefined): MutatingAdmission {
    return new MutatingWebhooks(this, builtIn);
  }

  validating(inner: ValidatingAdmission | undefined): ValidatingAdmission {
    return new ValidatingWebhooks(this, inner);
  }

  /** One phase's webhooks; undefined at once when none of the phase is configured. */
  run(phase: 'admit' | 'validate', review: AdmissionReview): Promise<void> | undefined {
    const webhooks = this.plugin();
    if (!webhooks || webhooks.idle(phase)) return undefined;
    const outcome: AdmissionOutcome = { warnings: [], auditAnnotations: {} };
    return webhooks[phase](this.attributes(review), outcome)?.finally(() => this.done(outcome));
  }
}

/** MutatingAdmissionWebhook after the built-in mutating plugins. */
class MutatingWebhooks implements MutatingAdmission {
  constructor(private readonly webhooks: WebhookPhases, private readonly builtIn: MutatingAdmission | undefined) {}

  admit(review: AdmissionReview): Promise<void> | undefined {
    const first = this.builtIn?.admit(review);
    return first ? first.then(() => this.webhooks.run('admit', review)) : this.webhooks.run('admit', review);
  }
}

/** ValidatingAdmissionWebhook after `inner` (ValidatingAdmissionPolicy). */
class ValidatingWebhooks implements ValidatingAdmission {
  constructor(private readonly webhooks: WebhookPhases, private readonly inner: ValidatingAdmission | undefined) {}

  validate(review: AdmissionReview): Promise<void> {
    const first = this.inner?.validate(review);
    return first ? first.then(() => this.webhooks.run('validate', review)) : (this.webhooks.run('validate', review) ?? settled);
  }
}

/**
 * An admission outcome's audit annotations into the request's trace (a
 * refused write's too) and, for an admitted write, its warnings into the
 * response's, each once (a retried write runs admission again).
 */
function recordOutcome(request: Request, outcome: AdmissionOutcome, warnings: string[] | undefined): void {
  const annotations = outcome.auditAnnotations;
  for (const _ in annotations) {
    addTrace(request, { stage: 'admission', message: 'audit annotations', details: annotations });
    break;
  }
  if (warnings) for (const w of outcome.warnings) if (!warnings.includes(w)) warnings.push(w);
}

/**
 * The webhook plugins for one request: MutatingAdmissionWebhook after
 * `builtIn` (the mutating plugins before it in kube's order), and
 * ValidatingAdmissionWebhook after `inner` (ValidatingAdmissionPolicy).
 * Warnings join the response's (each once: a retried write runs admission
 * again), audit annotations the trace, a refused write's included.
 */
export function requestWebhooks(plugin: WebhookAdmissionPlugin | undefined, request: Request, info: RequestInfo, type: ResourceType, warnings: string[]): RequestWebhooks {
  return new RequestWebhooks(plugin, request, info, type, warnings);
}

/** requestWebhooks' phases: as the request's user; warnings to the response, audit annotations to the trace. */
class RequestWebhooks extends WebhookPhases {
  constructor(
    private readonly webhooks: WebhookAdmissionPlugin | undefined,
    private readonly request: Request,
    private readonly info: RequestInfo,
    private readonly type: ResourceType,
    private readonly warnings: string[],
  ) {
    super();
  }

  protected plugin(): WebhookAdmissionPlugin | undefined {
    return this.webhooks;
  }

  protected attributes(review: AdmissionReview): AdmissionAttributes {
    return requestAttributes(this.request, this.info, this.type, review);
  }

  protected done(outcome: AdmissionOutcome): void {
    recordOutcome(this.request, outcome, this.warnings);
  }
}

/** Who the writes no request makes are admitted as: kube-controller-manager's own identity (without --use-service-account-credentials). */
const controllerUser = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };

/**
 * The webhooks on the writes no request makes (the controllers' own: a
 * ReplicaSet's pods reach a sidecar-injecting webhook as in a cluster). The
 * plugin is looked up at each write: stores exist before it is built.
 */
export function controllerWebhooks(plugin: () => WebhookAdmissionPlugin | undefined, type: ResourceType): WebhookPhases {
  return new ControllerWebhooks(plugin, type);
}

class ControllerWebhooks extends WebhookPhases {
  constructor(
    private readonly lookup: () => WebhookAdmissionPlugin | undefined,
    private readonly type: ResourceType,
  ) {
    super();
  }

  protected plugin(): WebhookAdmissionPlugin | undefined {
    return this.lookup();
  }

  protected attributes(review: AdmissionReview): AdmissionAttributes {
    return controllerAttributes(this.type, review);
  }
}

/** The admission attributes of a write no request makes: as its writer (a controller's own account) or kube-controller-manager. */
function controllerAttributes(type: ResourceType, review: AdmissionReview): AdmissionAttributes {
  const meta = (review.object ?? review.oldObject)?.metadata;
  return {
    operation: review.operation,
    resource: { group: type.group, version: type.version, resource: type.resource },
    kind: { group: type.group, version: type.version, kind: review.kind ?? type.kind },
    subresource: review.subresource,
    name: meta?.name ?? '',
    namespace: type.scope === 'Namespaced' ? (meta?.namespace ?? '') : '',
    namespaced: type.scope === 'Namespaced',
    object: review.object,
    oldObject: review.oldObject,
    dryRun: review.dryRun,
    // A controller with a ServiceAccount of its own (--use-service-account-credentials) writes as it.
    user: review.user ?? controllerUser,
    options: optionsKinds[review.operation] ? { kind: optionsKinds[review.operation], apiVersion: 'meta.k8s.io/v1' } : undefined,
  };
}

/**
 * ValidatingAdmissionPolicy on the writes no request makes (a ReplicaSet's
 * pods), after `inner` (PodSecurity); warnings and audit annotations have no
 * response or audit event to go to. The plugin is looked up at each write:
 * stores exist before it is built.
 */
export function controllerPolicies(plugin: () => ValidatingAdmissionPolicyPlugin | undefined, type: ResourceType, inner: ValidatingAdmission | undefined): ValidatingAdmission {
  return new ControllerPolicies(plugin, type, inner);
}

class ControllerPolicies implements ValidatingAdmission {
  constructor(
    private readonly lookup: () => ValidatingAdmissionPolicyPlugin | undefined,
    private readonly type: ResourceType,
    private readonly inner: ValidatingAdmission | undefined,
  ) {}

  validate(review: AdmissionReview): Promise<void> {
    const first = this.inner?.validate(review);
    return first ? first.then(() => this.policies(review)) : (this.policies(review) ?? settled);
  }

  private policies(review: AdmissionReview): Promise<void> | undefined {
    const plugin = this.lookup();
    if (!plugin) return undefined;
    try {
      return plugin.validate(controllerAttributes(this.type, review), { warnings: [], auditAnnotations: {} });
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

const settled = Promise.resolve();

/** Times one validating admission step (apiserver_admission_step_* and _controller_* duration metrics; `step` false: the plugin's only). */
export type AdmissionObserver = (plugin: string, operation: string, rejected: boolean, seconds: number, step?: boolean) => void;

/**
 * The validating plugins in kube's order: CertificateApproval and
 * CertificateSigning (when an authorizer is given), CertificateSubjectRestriction,
 * PodSecurity (when given; kube runs it before the certificate plugins,
 * which never see the pods, workloads and namespaces it sees), then
 * ValidatingAdmissionPolicy.
 */
export function requestAdmission(plugin: ValidatingAdmissionPolicyPlugin, request: Request, info: RequestInfo, type: ResourceType, warnings: string[], observe?: AdmissionObserver, authorizer?: Authorizer, subjectRestriction = true, podSecurity?: PodSecurityPlugin): ValidatingAdmission {
  return new RequestAdmission(plugin, request, info, type, warnings, observe, authorizer, subjectRestriction, podSecurity);
}

/** requestAdmission's chain: one object per request, its steps methods (no closures made per write). */
class RequestAdmission implements ValidatingAdmission {
  constructor(
    private readonly plugin: ValidatingAdmissionPolicyPlugin,
    private readonly request: Request,
    private readonly info: RequestInfo,
    private readonly type: ResourceType,
    private readonly warnings: string[],
    private readonly observe: AdmissionObserver | undefined,
    private readonly authorizer: Authorizer | undefined,
    private readonly subjectRestriction: boolean,
    private readonly podSecurity: PodSecurityPlugin | undefined,
  ) {}

  validate(review: AdmissionReview): Promise<void> {
    if (this.type.group === 'certificates.k8s.io') return this.checkCertificates(review).then(() => this.validatePlugins(review));
    try {
      return this.validatePlugins(review) ?? settled;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** CertificateApproval / CertificateSigning (with an authorizer) and CertificateSubjectRestriction. */
  private async checkCertificates(review: AdmissionReview): Promise<void> {
    const { authorizer, type, info, request, observe } = this;
    const obj = review.object ?? review.oldObject;
    if (authorizer && review.operation === 'UPDATE' && (review.subresource === 'approval' || review.subresource === 'status')) {
      const attrs = { group: type.group, resource: type.resource, subresource: review.subresource, name: info.name || obj?.metadata.name || '', object: review.object, oldObject: review.oldObject, user: userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] } };
      const [name, admit] = review.subresource === 'approval' ? ['CertificateApproval', admitCertificateApproval] as const : ['CertificateSigning', admitCertificateSigning] as const;
      const startedAt = performance.now();
      let denied = true;
      try {
        await admit(authorizer, attrs);
        denied = false;
      } finally {
        observe?.(name, review.operation, denied, (performance.now() - startedAt) / 1000);
      }
    }
    if (this.subjectRestriction && review.operation === 'CREATE') {
      const startedAt = performance.now();
      let denied = true;
      try {
        admitCertificateSubjectRestriction({ group: type.group, resource: type.resource, subresource: review.subresource, name: info.name || obj?.metadata.name || '', object: review.object });
        denied = false;
      } finally {
        observe?.('CertificateSubjectRestriction', review.operation, denied, (performance.now() - startedAt) / 1000);
      }
    }
  }

  /**
   * PodSecurity, then ValidatingAdmissionPolicy, each timed for its metrics. A step that answers at once
   * (no namespace to read, no policy bound) takes no await; a refusal ends the validating step there.
   */
  private validatePlugins(review: AdmissionReview): Promise<void> | undefined {
    const { request, podSecurity, plugin } = this;
    const run: PluginRun = { request, operation: review.operation, outcome: { warnings: [], auditAnnotations: {} }, warnings: this.warnings, observe: this.observe };
    const attrs = requestAttributes(request, this.info, this.type, review);
    // kube handles CREATE and UPDATE with PodSecurity; the validating step is counted once, with the policies.
    const first = podSecurity && (review.operation === 'CREATE' || review.operation === 'UPDATE') ? timedStep(run, 'PodSecurity', false, podSecurity, attrs) : undefined;
    if (first) return first.then(() => timedStep(run, 'ValidatingAdmissionPolicy', true, plugin, attrs)).then(() => recordOutcome(run.request, run.outcome, run.warnings));
    const last = timedStep(run, 'ValidatingAdmissionPolicy', true, plugin, attrs);
    if (last) return last.then(() => recordOutcome(run.request, run.outcome, run.warnings));
    recordOutcome(run.request, run.outcome, run.warnings);
    return undefined;
  }
}

/** One request's pass through the validating plugins. */
interface PluginRun {
  request: Request;
  operation: string;
  outcome: AdmissionOutcome;
  /** The response's warnings. */
  warnings: string[];
  observe: AdmissionObserver | undefined;
}

/** Runs one plugin, timed for its metrics; a pending one comes back as a promise that settles after they are recorded. */
function timedStep(run: PluginRun, name: string, countStep: boolean, plugin: { validate(a: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> | undefined }, attrs: AdmissionAttributes): Promise<void> | undefined {
  const started = performance.now();
  let pending: Promise<void> | undefined;
  try {
    pending = plugin.validate(attrs, run.outcome);
  } catch (e) {
    refusedStep(run, name, started, e);
  }
  if (!pending) {
    run.observe?.(name, run.operation, false, (performance.now() - started) / 1000, countStep);
    return undefined;
  }
  return pending.then(
    () => run.observe?.(name, run.operation, false, (performance.now() - started) / 1000, countStep),
    (e: unknown) => refusedStep(run, name, started, e),
  );
}

/** A refusal ends the validating step: counted, the annotations made so far kept. */
function refusedStep(run: PluginRun, name: string, started: number, e: unknown): never {
  run.observe?.(name, run.operation, true, (performance.now() - started) / 1000, true);
  recordOutcome(run.request, run.outcome, undefined);
  throw e;
}

export { bootstrapSystemPriorityClasses } from './priority';

/**
 * PodSecurity on the writes no request makes (the controllers' own: a
 * ReplicaSet's pods), enforced as on a request's; there is no response to
 * carry warnings nor an audit event to annotate. The plugin is looked up at
 * each write: stores exist before it is built.
 */
export function controllerPodSecurity(plugin: () => PodSecurityPlugin | undefined, type: ResourceType): ValidatingAdmission | undefined {
  if (type.group !== '' || type.resource !== 'pods') return undefined;
  return {
    validate: async (review) =>
      plugin()?.validate(
        {
          operation: review.operation,
          resource: { group: type.group, version: type.version, resource: type.resource },
          kind: { group: type.group, version: type.version, kind: review.kind ?? type.kind },
          subresource: review.subresource,
          name: (review.object ?? review.oldObject)?.metadata.name ?? '',
          namespace: (review.object ?? review.oldObject)?.metadata.namespace ?? '',
          namespaced: true,
          object: review.object,
          oldObject: review.oldObject,
          dryRun: review.dryRun,
          user: review.user ?? { username: '', groups: [] },
        },
        { warnings: [], auditAnnotations: {} },
      ),
  };
}
