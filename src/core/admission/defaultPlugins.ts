/**
 * kube-apiserver's default-on admission plugins that kubesim runs besides
 * ValidatingAdmissionPolicy, in their place in kube's plugin order
 * (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins): LimitRanger
 * (mutating, then validating first), ..., ValidatingAdmissionPolicy,
 * ResourceQuota (validating last). They apply to every write: a request's
 * and the controllers' (a ReplicaSet's pods get their LimitRange defaults
 * and are refused past a quota, as kube's controllers are, through the API).
 */
import type { KubeObject } from '../api/types';
import type { AdmissionReview, MutatingAdmission, Store, ValidatingAdmission, WriteTrace } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import type { Clock } from '../util/clock';
import { createLimitRangerPlugin, type LimitRangerPlugin } from './limitRanger';
import type { PluginAttributes } from './attributes';
import { createResourceQuotaPlugin, type ResourceQuotaPlugin } from './resourceQuota';

export interface DefaultPluginsDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  /** The stores without admission (the plugins' own status writes). */
  storeFor(type: ResourceType): Store;
}

/** Which of the plugins run (--enable/--disable-admission-plugins); both by default, as in kube. */
export interface DefaultPluginsOptions {
  limitRanger?: boolean;
  resourceQuota?: boolean;
}

export interface DefaultAdmissionPlugins {
  /** Fills the plugins' caches (LimitRanges, ResourceQuotas). */
  start(): Promise<void>;
  stop(): void;
  /** The mutating phase of writes to one kind (`name`: the request's, when it names the object; `trace`: the request's, when traced). */
  mutating(type: ResourceType, name?: string, trace?: WriteTrace): MutatingAdmission | undefined;
  /** The validating phase: LimitRanger before `inner`, ResourceQuota after it. */
  validating(type: ResourceType, inner?: ValidatingAdmission, name?: string, trace?: WriteTrace): ValidatingAdmission;
}

const done = Promise.resolve();

export function createDefaultAdmissionPlugins(deps: DefaultPluginsDeps, options: DefaultPluginsOptions = {}): DefaultAdmissionPlugins {
  const core = (resource: string) => deps.storeFor(deps.registry.resourceFor('', 'v1', resource)!);
  // Built on first use: the stores they read are made by the storeFor these plugins are given to.
  let limitRangerPlugin: LimitRangerPlugin | undefined;
  let resourceQuotaPlugin: ResourceQuotaPlugin | undefined;
  const limitRanger = () => (options.limitRanger === false ? undefined : (limitRangerPlugin ??= createLimitRangerPlugin({ storage: deps.storage, limitRanges: core('limitranges') })));
  const resourceQuota = () => (options.resourceQuota === false ? undefined : (resourceQuotaPlugin ??= createResourceQuotaPlugin({ storage: deps.storage, clock: deps.clock, quotas: core('resourcequotas') })));

  function attributes(type: ResourceType, review: AdmissionReview, name: string | undefined): PluginAttributes {
    const obj: KubeObject | undefined = review.object ?? review.oldObject;
    const meta = obj?.metadata;
    return {
      operation: review.operation,
      resource: { group: type.group, version: type.version, resource: type.resource },
      kind: { group: type.group, version: type.version, kind: type.kind },
      subresource: review.subresource,
      name: name || meta?.name || meta?.generateName || '',
      namespace: type.scope === 'Namespaced' ? (meta?.namespace ?? review.oldObject?.metadata.namespace ?? '') : '',
      object: review.object,
      oldObject: review.oldObject,
      dryRun: review.dryRun,
    };
  }

  return {
    async start() {
      await Promise.all([limitRanger()?.start(), resourceQuota()?.start()]);
    },
    stop() {
      limitRangerPlugin?.stop();
      resourceQuotaPlugin?.stop();
    },
    mutating(type, name, trace) {
      if (options.limitRanger === false || type.group !== '') return undefined;
      return {
        admit: (review) => {
          const annotation = () => review.object?.metadata.annotations?.['kubernetes.io/limit-ranger'];
          const before = annotation();
          const admitted = limitRanger()?.admit(attributes(type, review, name));
          const set = annotation();
          if (admitted && trace && set && set !== before) trace({ stage: 'admission', message: `LimitRanger: ${set}` });
          return admitted;
        },
      };
    },
    validating(type, inner, name, trace) {
      const charged = trace && ((quota: string, used: string) => trace({ stage: 'admission', message: `ResourceQuota: ${quota} used ${used}` }));
      const refused = trace && ((plugin: string) => (e: unknown): never => {
        trace({ stage: 'admission', message: `${plugin} refused the write`, details: { message: e instanceof Error ? e.message : String(e) } });
        throw e;
      });
      // A plugin with nothing to check answers undefined at once: a namespace without quotas or limit ranges pays no extra turn.
      return {
        validate(review) {
          const attrs = attributes(type, review, name);
          const quotas = resourceQuota();
          const charges = quotas?.applies(attrs) ? quotas : undefined;
          const rest = (): Promise<void> => {
            const own = inner?.validate(review);
            if (!charges) return own ?? done;
            const quota = () => {
              const checked = charges.validate(attrs, charged) ?? done;
              return refused ? checked.catch(refused('ResourceQuota')) : checked;
            };
            return own ? own.then(quota) : quota();
          };
          const checked = limitRanger()?.validate(attrs);
          const limits = checked && refused ? checked.catch(refused('LimitRanger')) : checked;
          return limits ? limits.then(rest) : rest();
        },
      };
    },
  };
}
