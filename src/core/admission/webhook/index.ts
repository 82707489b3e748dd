/**
 * Admission webhooks: MutatingAdmissionWebhook and ValidatingAdmissionWebhook
 * over the stored webhook configurations. Calls go through a transport the
 * host may inject (TLS against caBundle); the runtime's fetch otherwise.
 */
import type { KubeObject } from '../../api/types';
import type { Authorizer } from '../../auth/authorizer/types';
import type { Store } from '../../registry/generic/store';
import type { ResourceRegistry } from '../../registry/registry';
import type { ResourceType } from '../../registry/types';
import type { Storage } from '../../storage/interface';
import type { AdmissionAttributes, AdmissionOutcome } from '../attributes';
import { fetchTransport, type AdmissionWebhookTransport } from './client';
import { isExempt, webhookSource } from './configurations';
import { dispatchMutating, dispatchValidating, type DispatchDeps, type WebhookObserver } from './dispatcher';

export type { AdmissionWebhookTransport, WebhookAnswer, WebhookCall } from './client';
export type { WebhookObserver } from './dispatcher';

export interface WebhookPluginDeps {
  storage: Storage;
  registry: ResourceRegistry;
  storeFor(type: ResourceType): Store;
  authorizer?: () => Authorizer;
  transport?: AdmissionWebhookTransport;
  observe?: WebhookObserver;
}

export interface WebhookAdmissionPlugin {
  /** MutatingAdmissionWebhook: may patch a.object in place; throws the denial. */
  admit(a: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> | undefined;
  /** ValidatingAdmissionWebhook: throws the denial. */
  validate(a: AdmissionAttributes, outcome: AdmissionOutcome): Promise<void> | undefined;
  /** No configuration of the phase is loaded: the phase would do nothing, so its attributes need not be built. */
  idle(phase: 'admit' | 'validate'): boolean;
  start(): Promise<void>;
  stop(): void;
}

export function createWebhookAdmissionPlugin(deps: WebhookPluginDeps): WebhookAdmissionPlugin {
  const mutating = webhookSource(deps, 'mutatingwebhookconfigurations');
  const validating = webhookSource(deps, 'validatingwebhookconfigurations');
  const dispatch: DispatchDeps = {
    // Read at the call: the dispatcher, client and review are a service-worker part run once a webhook is configured.
    transport: deps.transport ?? ((call) => fetchTransport(call)),
    authorizer: deps.authorizer,
    observe: deps.observe,
    async namespaceObject(a) {
      const type = deps.registry.resourceFor('', 'v1', 'namespaces');
      if (!type || !a.namespace) return undefined;
      const store = deps.storeFor(type);
      const kv = await store.getKv('', a.namespace);
      return kv ? (store.decode(kv) as KubeObject) : undefined;
    },
    defaulter(a) {
      const type = deps.registry.resourceFor(a.resource.group, a.resource.version, a.resource.resource);
      const strategy = type ? deps.storeFor(type).strategy : undefined;
      return strategy?.defaulter ? (obj) => strategy.defaulter!(obj) : undefined;
    },
    equivalentVersions(a) {
      const versions = deps.registry.group(a.resource.group)?.versions ?? [];
      return versions.filter((v) => v !== a.resource.version && deps.registry.resourceFor(a.resource.group, v, a.resource.resource));
    },
  };
  return {
    // With no configuration loaded (the usual case) a write takes no extra await.
    admit(a, outcome) {
      if (isExempt(a) || mutating.current()?.length === 0) return undefined;
      return mutating.webhooks().then((hooks) => (hooks.length ? dispatchMutating(hooks, a, outcome, dispatch) : undefined));
    },
    validate(a, outcome) {
      if (isExempt(a) || validating.current()?.length === 0) return undefined;
      return validating.webhooks().then((hooks) => (hooks.length ? dispatchValidating(hooks, a, outcome, dispatch) : undefined));
    },
    idle: (phase) => (phase === 'admit' ? mutating : validating).current()?.length === 0,
    async start() {
      await Promise.all([mutating.webhooks(), validating.webhooks()]);
    },
    stop() {
      mutating.stop();
      validating.stop();
    },
  };
}
