/**
 * The webhooks of the stored Mutating- and ValidatingWebhookConfigurations
 * (admission/configuration): listed once, kept until any configuration is
 * written, ordered by configuration name and then as listed, with their
 * matchConditions compiled.
 */
import { compileKubernetes, newEnvironment, type CelProgram } from '../../cel';
import { isObject, type KubeObject } from '../../api/types';
import type { Store } from '../../registry/generic/store';
import type { ResourceRegistry } from '../../registry/registry';
import type { ResourceType } from '../../registry/types';
import type { LabelSelectorObject } from '../../selectors';
import type { Storage } from '../../storage/interface';
import type { AdmissionAttributes } from '../attributes';
import type { NamedRuleWithOperations } from '../matching';
import type { WebhookClientConfig } from './client';

export interface WebhookSpec {
  name: string;
  clientConfig?: WebhookClientConfig;
  rules?: NamedRuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  matchConditions?: { name: string; expression: string }[];
}

export interface Webhook {
  spec: WebhookSpec;
  /** The configuration it belongs to, and its index there (audit annotation keys). */
  configuration: string;
  index: number;
  matchConditions: { name: string; expression: string; program?: CelProgram; error?: string }[];
}

export interface WebhookSource {
  webhooks(): Promise<Webhook[]>;
  /** The webhooks as last loaded, without waiting; undefined until loaded or while a write made them stale. */
  current(): Webhook[] | undefined;
  stop(): void;
}

function compileHook(configuration: string, index: number, spec: WebhookSpec): Webhook {
  const env = newEnvironment('admission');
  const matchConditions = (spec.matchConditions ?? []).map((m) => {
    const c = compileKubernetes(env, m.expression);
    return c.program ? { ...m, program: c.program } : { ...m, error: c.message ?? 'compilation failed' };
  });
  return { spec, configuration, index, matchConditions };
}

export function webhookSource(deps: { storage: Storage; registry: ResourceRegistry; storeFor(type: ResourceType): Store }, resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations'): WebhookSource {
  const type = deps.registry.resourceFor('admissionregistration.k8s.io', 'v1', resource);
  let loaded: Webhook[] | undefined;
  let loading: Promise<Webhook[]> | undefined;
  /** Moves on every configuration write: a load that saw an older generation is not kept. */
  let generation = 0;
  let unwatch: (() => void) | undefined;

  async function load(): Promise<Webhook[]> {
    if (!type) return [];
    const store = deps.storeFor(type);
    const list = await store.list('');
    if (!unwatch) {
      unwatch = () => {};
      unwatch = await deps.storage.watch(store.prefix, list.revision, () => {
        generation++;
        loaded = undefined;
      });
    }
    const configs = [...list.items].sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
    return configs.flatMap((c: KubeObject) => {
      const hooks = Array.isArray(c['webhooks']) ? c['webhooks'].filter(isObject) : [];
      return hooks.map((h, i) => compileHook(c.metadata.name ?? '', i, h as unknown as WebhookSpec));
    });
  }

  return {
    async webhooks() {
      for (;;) {
        if (loaded) return loaded;
        const seen = generation;
        loading ??= load().finally(() => (loading = undefined));
        const hooks = await loading;
        // A write during the load: load once more.
        if (seen === generation) loaded = hooks;
      }
    },
    current() {
      return loaded;
    },
    stop() {
      unwatch?.();
    },
  };
}

/** Webhooks never see writes to the objects that configure admission (IsExemptAdmissionConfigurationResource). */
const exempt = new Set(['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

export function isExempt(a: AdmissionAttributes): boolean {
  return a.resource.group === 'admissionregistration.k8s.io' && exempt.has(a.resource.resource);
}
