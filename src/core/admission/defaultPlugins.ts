/**
 * kube-apiserver's default-on admission plugins that kubesim runs besides
 * ValidatingAdmissionPolicy, in their place in kube's plugin order
 * (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins): LimitRanger
 * (mutating, then validating first), ServiceAccount, Priority (mutating
 * pods, validating PriorityClasses), DefaultTolerationSeconds,
 * DefaultStorageClass, StorageObjectInUseProtection, DefaultIngressClass,
 * ..., ValidatingAdmissionPolicy, ResourceQuota (validating last). They apply to every write: a request's
 * and the controllers' (a ReplicaSet's pods get their LimitRange defaults
 * and are refused past a quota, as kube's controllers are, through the API).
 */
import type { KubeObject } from '../api/types';
import type { AdmissionReview, MutatingAdmission, Store, ValidatingAdmission, WriteTrace } from '../registry/generic/store';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import type { Clock, RandomSource } from '../util/clock';
import { createLimitRangerPlugin, type LimitRangerPlugin } from './limitRanger';
import type { PluginAttributes } from './attributes';
import { createResourceQuotaPlugin, type ResourceQuotaPlugin } from './resourceQuota';
import { createServiceAccountPlugin, type ServiceAccountPlugin } from './serviceAccount';
import { createPriorityPlugin, type PriorityPlugin } from './priority';
import { admitDefaultTolerationSeconds } from './defaultTolerationSeconds';
import { createDefaultStorageClassPlugin, type DefaultStorageClassPlugin } from './defaultStorageClass';
import { admitStorageObjectInUseProtection } from './storageObjectInUseProtection';
import { createDefaultIngressClassPlugin, type DefaultIngressClassPlugin } from './defaultIngressClass';

export interface DefaultPluginsDeps {
  storage: Storage;
  registry: ResourceRegistry;
  clock: Clock;
  /** The token volume's name suffix (ServiceAccount). */
  random: RandomSource;
  /** The stores without admission (the plugins' own status writes). */
  storeFor(type: ResourceType): Store;
}

/** Which of the plugins run (--enable/--disable-admission-plugins); all by default, as in kube. */
export interface DefaultPluginsOptions {
  limitRanger?: boolean;
  serviceAccount?: boolean;
  priority?: boolean;
  defaultTolerationSeconds?: boolean;
  defaultStorageClass?: boolean;
  storageObjectInUseProtection?: boolean;
  defaultIngressClass?: boolean;
  resourceQuota?: boolean;
}

/** The kinds each mutating plugin changes, by group/resource. */
const mutatedBy: Record<string, (keyof DefaultPluginsOptions)[]> = {
  '/pods': ['limitRanger', 'serviceAccount', 'priority', 'defaultTolerationSeconds'],
  '/persistentvolumeclaims': ['defaultStorageClass', 'storageObjectInUseProtection'],
  '/persistentvolumes': ['storageObjectInUseProtection'],
  'networking.k8s.io/ingresses': ['defaultIngressClass'],
};

type Admit = (attrs: PluginAttributes) => Promise<void> | undefined | void;

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
  let serviceAccountPlugin: ServiceAccountPlugin | undefined;
  let priorityPlugin: PriorityPlugin | undefined;
  let storageClassPlugin: DefaultStorageClassPlugin | undefined;
  let ingressClassPlugin: DefaultIngressClassPlugin | undefined;
  const store = (group: string, version: string, resource: string) => deps.storeFor(deps.registry.resourceFor(group, version, resource)!);
  const priority = () => (priorityPlugin ??= createPriorityPlugin({ priorityClasses: store('scheduling.k8s.io', 'v1', 'priorityclasses') }));
  const admitters: Record<keyof DefaultPluginsOptions, () => Admit | undefined> = {
    limitRanger: () => undefined, // run on its own below, for its trace line
    serviceAccount: () => (serviceAccountPlugin ??= createServiceAccountPlugin({ serviceAccounts: core('serviceaccounts'), namespaces: core('namespaces'), random: deps.random })).admit,
    priority: () => priority().admit,
    defaultTolerationSeconds: () => admitDefaultTolerationSeconds,
    defaultStorageClass: () => (storageClassPlugin ??= createDefaultStorageClassPlugin({ storageClasses: store('storage.k8s.io', 'v1', 'storageclasses') })).admit,
    storageObjectInUseProtection: () => admitStorageObjectInUseProtection,
    defaultIngressClass: () => (ingressClassPlugin ??= createDefaultIngressClassPlugin({ ingressClasses: store('networking.k8s.io', 'v1', 'ingressclasses') })).admit,
    resourceQuota: () => undefined,
  };

  /** kube's names of the plugins, for the request trace. */
  const pluginNames: Record<keyof DefaultPluginsOptions, string> = {
    limitRanger: 'LimitRanger', serviceAccount: 'ServiceAccount', priority: 'Priority', defaultTolerationSeconds: 'DefaultTolerationSeconds',
    defaultStorageClass: 'DefaultStorageClass', storageObjectInUseProtection: 'StorageObjectInUseProtection', defaultIngressClass: 'DefaultIngressClass', resourceQuota: 'ResourceQuota',
  };

  /** The plugins after LimitRanger, one after the other; undefined while none waits on a read. A refusal is traced with its plugin. */
  function runInOrder(plugins: (keyof DefaultPluginsOptions)[], attrs: PluginAttributes, trace: WriteTrace | undefined, from = 0): Promise<void> | undefined {
    for (let i = from; i < plugins.length; i++) {
      const plugin = plugins[i]!;
      const refused = (e: unknown): never => {
        trace?.({ stage: 'admission', message: `${pluginNames[plugin]} refused the write`, details: { message: e instanceof Error ? e.message : String(e) } });
        throw e;
      };
      let pending: ReturnType<Admit>;
      try {
        pending = admitters[plugin]()?.(attrs);
      } catch (e) {
        return refused(e);
      }
      if (pending) return pending.then(() => runInOrder(plugins, attrs, trace, i + 1), refused);
    }
    return undefined;
  }

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
      const plugins = (mutatedBy[`${type.group}/${type.resource}`] ?? []).filter((p) => options[p] !== false);
      if (!plugins.length) return undefined;
      const others = plugins.filter((p) => p !== 'limitRanger');
      return {
        admit: (review) => {
          const attrs = attributes(type, review, name);
          const annotation = () => review.object?.metadata.annotations?.['kubernetes.io/limit-ranger'];
          const before = annotation();
          const limited = plugins[0] === 'limitRanger' ? limitRanger()?.admit(attrs) : undefined;
          const traced = () => {
            const set = annotation();
            if (trace && set && set !== before) trace({ stage: 'admission', message: `LimitRanger: ${set}` });
          };
          if (limited) return limited.then(() => { traced(); return runInOrder(others, attrs, trace); });
          return runInOrder(others, attrs, trace);
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
          // Priority's validating half: one globalDefault PriorityClass.
          const classes = () => {
            const pending = options.priority === false ? undefined : priority().validate(attrs);
            return pending ? pending.then(rest) : rest();
          };
          return limits ? limits.then(classes) : classes();
        },
      };
    },
  };
}
