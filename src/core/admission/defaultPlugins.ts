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
import { cachedOrRead, newNamespacedCache, type NamespacedCache } from './namespacedCache';
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
  /** A namespace as the admission plugins' lister reads it: from the cache when it holds it, else read. */
  namespace(name: string): KubeObject | undefined | Promise<KubeObject | undefined>;
  /** The mutating phase of writes to one kind (`name`: the request's, when it names the object; `trace`: the request's, when traced). */
  mutating(type: ResourceType, name?: string, trace?: WriteTrace): MutatingAdmission | undefined;
  /** The validating phase: LimitRanger before `inner`, ResourceQuota after it. */
  validating(type: ResourceType, inner?: ValidatingAdmission, name?: string, trace?: WriteTrace): ValidatingAdmission;
}

const done = Promise.resolve();

/** The annotation LimitRanger sets on what it defaulted. */
const limitRangerAnnotation = (review: AdmissionReview) => review.object?.metadata.annotations?.['kubernetes.io/limit-ranger'];

export function createDefaultAdmissionPlugins(deps: DefaultPluginsDeps, options: DefaultPluginsOptions = {}): DefaultAdmissionPlugins {
  const core = (resource: string) => deps.storeFor(deps.registry.resourceFor('', 'v1', resource)!);
  // Built on first use: the stores they read are made by the storeFor these plugins are given to.
  let limitRangerPlugin: LimitRangerPlugin | undefined;
  let resourceQuotaPlugin: ResourceQuotaPlugin | undefined;
  const limitRanger = () => (options.limitRanger === false ? undefined : (limitRangerPlugin ??= createLimitRangerPlugin({ storage: deps.storage, limitRanges: core('limitranges') })));
  const resourceQuota = () => (options.resourceQuota === false ? undefined : (resourceQuotaPlugin ??= createResourceQuotaPlugin({ storage: deps.storage, clock: deps.clock, quotas: core('resourcequotas') })));
  let serviceAccountPlugin: ServiceAccountPlugin | undefined;
  // The namespace lister NamespaceLifecycle, ServiceAccount and PodSecurity read in kube: one cache for all of them.
  let namespaceCache: NamespacedCache | undefined;
  const namespaces = () => (namespaceCache ??= newNamespacedCache(deps.storage, core('namespaces')));
  const namespace = (name: string) => cachedOrRead(namespaces(), core('namespaces'), '', name);
  const serviceAccount = () =>
    (serviceAccountPlugin ??= createServiceAccountPlugin({ serviceAccounts: core('serviceaccounts'), accounts: newNamespacedCache(deps.storage, core('serviceaccounts')), namespace, random: deps.random }));
  let priorityPlugin: PriorityPlugin | undefined;
  let storageClassPlugin: DefaultStorageClassPlugin | undefined;
  let ingressClassPlugin: DefaultIngressClassPlugin | undefined;
  const store = (group: string, version: string, resource: string) => deps.storeFor(deps.registry.resourceFor(group, version, resource)!);
  const priority = () => (priorityPlugin ??= createPriorityPlugin({ priorityClasses: store('scheduling.k8s.io', 'v1', 'priorityclasses'), storage: deps.storage }));
  const admitters: Record<keyof DefaultPluginsOptions, () => Admit | undefined> = {
    limitRanger: () => undefined, // run on its own below, for its trace line
    serviceAccount: () => serviceAccount().admit,
    priority: () => priority().admit,
    defaultTolerationSeconds: () => admitDefaultTolerationSeconds,
    defaultStorageClass: () => (storageClassPlugin ??= createDefaultStorageClassPlugin({ storageClasses: store('storage.k8s.io', 'v1', 'storageclasses') })).admit,
    storageObjectInUseProtection: () => admitStorageObjectInUseProtection,
    defaultIngressClass: () => (ingressClassPlugin ??= createDefaultIngressClassPlugin({ ingressClasses: store('networking.k8s.io', 'v1', 'ingressclasses') })).admit,
    resourceQuota: () => undefined,
  };

  /** The mutating phase of each kind for writes that name nothing and are not traced. */
  const plainMutating = new WeakMap<ResourceType, MutatingAdmission | null>();

  function buildMutating(type: ResourceType, name: string | undefined, trace: WriteTrace | undefined): MutatingAdmission | undefined {
    const plugins = mutatedBy[`${type.group}/${type.resource}`];
    if (!plugins) return undefined;
    const enabled = plugins.filter((p) => options[p] !== false);
    if (!enabled.length) return undefined;
    const limits = enabled[0] === 'limitRanger';
    const others = limits ? enabled.slice(1) : enabled;
    return {
      admit: (review) => {
        const attrs = attributes(type, review, name);
        // The trace names the limits LimitRanger applied (its annotation, when it changed).
        const before = trace && limits ? limitRangerAnnotation(review) : undefined;
        const limited = limits ? limitRanger()?.admit(attrs) : undefined;
        if (!limited) return runInOrder(others, attrs, trace);
        return limited.then(() => {
          const set = trace && limitRangerAnnotation(review);
          if (trace && set && set !== before) trace({ stage: 'admission', message: `LimitRanger: ${set}` });
          return runInOrder(others, attrs, trace);
        });
      },
    };
  }

  const validators: Validators = {
    limitRanger,
    resourceQuota,
    priority: () => (options.priority === false ? undefined : priority()),
  };

  /** The plugins after LimitRanger, one after the other; undefined while none waits on a read. A refusal is traced with its plugin. */
  function runInOrder(plugins: (keyof DefaultPluginsOptions)[], attrs: PluginAttributes, trace: WriteTrace | undefined, from = 0): Promise<void> | undefined {
    for (let i = from; i < plugins.length; i++) {
      const plugin = plugins[i]!;
      let pending: ReturnType<Admit>;
      try {
        pending = admitters[plugin]()?.(attrs);
      } catch (e) {
        return refusedBy(plugin, trace, e);
      }
      if (pending) return pending.then(() => runInOrder(plugins, attrs, trace, i + 1), (e: unknown) => refusedBy(plugin, trace, e));
    }
    return undefined;
  }

  return {
    namespace,
    async start() {
      await Promise.all([
        limitRanger()?.start(),
        resourceQuota()?.start(),
        options.priority === false ? undefined : priority().start(),
        options.serviceAccount === false ? undefined : serviceAccount().start(),
        namespaces().start(),
      ]);
    },
    stop() {
      limitRangerPlugin?.stop();
      resourceQuotaPlugin?.stop();
      priorityPlugin?.stop();
      serviceAccountPlugin?.stop();
      namespaceCache?.stop();
    },
    mutating(type, name, trace) {
      // A write that names nothing and is not traced (most creates) shares the kind's phase.
      if (name || trace) return buildMutating(type, name, trace);
      let plain = plainMutating.get(type);
      if (plain === undefined) plainMutating.set(type, (plain = buildMutating(type, undefined, undefined) ?? null));
      return plain ?? undefined;
    },
    validating(type, inner, name, trace) {
      return new DefaultValidation(validators, type, inner, name, trace);
    },
  };
}

/** Plugin names as kube-apiserver's --enable-admission-plugins spells them, for the trace. */
const pluginNames: Record<keyof DefaultPluginsOptions, string> = {
  limitRanger: 'LimitRanger', serviceAccount: 'ServiceAccount', priority: 'Priority', defaultTolerationSeconds: 'DefaultTolerationSeconds',
  defaultStorageClass: 'DefaultStorageClass', storageObjectInUseProtection: 'StorageObjectInUseProtection', defaultIngressClass: 'DefaultIngressClass', resourceQuota: 'ResourceQuota',
};

/** A plugin's refusal, traced with the plugin's name. */
function refusedBy(plugin: keyof DefaultPluginsOptions, trace: WriteTrace | undefined, e: unknown): never {
  trace?.({ stage: 'admission', message: `${pluginNames[plugin]} refused the write`, details: { message: e instanceof Error ? e.message : String(e) } });
  throw e;
}

/** What the plugins read of one write. */
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

/** The validating plugins' instances (built on first use). */
interface Validators {
  limitRanger(): LimitRangerPlugin | undefined;
  resourceQuota(): ResourceQuotaPlugin | undefined;
  priority(): PriorityPlugin | undefined;
}

/**
 * The validating phase of one request's writes: LimitRanger, Priority's validating half (one
 * globalDefault PriorityClass), `inner` (the policies), then ResourceQuota when it charges the write.
 * A plugin with nothing to check answers undefined at once: a namespace without quotas or limit
 * ranges pays no extra turn. One object per request, its steps methods (no closures per write).
 */
class DefaultValidation implements ValidatingAdmission {
  constructor(
    private readonly plugins: Validators,
    private readonly type: ResourceType,
    private readonly inner: ValidatingAdmission | undefined,
    private readonly name: string | undefined,
    private readonly trace: WriteTrace | undefined,
  ) {}

  validate(review: AdmissionReview): Promise<void> {
    const attrs = attributes(this.type, review, this.name);
    const quotas = this.plugins.resourceQuota();
    const charges = quotas?.applies(attrs) ? quotas : undefined;
    const checked = this.plugins.limitRanger()?.validate(attrs);
    if (checked) return this.traced('limitRanger', checked).then(() => this.classes(review, attrs, charges));
    return this.classes(review, attrs, charges);
  }

  private classes(review: AdmissionReview, attrs: PluginAttributes, charges: ResourceQuotaPlugin | undefined): Promise<void> {
    const pending = this.plugins.priority()?.validate(attrs);
    return pending ? pending.then(() => this.rest(review, attrs, charges)) : this.rest(review, attrs, charges);
  }

  private rest(review: AdmissionReview, attrs: PluginAttributes, charges: ResourceQuotaPlugin | undefined): Promise<void> {
    const own = this.inner?.validate(review);
    if (!charges) return own ?? done;
    return own ? own.then(() => this.quota(attrs, charges)) : this.quota(attrs, charges);
  }

  private quota(attrs: PluginAttributes, charges: ResourceQuotaPlugin): Promise<void> {
    const trace = this.trace;
    const charged = trace && ((quota: string, used: string) => trace({ stage: 'admission', message: `ResourceQuota: ${quota} used ${used}` }));
    return this.traced('resourceQuota', charges.validate(attrs, charged) ?? done);
  }

  /** A refusal is traced with its plugin. */
  private traced(plugin: keyof DefaultPluginsOptions, checked: Promise<void>): Promise<void> {
    const trace = this.trace;
    return trace ? checked.catch((e: unknown) => refusedBy(plugin, trace, e)) : checked;
  }
}
