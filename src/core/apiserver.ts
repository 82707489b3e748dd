/**
 * createApiServer: wires the registry, the stores and the request pipeline
 * into one `handle(Request): Promise<Response>`.
 *
 * Pipeline: the filters of http/chain.ts (requestInfo, compression, ...),
 * then dispatch (discovery | openapi | version/health | resource);
 * resource: lookup the resource type -> verb handler -> store -> encode.
 */
import { bootstrapSystemPriorityClasses, controllerPodSecurity, controllerPolicies, createDefaultAdmissionPlugins, createValidatingAdmissionPolicyPlugin, controllerWebhooks, createWebhookAdmissionPlugin, defaultPodSecurityPlugin, requestAdmission, requestWebhooks, type AdmissionWebhookTransport, type WebhookAdmissionPlugin, type ValidatingAdmissionPolicyPlugin, type DefaultPluginsOptions, type PodSecurityPlugin } from './admission';
import { customResourceInfo } from './apiextensions/resources';
import { CRD_GROUP, CRD_RESOURCE } from './apiextensions/types';
import { createCrdController } from './controllers/crd';
import { builtinAPIServices, startAutoregistration } from './controllers/autoregister';
import { startAPIServiceAvailability } from './controllers/apiServiceAvailable';
import { startGarbageCollector } from './controllers/garbageCollector';
import { startNamespaceController } from './controllers/namespace';
import { startServiceAccountController } from './controllers/serviceAccount';
import { startTokensController } from './controllers/tokens';
import { startBootstrapSigner } from './controllers/bootstrapsigner';
import { startTokenCleaner } from './controllers/tokencleaner';
import { controllerEnabled, type ControllerName } from './controllers/names';
import { controllerServiceAccounts, controllerStoreFor, ensureControllerServiceAccount } from './controllers/clientBuilder';
import { startDeploymentController } from './controllers/deployment';
import { startReplicaSetController } from './controllers/replicaset';
import { startStatefulSetController } from './controllers/statefulset';
import { startDaemonSetController } from './controllers/daemonset';
import { startReplicationManager } from './controllers/replicationController';
import { startDisruptionController } from './controllers/disruption';
import { startNodeLifecycleController } from './controllers/nodeLifecycle';
import { startHorizontalPodAutoscalerController } from './controllers/podautoscaler';
import { startTaintEvictionController } from './controllers/taintEviction';
import { startJobController } from './controllers/job';
import { startTTLAfterFinishedController } from './controllers/ttlAfterFinished';
import { startCronJobController } from './controllers/cronjob';
import { startNodeSimulation } from './simulation';
import { serveMetrics } from './simulation/metricsApi';
import { metricsDefinitions, metricsGroup, metricsGroupPriority, nodeMetricsResource, podMetricsResource } from './registry/metrics';
import { startEndpointsController } from './controllers/endpoints';
import { startEndpointSliceController } from './controllers/endpointSlice';
import { startEndpointSliceMirroringController } from './controllers/endpointSliceMirroring';
import { defaultEventTTLMs, startEventTTL } from './registry/events/ttl';
import { startRootCACertPublisher } from './controllers/rootCACertPublisher';
import { startPVCProtectionController, startPVProtectionController } from './controllers/storageProtection';
import { startPersistentVolumeBinder } from './controllers/persistentVolumeBinder';
import { startEphemeralVolumeController } from './controllers/ephemeralVolume';
import { startCSRSigningController, type CSRSigningOptions } from './controllers/csrSigning';
import { startPodTermination } from './controllers/podTermination';
import { startResourceQuotaController } from './controllers/resourceQuota';
import { serveKubesimDebug } from './debug/kubesimDebug';
import { withHeldWrites } from './debug/heldWrites';
import { startLeaderElection, type LeaderElectionConfig, type LeaderElector } from './controllers/leaderElection';
import { apiServerId, startApiServerIdentityLease, startApiServerLeaseGC } from './controllers/apiserverIdentity';
import { controllerManagerPort, localHealthzProbe, schedulerPort, serveComponentStatuses, storageProbe, type ComponentProbe } from './registry/core/componentStatuses';
import { newUUID, randomHex } from './util/uuid';
import { featureGates, type FeatureGates } from './features';
import type { RequestAuthenticator } from './auth/authenticator/types';
import type { UserInfo } from './auth/user';
import { buildAuthentication, storeGetter, type AuthenticationOptions } from './auth/authentication';
import { serveDiscoveryDocument } from './http/handlers/discovery';
import { discoveryDocument } from './discovery';
import { writeNotFound } from './http/notFound';
import { serveIssuerDiscovery } from './auth/serviceaccount/discovery';
import { createToken } from './auth/serviceaccount/tokenRequest';
import { admitNodeTokenRequest, type NodeTokenDeps } from './auth/node/tokenRequest';
import { createAuthenticationReview } from './http/handlers/authenticationReviews';
import { withCreateAuthorization } from './auth/authorizer/createOnUpdate';
import type { AuthorizerFactory } from './auth/authorizer/modes';
import type { Authorizer } from './auth/authorizer/types';
import { createAuthorization } from './auth/authorizer/wiring';
import { allUnauthenticated, anonymousUser } from './auth/user';
import { buildHandlerChain } from './http/chain';
import { addTrace, requestInfoFrom, requestUrl, traceSink, userFrom, withDeprecatedApi } from './http/request/context';
import type { SimulatedKubeletSource } from './simulation/podExec';
import { newSimulatedKubeletSource } from './simulation/kubeletSource';
import { serveKubeletHttps } from './simulation/kubeletAuth';
import { serveKubelet } from './simulation/kubeletServer';
import { createWatchCache, type WatchCacheStorage } from './storage/cacher';
import {
  newBadRequest,
  newForbidden,
  newMethodNotSupported,
  newRouteMethodNotAllowed,
  newNotFound,
  newServiceUnavailable,
  StatusError,
} from './errors';
import { createResource } from './http/handlers/create';
import { deleteCollection, deleteResource } from './http/handlers/delete';
import { getResource } from './http/handlers/get';
import { listResource } from './http/handlers/list';
import { patchResource } from './http/handlers/patch';
import { createReview } from './http/handlers/reviews';
import { createAccessReview, isAccessReview } from './http/handlers/authorizationReviews';
import { evictPod } from './http/handlers/eviction';
import { objectGetter, serveCoreSubresource } from './http/handlers/coreSubresources';
import type { RequestScope } from './http/handlers/scope';
import { scaleHandler } from './http/handlers/scale';
import { updateResource } from './http/handlers/update';
import { watchResource } from './http/handlers/watch';
import { newRequestInfo, type RequestInfo } from './http/requestInfo';
import { warningHeaderValue, writeError, writeObject } from './http/responseWriter';
import { jsonSerializer } from './http/serializers/json';
import { serveOpenApi } from './ops/openapi';
import { serverHealth, type HealthChecks } from './ops/health';
import { createApiServerMetrics, type ApiServerMetrics } from './ops/apiserverMetrics';
import { validateShowHiddenMetricsVersion } from './ops/metrics';
import { versionInfo } from './ops/version';
import { createZPages } from './ops/zpages';
import { Store } from './registry/generic/store';
import { bundledDefinitions, bundledOperationParameters, registryBundle } from './registry/generated';
import { protoDescriptor } from './http/serializers/protobuf/generated';
import { dataNeededBy, type RequestData } from './http/requestData';
import { fieldDescriptions } from './printers';
import { ResourceRegistry } from './registry/registry';
import type { SchemaObject } from './registry/types';
import { deprecationAnnotations, deprecationWarning } from './registry/lifecycle';
import { evaluationsDefinitions, evaluationsResource, removedApiChecksDefinitions, removedApiChecksResource } from './registry/kubesim';
import { strategyFor } from './registry/strategies';
import { withDeclarativeValidation } from './validation/declarative';
import { bootstrapServices, ServiceAllocator, serviceAllocationHooks } from './registry/core/services';
import { reconcileKubernetesEndpoints, removeKubernetesEndpoints } from './registry/core/endpointReconciler';
import type { ResourceType } from './registry/types';
import type { Storage } from './storage/interface';
import type { KubeObject } from './api/types';
import { cryptoRandom, realClock, type Clock, type RandomSource } from './util/clock';

export interface ApiServerOptions {
  storage: Storage;
  clock?: Clock;
  random?: RandomSource;
  /** kube-apiserver --runtime-config (enable/disable group versions). */
  runtimeConfig?: string;
  /** Address reported by discovery's serverAddressByClientCIDRs. */
  serverAddress?: string;
  /** How long the watch cache keeps history (and continue tokens stay valid); 5 minutes by default. */
  watchHistoryWindowMs?: number;
  /** kube-apiserver's --event-ttl: how long an Event lasts after its last write (default 1h). */
  eventTTLMs?: number;
  /** Feature gates (--feature-gates), over kube-apiserver's defaults. */
  featureGates?: Partial<FeatureGates>;
  /** Authentication methods, asked in order; none configured means every request is anonymous. */
  authenticators?: RequestAuthenticator[];
  /** Whether requests without credentials proceed as system:anonymous (--anonymous-auth, default true). */
  anonymousAuth?: boolean;
  /** --service-cluster-ip-range (default 10.96.0.0/12) and --service-node-port-range (default 30000-32767). */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** Token methods and their settings (--token-auth-file, service accounts, bootstrap tokens, ...). */
  authentication?: AuthenticationOptions;
  /** The authorization chain, or a factory over the server's state (authorizerFromModes); AlwaysAllow when absent. */
  authorizer?: Authorizer | AuthorizerFactory;
  /** Reconcile the default RBAC policy and aggregate ClusterRoles; by default when the chain uses RBAC. */
  rbacBootstrap?: boolean;
  /** The NodeRestriction admission plugin (--enable-admission-plugins=NodeRestriction). */
  nodeRestriction?: boolean;
  /** The CertificateSubjectRestriction admission plugin, on unless false (--disable-admission-plugins). */
  certificateSubjectRestriction?: boolean;
  /** The default-on LimitRanger and ResourceQuota admission plugins (--disable-admission-plugins turns them off). */
  admissionPlugins?: DefaultPluginsOptions;
  /** The PodSecurity admission plugin (on by default, as in kube-apiserver). */
  podSecurity?: boolean;
  /** Its PodSecurityConfiguration object (defaults, exemptions), as --admission-control-config-file carries it; invalid, the server is not built. */
  podSecurityConfiguration?: Record<string, unknown>;
  /** How admission webhooks are called (the host's verifies TLS against caBundle); the runtime's fetch by default. */
  admissionWebhookTransport?: AdmissionWebhookTransport;
  /** --livez-grace-period: how long after start /livez excuses unfinished post-start hooks. */
  livezGracePeriodMs?: number;
  /** --show-hidden-metrics-for-version: re-expose metrics hidden in this (the previous minor) release. */
  showHiddenMetricsForVersion?: string;
  /** The host's command-line flags by name, as /flagz lists them. */
  flags?: Record<string, string>;
  /**
   * kube-controller-manager's --use-service-account-credentials: each controller acts as its own
   * ServiceAccount in kube-system (created at start), its writes admitted and authorized as that user.
   * Off (the default): they act as system:kube-controller-manager, their writes not authorized.
   */
  useServiceAccountCredentials?: boolean;
  /** kube-controller-manager's --controllers (`*`, `name`, `-name`); `*` by default. */
  controllers?: string[];
  /**
   * Simulated nodes `node-1` ... `node-N`, each with a kubelet that runs the
   * pods bound to it, and a scheduler binding pods to them (simulation/); 0
   * (the default): no nodes, and pods stay Pending.
   */
  simulatedNodes?: number;
  /**
   * kube-controller-manager's --leader-elect, for several servers over one
   * store: its controllers (namespace, garbage collector, service accounts,
   * tokens, ...) run only while this server holds the Lease.
   */
  leaderElection?: LeaderElectionConfig;
  /**
   * The control-plane host's name: kube-apiserver's identity Lease
   * (apiserver-<hash of it>, labelled with it) and the leader election
   * identities (`<hostname>_<uuid>`) of kube-controller-manager and
   * kube-scheduler; `kubesim-control-plane` by default.
   */
  hostname?: string;
  /**
   * --leader-elect=false: without leaderElection, kube-controller-manager and
   * kube-scheduler hold no Lease (true by default: each elects itself alone).
   */
  leaderElect?: boolean;
  /**
   * --advertise-address: the address the `kubernetes` Service's Endpoints and EndpointSlice list
   * (172.18.0.1 by default, on the simulated nodes' network).
   */
  advertiseAddress?: string;
  /** --secure-port: the `kubernetes` Service's targetPort and its endpoints' port (6443 by default). */
  securePort?: number;
  /** kube-controller-manager's --max-endpoints-per-slice (100 by default). */
  maxEndpointsPerSlice?: number;
  /** kube-controller-manager's --mirroring-max-endpoints-per-subset (1000 by default). */
  mirroringMaxEndpointsPerSubset?: number;
  /** kube-controller-manager's cluster signing CA (--cluster-signing-cert-file, -key-file, -duration); no CSR is signed without one. */
  clusterSigning?: CSRSigningOptions;
  /**
   * When kube-controller-manager's controllers start: the host calls `start` (at once, before `ready`, by default). The
   * service worker calls it after its first answer, which then runs without their code (a part, src/sw/chunkLoader.ts).
   * The service account controller is not deferred: the default ServiceAccounts exist before the first request.
   */
  scheduleControllers?: (start: () => void) => void;
}

export interface ApiServer {
  /** Answers one HTTP request. Streaming responses (watch) end when request.signal aborts. */
  handle(request: Request): Promise<Response>;
  /** Resolves once bootstrap objects (default namespaces) exist. */
  readonly ready: Promise<void>;
  readonly registry: ResourceRegistry;
  /** The watch cache in front of the backend (history window, watchers). */
  readonly storage: WatchCacheStorage;
  /** The authorization chain requests go through (impersonation and access reviews ask it too). */
  readonly authorizer: Authorizer;
  /** The /livez, /readyz and /healthz checks; startShutdown() fails readyz while the host drains. */
  readonly health: HealthChecks;
  /** The /metrics families, for what the host observes (configuration reloads). */
  readonly metrics: ApiServerMetrics;
  close(): Promise<void>;
}

/**
 * Random bytes drawn from source a pool at a time: one getRandomValues call
 * per 4 KiB instead of one per uid. Only for a source with no replay
 * semantics (crypto): pooling reorders who gets which bytes.
 */
function pooledRandom(source: RandomSource, poolSize = 4096): RandomSource {
  const pool = new Uint8Array(poolSize);
  let used = poolSize;
  return {
    fill(bytes) {
      if (bytes.length > poolSize) return source.fill(bytes);
      if (used + bytes.length > poolSize) {
        source.fill(pool);
        used = 0;
      }
      bytes.set(pool.subarray(used, used + bytes.length));
      used += bytes.length;
      return bytes;
    },
  };
}

/** Whether a resource serves verb. A terminating CRD's discovery drops update and patch, yet its objects can still be written (to release finalizers). */
function resourceVerbAllowed(type: ResourceType, terminating: boolean, verb: string): boolean {
  return type.verbs.includes(verb) || (terminating && (verb === 'update' || verb === 'patch'));
}

/** Namespaces every cluster starts with. */
export const bootstrapNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function createApiServer(options: ApiServerOptions): ApiServer {
  const clock = options.clock ?? realClock;
  const gates = featureGates(options.featureGates);
  // The watch cache sits above the backend: fan-out, history window, 410 past it.
  // Writes can be held open through /debug/kubesim/hold-write, for crash tests.
  const heldWrites = withHeldWrites(options.storage);
  const storage = createWatchCache(heldWrites.storage, { clock, historyWindowMs: options.watchHistoryWindowMs });
  const random = options.random ?? pooledRandom(cryptoRandom);
  const registry = new ResourceRegistry(registryBundle, { runtimeConfig: options.runtimeConfig });
  registry.addResource(evaluationsResource, evaluationsDefinitions);
  registry.addResource(removedApiChecksResource, removedApiChecksDefinitions);
  // metrics-server's API, whose usage the simulated kubelets make up.
  if (options.simulatedNodes) for (const r of [nodeMetricsResource, podMetricsResource]) registry.addResource(r, metricsDefinitions, metricsGroupPriority);
  const allDefinitions = { ...registryBundle.definitions, ...evaluationsDefinitions, ...removedApiChecksDefinitions };
  // Where the host ships the bundle's schemas apart (the service worker), they are indexed on first use.
  let definitionsIndexed = bundledDefinitions.value !== undefined;
  async function loadDefinitions(): Promise<void> {
    if (definitionsIndexed) return;
    const [definitions, operationParameters] = await Promise.all([bundledDefinitions.load(), bundledOperationParameters.load()]);
    if (definitionsIndexed) return;
    registry.loadBundleDefinitions(definitions, operationParameters);
    Object.assign(allDefinitions, definitions, evaluationsDefinitions, removedApiChecksDefinitions);
    definitionsIndexed = true;
  }
  const stores = new Map<string, Store>();
  const serviceAllocator = new ServiceAllocator({ serviceClusterIPRange: options.serviceClusterIPRange, serviceNodePortRange: options.serviceNodePortRange, random });

  const namespaceType = registry.resourceFor('', 'v1', 'namespaces')!;
  const health = serverHealth({ clock, storage: options.storage, livezGracePeriodMs: options.livezGracePeriodMs });
  health.done('start-apiserver-admission-initializer');
  health.done('generic-apiserver-start-informers');

  // Not async: a namespace the lister holds is answered in the caller's turn.
  function checkNamespace(namespace: string, object?: { gr: { group: string; resource: string }; name: string }): Promise<void> | undefined {
    // NamespaceLifecycle reads the admission plugins' namespace lister (a storage read when the cache lacks it).
    const found = defaultPlugins.namespace(namespace);
    if (found instanceof Promise) return found.then((obj) => namespaceAdmits(namespace, obj, object));
    namespaceAdmits(namespace, found, object);
    return undefined;
  }

  function namespaceAdmits(namespace: string, obj: KubeObject | undefined, object?: { gr: { group: string; resource: string }; name: string }): void {
    if (!obj) throw newNotFound({ group: '', resource: 'namespaces' }, namespace);
    if (obj.metadata.deletionTimestamp) {
      // NamespaceLifecycle: admission.NewForbidden on the object, plus the NamespaceTerminating cause.
      const gr = object?.gr ?? { group: '', resource: 'namespaces' };
      const err = newForbidden(gr, object ? object.name : namespace, `unable to create new content in namespace ${namespace} because it is being terminated`);
      err.status.details = { ...err.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] };
      throw err;
    }
  }

  /** The store each type object was last given, so a request finds it without building the key. */
  const storeByType = new WeakMap<ResourceType, Store>();
  // LimitRanger and ResourceQuota: every write passes them, the controllers' too.
  const defaultPlugins = createDefaultAdmissionPlugins({ storage, registry, clock, random, storeFor }, options.admissionPlugins);
  // PodSecurity guards the stores' pod writes too (the controllers'); it is built once the metrics exist.
  let podSecurity: PodSecurityPlugin | undefined;
  let webhooks: WebhookAdmissionPlugin | undefined;
  /** ValidatingAdmissionPolicy, for the stores' own writes too; set once it is built. */
  let controllerPolicyPlugin: ValidatingAdmissionPolicyPlugin | undefined;

  function storeFor(type: ResourceType): Store {
    const known = storeByType.get(type);
    if (known) return known;
    const key = `${type.group}/${type.version}/${type.resource}`;
    let store = stores.get(key);
    // A custom resource's type is replaced when its CRD changes: its store follows.
    if (!store || store.type !== type) {
      const base = type.group === '' && type.resource === 'services' ? { ...strategyFor(type), ...serviceAllocationHooks(serviceAllocator) } : strategyFor(type);
      const strategy = withDeclarativeValidation(base, type, gates, () => metrics.observeDeclarativeValidationMismatch());
      // The kind's schema is looked up when first read: a store can exist before the bundle's schemas are loaded.
      let root: SchemaObject | undefined;
      const schema = { get root() { return (root ??= registry.schemaFor({ group: type.group, version: type.version, kind: type.kind })); }, definitions: allDefinitions };
      const hooks = controllerWebhooks(() => webhooks, type);
      const validating = hooks.validating(controllerPolicies(() => controllerPolicyPlugin, type, controllerPodSecurity(() => podSecurity, type)));
      store = new Store(type, strategy, { storage, clock, random, checkNamespace }, schema).withAdmission(defaultPlugins.validating(type, validating), hooks.mutating(defaultPlugins.mutating(type)));
      stores.set(key, store);
    }
    storeByType.set(type, store);
    return store;
  }

  // The endpoint reconciler: this server in the `kubernetes` Endpoints and EndpointSlice, checked every 10s as kube's is.
  const securePort = options.securePort ?? 6443;
  const self = { address: options.advertiseAddress ?? '172.18.0.1', port: securePort };
  const endpointStores = () => {
    const endpoints = registry.resourceFor('', 'v1', 'endpoints');
    const slices = registry.resourceFor('discovery.k8s.io', 'v1', 'endpointslices');
    return endpoints ? { endpoints: storeFor(endpoints).asManager('kube-apiserver'), slices: slices ? storeFor(slices).asManager('kube-apiserver') : undefined } : undefined;
  };
  const reconcileEndpoints = async () => {
    const s = endpointStores();
    if (s) await reconcileKubernetesEndpoints(s.endpoints, s.slices, self);
  };
  const reconcilerStopped = new AbortController();
  const reconcileEvery10s = async () => {
    for (;;) {
      await clock.sleep(10_000, reconcilerStopped.signal);
      if (reconcilerStopped.signal.aborted) return;
      // A failed round (storage closing, a conflict with another server) is tried again in the next one.
      await reconcileEndpoints().catch(() => undefined);
    }
  };

  async function bootstrap(): Promise<void> {
    const store = storeFor(namespaceType);
    for (const name of bootstrapNamespaces) {
      if (await store.getKv('', name)) continue;
      try {
        await store.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
      }
    }
    health.done('start-system-namespaces-controller');
    const services = registry.resourceFor('', 'v1', 'services');
    if (services) await bootstrapServices(storeFor(services).asManager('kube-apiserver'), serviceAllocator, securePort);
    // An address the Endpoints may not hold (a loopback --advertise-address) leaves them unwritten; the server still starts.
    await reconcileEndpoints().catch((e) => console.error(`kubesim: the kubernetes Service's endpoints: ${e instanceof Error ? e.message : String(e)}`));
    void reconcileEvery10s();
    const priorityClasses = registry.resourceFor('scheduling.k8s.io', 'v1', 'priorityclasses');
    if (priorityClasses) await bootstrapSystemPriorityClasses(storeFor(priorityClasses));
    health.done('bootstrap-controller');
  }

  const getObject = storeGetter(registry, storeFor);
  const authn = buildAuthentication(options.authentication ?? {}, { clock, getObject, requestAuthenticators: options.authenticators });

  const hiddenMetricsError = validateShowHiddenMetricsVersion(options.showHiddenMetricsForVersion ?? '', registry.kubernetesVersion);
  if (hiddenMetricsError) throw new Error(hiddenMetricsError);
  const metrics = createApiServerMetrics({ registry, storage, gates, health: health.checks, showHiddenMetricsForVersion: options.showHiddenMetricsForVersion });
  const zpages = createZPages({
    clock, gates, version: versionInfo(registry.kubernetesVersion),
    // A host without a command line (the service worker) lists the options it was started with.
    flags: options.flags ?? {
      'feature-gates': Object.entries(options.featureGates ?? {}).map(([k, v]) => `${k}=${v}`).sort().join(','),
      'runtime-config': options.runtimeConfig ?? '',
      'anonymous-auth': String(options.anonymousAuth ?? true),
    },
    config: () => ({ featureGates: gates, runtimeConfig: options.runtimeConfig ?? '', watchCacheHistoryWindowSeconds: (options.watchHistoryWindowMs ?? 300_000) / 1000 }),
  });
  const authorization = createAuthorization({ authorizer: options.authorizer, rbacBootstrap: options.rbacBootstrap, nodeRestriction: options.nodeRestriction }, { storage, registry, storeFor });
  let controllers: { stop(): void }[] = [];
  const crdController = createCrdController({ storage, registry, clock, storeFor });
  const nodeTokenDeps: NodeTokenDeps = {
    getPod: (namespace, name) => getObject('pods', namespace, name),
    getCSIDriver: async (name) => {
      const type = registry.resourceFor('storage.k8s.io', 'v1', 'csidrivers');
      const kv = type ? await storeFor(type).getKv('', name) : undefined;
      return kv && type ? storeFor(type).decode(kv) : undefined;
    },
    authorizer: { name: 'chain', authorize: (attrs) => authorization.authorizer.authorize(attrs) },
    get apiAudiences() {
      return authn.serviceAccounts.apiAudiences;
    },
  };
  const policies = createValidatingAdmissionPolicyPlugin({ storage, registry, storeFor, authorizer: () => authorization.authorizer, observeCheck: metrics.observePolicyCheck });
  controllerPolicyPlugin = policies;
  webhooks = createWebhookAdmissionPlugin({ storage, registry, storeFor, authorizer: () => authorization.authorizer, transport: options.admissionWebhookTransport, observe: metrics.observeWebhook });
  const podType = registry.resourceFor('', 'v1', 'pods');
  // PodSecurity (unless --disable-admission-plugins names it): requests' writes, and the controllers' pods.
  podSecurity = options.podSecurity === false ? undefined : defaultPodSecurityPlugin(registry.kubernetesVersion, {
    // The admission plugins' namespace lister (no read when it holds the namespace).
    getNamespace: (name) => defaultPlugins.namespace(name),
    listPods: async (namespace) => (podType ? (await storeFor(podType).list(namespace)).items : []),
    metrics: metrics.podSecurity,
    configuration: options.podSecurityConfiguration,
  });
  // kube-controller-manager's controllers, started directly or by the leader elector.
  let managerControllers: { stop(): void }[] = [];
  /** Bumped when the controller manager stops, so a start the host runs later starts nothing. */
  let managerGeneration = 0;
  let elector: LeaderElector | undefined;
  let closed = false;
  /** kube-scheduler's, while it runs: closing releases its Lease before the store closes. */
  const schedulerElectors = new Set<LeaderElector>();
  const hostname = options.hostname ?? 'kubesim-control-plane';
  /** kube-controller-manager runs unless --controllers names none. */
  const controllerManagerRuns = (options.controllers ?? ['*']).length > 0;
  /** What `componentstatuses` probes: the controller manager, the scheduler (with simulated nodes) and the store. */
  const componentProbes: ComponentProbe[] = [
    localHealthzProbe('controller-manager', controllerManagerPort, () => controllerManagerRuns),
    localHealthzProbe('scheduler', schedulerPort, () => !!options.simulatedNodes),
    storageProbe('etcd-0', options.storage),
  ];
  const ready = bootstrap().then(async () => {
    // kube-controller-manager writes through the API: its creates and updates are recorded as its field manager's.
    const deps = { storage, registry, clock, storeFor: (type: ResourceType) => storeFor(type).asManager('kube-controller-manager') };
    /** The node lifecycle pair and the autoscaler run by default when simulated nodes do. */
    const onWithNodes = new Set(['node-lifecycle-controller', 'taint-eviction-controller', 'horizontal-pod-autoscaler-controller']);
    const enabled = (name: Parameters<typeof controllerEnabled>[0]) => controllerEnabled(name, options.controllers, options.simulatedNodes && onWithNodes.has(name) ? true : undefined);
    const rootCA = () => {
      const ca = options.authentication?.serviceAccounts?.rootCA;
      return typeof ca === 'function' ? ca() : ca;
    };
    /** --use-service-account-credentials: each controller's identity, set when the manager starts (ensureControllerAccounts). */
    const controllerUsers = new Map<string, UserInfo>();
    const as = (name: ControllerName): typeof deps => {
      // Without the option the client builder (a code part of the worker) is not read: the service account
      // controller starts before the worker's first answer.
      if (!options.useServiceAccountCredentials) return deps;
      const account = controllerServiceAccounts[name];
      const user = account && controllerUsers.get(account);
      return user ? { ...deps, storeFor: controllerStoreFor(deps.storeFor, user, () => authorization.authorizer) } : deps;
    };
    /** The client builder's getOrCreateServiceAccount, with the manager's own credentials, for each controller that starts. */
    const ensureControllerAccounts = async () => {
      if (!options.useServiceAccountCredentials) return;
      const accounts = deps.storeFor(registry.resourceFor('', 'v1', 'serviceaccounts')!);
      const names = new Set<string>();
      for (const [name, account] of Object.entries(controllerServiceAccounts) as [ControllerName, string][]) {
        const on = name === 'bootstrap-signer-controller' ? options.authentication?.controllers?.bootstrapSigner || enabled(name)
          : name === 'token-cleaner-controller' ? options.authentication?.controllers?.tokenCleaner || enabled(name)
          : name === 'certificatesigningrequest-signing-controller' ? options.clusterSigning && enabled(name)
          : enabled(name);
        if (on) names.add(account);
      }
      for (const account of names) controllerUsers.set(account, await ensureControllerServiceAccount(accounts, account));
    };
    const starters = [
      ['namespace-controller', () => startNamespaceController(as('namespace-controller'))],
      ['garbage-collector-controller', () => startGarbageCollector(as('garbage-collector-controller'))],
      ['serviceaccount-token-controller', () => startTokensController({ ...deps, tokens: authn.serviceAccounts })],
      ['deployment-controller', () => startDeploymentController(as('deployment-controller'))],
      ['replicaset-controller', () => startReplicaSetController(as('replicaset-controller'))],
      ['statefulset-controller', () => startStatefulSetController(as('statefulset-controller'))],
      ['daemonset-controller', () => startDaemonSetController(as('daemonset-controller'))],
      ['replicationcontroller-controller', () => startReplicationManager(as('replicationcontroller-controller'))],
      ['root-ca-certificate-publisher-controller', () => startRootCACertPublisher({ ...as('root-ca-certificate-publisher-controller'), rootCA })],
      ['pod-garbage-collector-controller', () => startPodTermination(as('pod-garbage-collector-controller'))],
      ['resourcequota-controller', () => startResourceQuotaController(as('resourcequota-controller'))],
      ['disruption-controller', () => startDisruptionController(as('disruption-controller'))],
      ['node-lifecycle-controller', () => startNodeLifecycleController(as('node-lifecycle-controller'))],
      ['taint-eviction-controller', () => startTaintEvictionController(as('taint-eviction-controller'))],
      ['job-controller', () => startJobController(as('job-controller'))],
      ['ttl-after-finished-controller', () => startTTLAfterFinishedController(as('ttl-after-finished-controller'))],
      ['cronjob-controller', () => startCronJobController(as('cronjob-controller'))],
      ['endpoints-controller', () => startEndpointsController(as('endpoints-controller'))],
      ['endpointslice-controller', () => startEndpointSliceController(as('endpointslice-controller'), { maxEndpointsPerSlice: options.maxEndpointsPerSlice })],
      ['endpointslice-mirroring-controller', () => startEndpointSliceMirroringController(as('endpointslice-mirroring-controller'), { maxEndpointsPerSubset: options.mirroringMaxEndpointsPerSubset })],
      ['persistentvolumeclaim-protection-controller', () => startPVCProtectionController(as('persistentvolumeclaim-protection-controller'))],
      ['persistentvolume-protection-controller', () => startPVProtectionController(as('persistentvolume-protection-controller'))],
      ['persistentvolume-binder-controller', () => startPersistentVolumeBinder(as('persistentvolume-binder-controller'))],
      ['ephemeral-volume-controller', () => startEphemeralVolumeController(as('ephemeral-volume-controller'))],
      ['horizontal-pod-autoscaler-controller', () => startHorizontalPodAutoscalerController(as('horizontal-pod-autoscaler-controller'))],
      ...(options.clusterSigning ? [['certificatesigningrequest-signing-controller', () => startCSRSigningController(as('certificatesigningrequest-signing-controller'), options.clusterSigning!)] as const] : []),
    ] as const;
    // kube-apiserver's identity Lease and the collection of other servers' expired ones (post-start hooks), and,
    // on a server alone, kube-controller-manager's Lease: it elects itself even alone (--leader-elect defaults to
    // true) with nothing competing. Their writes wait, like the controllers, for the host's start (the worker's first answer).
    const apiServerDeps = { storage, registry, clock, storeFor: (type: ResourceType) => storeFor(type).asManager('kube-apiserver') };
    let identitySynced: Promise<void> | undefined;
    let leasesStarted = false;
    const startControlPlaneLeases = () => {
      if (leasesStarted || closed) return;
      leasesStarted = true;
      identitySynced = (async () => {
        const id = await apiServerId(hostname);
        if (closed) return;
        const identityLease = startApiServerIdentityLease(apiServerDeps, { id, holderIdentity: `${id}_${newUUID(random)}`, hostname });
        controllers.push(identityLease, startApiServerLeaseGC(apiServerDeps));
        await identityLease.synced;
      })();
      if (!options.leaderElection && controllerManagerRuns && options.leaderElect !== false) {
        elector = startLeaderElection(deps, { identity: `${hostname}_${newUUID(random)}`, eventComponent: 'kube-controller-manager' }, { onStartedLeading: () => {}, onStoppedLeading: () => {} });
      }
    };
    const startControllerManager = async () => {
      managerControllers = [];
      const generation = ++managerGeneration;
      await ensureControllerAccounts();
      if (generation !== managerGeneration) return;
      (options.scheduleControllers ?? ((start) => start()))(() => {
        // Stopped (lost the Lease, or closed) before the host started them.
        if (generation !== managerGeneration) return;
        for (const [name, start] of starters) if (enabled(name)) managerControllers.push(start());
        if (options.authentication?.controllers?.bootstrapSigner || enabled('bootstrap-signer-controller')) managerControllers.push(startBootstrapSigner(as('bootstrap-signer-controller')));
        if (options.authentication?.controllers?.tokenCleaner || enabled('token-cleaner-controller')) managerControllers.push(startTokenCleaner(as('token-cleaner-controller')));
        // The nodes' kubelets and the scheduler run beside the controllers (and, with leader election, on the leader only).
        if (options.simulatedNodes) managerControllers.push(startNodeSimulation(deps, options.simulatedNodes, registry.kubernetesVersion, kubelets?.runtime, kubelets?.network, kubelets?.proberResults));
        if (options.simulatedNodes && options.leaderElect !== false) {
          // kube-scheduler elects itself too: it holds kube-system/kube-scheduler while it runs.
          const schedulerDeps = { ...deps, storeFor: (type: ResourceType) => storeFor(type).asManager('kube-scheduler') };
          const scheduler = startLeaderElection(schedulerDeps, { identity: `${hostname}_${newUUID(random)}`, leaseName: 'kube-scheduler', eventComponent: 'default-scheduler' }, { onStartedLeading: () => {}, onStoppedLeading: () => {} });
          schedulerElectors.add(scheduler);
          managerControllers.push({
            stop: () => {
              schedulerElectors.delete(scheduler);
              void scheduler.stop();
            },
          });
        }
        if (!options.leaderElection) startControlPlaneLeases();
      });
      if (enabled('serviceaccount-controller')) {
        const serviceAccounts = startServiceAccountController(as('serviceaccount-controller'));
        managerControllers.push(serviceAccounts);
        await serviceAccounts.synced;
      }
    };
    const stopControllerManager = () => {
      managerGeneration++;
      for (const c of managerControllers.splice(0)) c.stop();
    };
    const runControllerManager = async () => {
      if (options.leaderElection) {
        elector = startLeaderElection(deps, { eventComponent: 'kube-controller-manager', ...options.leaderElection }, { onStartedLeading: () => void startControllerManager(), onStoppedLeading: stopControllerManager });
      } else {
        // The bootstrap namespaces' default ServiceAccounts exist before the first request.
        await startControllerManager();
      }
      // Over a shared store every server holds its identity Lease, whichever leads.
      if (options.leaderElection) (options.scheduleControllers ?? ((start) => start()))(startControlPlaneLeases);
      // Started at once (the Node host, tests): the Lease exists before the first request.
      await identitySynced;
    };
    // Controllers with their own credentials start once the default roles are in place, as
    // kube-controller-manager waits for a healthy API server (poststarthook/rbac/bootstrap-roles).
    if (!options.useServiceAccountCredentials) await runControllerManager();
    // Stored CRDs are served again before the first request.
    await crdController.start();
    for (const h of ['start-apiextensions-informers', 'start-apiextensions-controllers', 'crd-informer-synced'] as const) health.done(h);
    // kube-aggregator's availability controllers and kube-apiserver's autoregistration: an APIService for every
    // served built-in group version (as served at start) and CRD version, written by kube-apiserver.
    const asApiServer = { storage, registry, clock, storeFor: (type: ResourceType) => storeFor(type).asManager('kube-apiserver') };
    const availability = startAPIServiceAvailability(asApiServer);
    for (const h of ['start-kube-aggregator-informers', 'apiservice-status-local-available-controller', 'apiservice-status-remote-available-controller', 'apiservice-registration-controller'] as const) health.done(h);
    const autoregistration = startAutoregistration(asApiServer, builtinAPIServices(registry.groups().filter((g) => registry.isBuiltinGroup(g.name))));
    health.done('kube-apiserver-autoregistration');
    controllers.push(availability, autoregistration);
    await autoregistration.idle();
    await availability.idle();
    health.autoregisterPending(() => autoregistration.onStart.filter((name) => !availability.seenAvailable.has(name)));
    await policies.start();
    await webhooks.start();
    await defaultPlugins.start();
    controllers.push(crdController, policies, webhooks, defaultPlugins);
    // --event-ttl: the leases Events are stored with.
    const eventsType = registry.resourceFor('', 'v1', 'events');
    if (eventsType) controllers.push({ stop: startEventTTL(storeFor(eventsType), clock, options.eventTTLMs ?? defaultEventTTLMs) });
    // RBAC's bootstrap reconciles roles with server-side apply, which reads their schema.
    if (options.rbacBootstrap ?? options.authorizer !== undefined) await loadDefinitions();
    const rbacControllers = await authorization.start();
    if (rbacControllers.length) health.ran('rbac/bootstrap-roles');
    controllers.push(...rbacControllers);
    if (options.useServiceAccountCredentials) await runControllerManager();
    health.informersSynced();
  });

  /**
   * The store as one request writes through it: validating admission, the create check of writes
   * that create, the requesting user (for strategies), the trace when it is traced, the escalation
   * guards. A plain read writes nothing, so it reads the shared store.
   */
  function requestStore(request: Request, url: URL, info: RequestInfo, type: ResourceType, warnings: string[]): Store {
    const store = storeFor(type);
    if ((info.verb === 'get' || info.verb === 'list' || info.verb === 'watch') && !info.subresource) return store;
    const user = userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] };
    const trace = traceSink(request);
    const hooks = requestWebhooks(webhooks, request, info, type, warnings);
    let admission = defaultPlugins.validating(type, hooks.validating(requestAdmission(policies, request, info, type, warnings, metrics.observeAdmission, authorization.authorizer, options.certificateSubjectRestriction ?? true, podSecurity)), info.name, trace);
    if (info.verb === 'update' || info.verb === 'patch') admission = withCreateAuthorization(admission, authorization.authorizer, user, info, url);
    // Strategies see the requesting user (a CSR records its requestor).
    const admitting = store.withAdmission(admission, hooks.mutating(defaultPlugins.mutating(type, info.name, trace))).withUser(user);
    const admitted = trace ? admitting.withTrace(trace) : admitting;
    return authorization.guard(admitted, user, info);
  }

  const listObjects = async (resource: string, namespace: string): Promise<KubeObject[]> => {
    const store = coreStore(resource);
    return store ? (await store.list(namespace)).items : [];
  };

  /** A core-group resource's store, for the handlers of core subresources (made once, not per request). */
  const coreStore = (resource: string): Store | undefined => {
    const t = registry.resourceFor('', 'v1', resource);
    return t && storeFor(t);
  };

  /** What the simulated kubelets ask the API server for (simulation/kubeletSource.ts). */
  const kubelets: SimulatedKubeletSource | undefined = options.simulatedNodes
    ? newSimulatedKubeletSource({ now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal), randomHex: (length) => randomHex(random, length), get: objectGetter(coreStore), list: listObjects, handle })
    : undefined;

  /**
   * One resource request; `type` is the registry's answer for the request's group, version and resource.
   * Not async: the verb handler's promise is the answer, without a wrapper's turns; callers await it
   * inside their try, so what it throws is an error response all the same.
   */
  function handleResource(request: Request, url: URL, info: RequestInfo, type: ResourceType | undefined): Response | Promise<Response> {
    if (!type) return writeNotFound(registry, request, url.pathname);
    const custom = customResourceInfo(type);
    if (info.subresource && !type.subresources.some((s) => s.name === info.subresource)) {
      // The CRD handler answers an unknown subresource of a served custom resource with NewNotFound.
      if (custom) throw newNotFound({ group: type.group, resource: type.resource }, info.name);
      return writeNotFound(registry, request, url.pathname);
    }
    if (type.scope === 'Cluster' && info.namespace && info.resource !== 'namespaces') return writeNotFound(registry, request, url.pathname);
    // A namespaced resource's all-namespaces path is served for list and watch only: no route for a name under it, nor other methods.
    if (type.scope === 'Namespaced' && !info.namespace) {
      if (info.name) return writeNotFound(registry, request, url.pathname);
      if (info.verb !== 'list' && info.verb !== 'watch') throw newRouteMethodNotAllowed();
    }
    // A collection path has no PUT or PATCH route.
    if (!info.name && (info.verb === 'update' || info.verb === 'patch')) throw newRouteMethodNotAllowed();
    if (type.group === metricsGroup) return serveMetrics(request, url, info, { clock, listNodes: () => listObjects('nodes', ''), listPods: (ns) => listObjects('pods', ns) });
    if (custom?.terminating && info.verb === 'create') {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'create not allowed while custom resource definition is terminating', reason: 'MethodNotAllowed', code: 405, details: { group: type.group, kind: type.resource } });
    }
    const warnings = custom?.deprecationWarning !== undefined ? [custom.deprecationWarning] : [];
    const scope: RequestScope = { request, url, info, type, store: requestStore(request, url, info, type, warnings), clock, random, gates, warnings, authorizer: authorization.authorizer, watchEventSent: info.verb === 'watch' ? (bytes, count) => metrics.observeWatchEvent(info, bytes, count) : undefined };
    const gr = { group: type.group, resource: type.resource };
    const terminating = custom?.terminating === true;

    if (type.group === '' && type.resource === 'componentstatuses' && !info.subresource && (info.verb === 'get' || info.verb === 'list')) return serveComponentStatuses(scope, componentProbes);
    const coreSubresource = serveCoreSubresource(scope, coreStore, kubelets);
    if (coreSubresource) return coreSubresource;
    if (type.createOnly || (!type.verbs.length && info.verb === 'create')) {
      if (info.verb !== 'create') throw newMethodNotSupported(gr, info.verb);
      if (type.group === 'authentication.k8s.io') return createAuthenticationReview(scope, authn);
      if (isAccessReview(type.group, type.resource)) return createAccessReview(scope, authorization.authorizer);
      return createReview(scope);
    }
    if (info.subresource === 'scale') return scaleHandler(scope);
    if (info.subresource === 'token' && type.resource === 'serviceaccounts' && info.verb === 'create') {
      const user = userFrom(request);
      const admit = options.nodeRestriction && user ? (spec: Record<string, unknown>) => admitNodeTokenRequest(user, info.namespace, info.name, spec, nodeTokenDeps) : undefined;
      return createToken(scope, authn.serviceAccounts, getObject, admit);
    }
    if (info.subresource === 'eviction') {
      if (info.verb !== 'create') throw newMethodNotSupported({ group: 'policy', resource: 'pods/eviction' }, info.verb);
      const budgets = registry.resourceFor('policy', 'v1', 'poddisruptionbudgets');
      return evictPod(scope, budgets ? storeFor(budgets) : undefined);
    }
    // A CSR's /approval is read and written like /status (its strategy keeps the write to the conditions); it has no other routes.
    if (info.subresource === 'approval' && !['get', 'update', 'patch'].includes(info.verb)) throw newRouteMethodNotAllowed();
    if (info.subresource && info.subresource !== 'status' && info.subresource !== 'finalize' && info.subresource !== 'approval') {
      throw newMethodNotSupported(gr, info.verb);
    }
    switch (info.verb) {
      case 'get':
        return getResource(scope);
      case 'list':
        if (!resourceVerbAllowed(type, terminating, 'list')) throw newMethodNotSupported(gr, 'list');
        return listResource(scope);
      case 'watch':
        if (!resourceVerbAllowed(type, terminating, 'watch')) throw newMethodNotSupported(gr, 'watch');
        return watchResource(scope);
      case 'create':
        if (info.name) throw newMethodNotSupported(gr, 'create');
        if (!resourceVerbAllowed(type, terminating, 'create')) throw newMethodNotSupported(gr, 'create');
        return createResource(scope);
      case 'update':
        if (!resourceVerbAllowed(type, terminating, 'update') && !info.subresource) throw newMethodNotSupported(gr, 'update');
        return updateResource(scope);
      case 'patch':
        if (!resourceVerbAllowed(type, terminating, 'patch') && !info.subresource) throw newMethodNotSupported(gr, 'patch');
        return patchResource(scope);
      case 'delete':
        if (!resourceVerbAllowed(type, terminating, 'delete')) throw newMethodNotSupported(gr, 'delete');
        return deleteResource(scope);
      case 'deletecollection':
        if (!resourceVerbAllowed(type, terminating, 'deletecollection')) throw newMethodNotSupported(gr, 'deletecollection');
        return deleteCollection(scope);
      default:
        throw newMethodNotSupported(gr, info.verb || request.method);
    }
  }

  /** Whether a non-resource path has a handler here (for some method): a discovery document, or one of the server's own endpoints. */
  function servesNonResourcePath(path: string): boolean {
    const [first = ''] = path.split('/').filter((s) => s !== '');
    if (first === 'api' || first === 'apis') return discoveryDocument(registry, path, { serverAddress: '' }) !== undefined;
    return path === '/' || ['version', 'openapi', 'healthz', 'livez', 'readyz', 'metrics', 'statusz', 'flagz', 'configz'].includes(first);
  }

  async function handleNonResource(request: Request, url: URL): Promise<Response> {
    const path = url.pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // A path nothing serves is a 404 whatever the method (route matching comes before method matching).
      if (!servesNonResourcePath(path)) return writeNotFound(registry, request, path);
      throw newRouteMethodNotAllowed();
    }
    if (path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/')) {
      const d = await serveDiscoveryDocument(registry, request, url, { serverAddress: options.serverAddress ?? url.host, cbor: gates.CBORServingAndStorage });
      if (!d) return writeNotFound(registry, request, path);
      return d;
    }
    if (path === '/version' || path === '/version/') {
      return writeObject(jsonSerializer, 200, versionInfo(registry.kubernetesVersion), { pretty: true });
    }
    const zpage = zpages.serve(request, path);
    if (zpage) return zpage;
    const metricsResponse = await metrics.serve(path, request.headers.get('accept'));
    if (metricsResponse) return metricsResponse;
    const openapi = await serveOpenApi(registry, request, url);
    if (openapi) return openapi;
    if (path === '/') {
      const paths = ['/api', '/api/v1', '/apis', '/configz', '/healthz', '/livez', '/readyz', '/metrics', '/metrics/slis', '/openapi/v2', '/openapi/v3', '/version'];
      if (gates.ComponentStatusz) paths.push('/statusz');
      if (gates.ComponentFlagz) paths.push('/flagz');
      for (const g of registry.groups()) if (g.name) for (const v of g.versions) paths.push(`/apis/${g.name}`, `/apis/${g.name}/${v}`);
      return writeObject(jsonSerializer, 200, { paths: [...new Set(paths)].sort() }, { pretty: true });
    }
    return writeNotFound(registry, request, path);
  }

  // Set once bootstrap finished, so a request no longer waits a turn on the settled promise.
  let started = false;
  void ready.then(() => (started = true), () => {});

  /** Whether every deferred table is in (always, where the host bundles them): requests then skip the check. */
  let dataLoaded = definitionsIndexed && protoDescriptor.value !== undefined && fieldDescriptions.value !== undefined;

  /**
   * Loads what the request reads of the deferred data. A host that cannot
   * fetch it answers 503, in JSON: a protobuf Status would need the descriptors.
   */
  async function loadRequestData(needs: RequestData): Promise<Response | undefined> {
    try {
      if (needs.definitions) await loadDefinitions();
      if (needs.protobufDescriptors) await protoDescriptor.load();
      if (needs.columnDescriptions) await fieldDescriptions.load();
      dataLoaded = definitionsIndexed && protoDescriptor.value !== undefined && fieldDescriptions.value !== undefined;
      return undefined;
    } catch (e) {
      return writeError(newServiceUnavailable(e instanceof Error ? e.message : String(e)));
    }
  }

  async function handle(request: Request): Promise<Response> {
    try {
      const url = requestUrl(request);
      const info = requestInfoFrom(request) ?? newRequestInfo(request.method, url);
      // Health answers during startup too: that is when its post-start hooks are unfinished.
      // (API paths, resource requests' among them, are never health paths: they skip the check's turn.)
      const checked = (request.method === 'GET' || request.method === 'HEAD') && !info.isResourceRequest && !url.pathname.startsWith('/api') ? await health.checks.serve(url.pathname, url) : undefined;
      if (checked) return checked;
      if (!started) await ready;
      if (!dataLoaded) {
        const unavailable = await loadRequestData(dataNeededBy(request, info));
        if (unavailable) return unavailable;
      }
      if (!info.isResourceRequest) return (await serveIssuerDiscovery(request, url.pathname, authn.serviceAccounts)) ?? (await serveKubesimDebug(request, url, { clock, storage, heldWrites })) ?? (await handleNonResource(request, url));
      if (!info.verb) throw newBadRequest(`unsupported HTTP method ${request.method}`);
      // A deprecated version is marked in the audit annotations (here: the request's trace), and a
      // deprecated built-in one warns on every answer, errors and watches included (deprecation.WarningMessage).
      const requested = registry.resourceFor(info.apiGroup, info.apiVersion, info.resource);
      // Only a built-in version marked deprecated, or a custom resource (whose CRD may mark it), can be.
      const mayBeDeprecated = requested !== undefined && (requested.deprecated !== undefined || requested.custom === true);
      const annotations = mayBeDeprecated && deprecationAnnotations(requested, customResourceInfo(requested)?.deprecationWarning !== undefined);
      if (annotations) {
        addTrace(request, { stage: 'audit', message: 'audit annotations', details: annotations });
        withDeprecatedApi(request, requested.deprecated?.removedRelease ?? '');
      }
      const warning = mayBeDeprecated && !requested.custom ? deprecationWarning(requested) : undefined;
      if (warning) {
        let response: Response;
        try {
          response = await handleResource(request, url, info, requested);
        } catch (err) {
          response = writeError(err, request);
        }
        response.headers.append('Warning', warningHeaderValue(warning));
        return response;
      }
      const response = await handleResource(request, url, info, requested);
      // A CRD write is served (or unserved) by the time its response is sent.
      if (info.apiGroup === CRD_GROUP && info.resource === CRD_RESOURCE && info.verb !== 'get' && info.verb !== 'list' && info.verb !== 'watch') {
        await crdController.sync();
      }
      // Policies and bindings written here apply from the next request on, whatever the watch's delay.
      if (info.apiGroup === 'admissionregistration.k8s.io' && info.verb !== 'get' && info.verb !== 'list' && info.verb !== 'watch') {
        policies.invalidate();
        if (info.resource === 'validatingadmissionpolicies' && info.subresource !== 'status') await policies.typeCheck();
      }
      return response;
    } catch (err) {
      return writeError(err, request);
    }
  }

  const served = buildHandlerChain(handle, {
    compression: gates.APIResponseCompression,
    cbor: gates.CBORServingAndStorage,
    authentication: { authenticators: authn.requestAuthenticators, anonymous: options.anonymousAuth ?? true, anonymousPaths: options.authentication?.anonymousPaths },
    authorizer: authorization.authorizer,
    metrics,
  });
  if (kubelets) {
    // A pod's own requests (curl to kubernetes.default.svc) come in as any client's: authenticated and authorized.
    kubelets.network.apiServer = served;
    // A pod's requests to a kubelet's port are checked with reviews the kubelet sends as its node (past
    // authentication, as its TokenRequests), as the kubelet's webhooks do.
    const getObject = objectGetter(coreStore);
    const serve = async (name: string, method: string, path: string, query: URLSearchParams): Promise<Response> => {
      const node = await getObject('nodes', '', name);
      if (!node) return new Response('404 page not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      return serveKubelet({ node, listPods: kubelets.listPods, clock, gates, proberResults: kubelets.proberResults }, method, path, query);
    };
    kubelets.network.kubelet = (node, request) => serveKubeletHttps({ apiServer: handle, serve }, node, request);
  }
  return {
    handle: served,
    authorizer: authorization.authorizer,
    health: health.checks,
    metrics,
    ready,
    registry,
    storage,
    async close() {
      closed = true;
      reconcilerStopped.abort();
      const s = endpointStores();
      if (s) await removeKubernetesEndpoints(s.endpoints, s.slices, self).catch(() => undefined);
      await Promise.all([elector, ...schedulerElectors].map((e) => e?.stop()));
      managerGeneration++;
      for (const c of [...managerControllers, ...controllers]) c.stop();
      authorization.close();
      await storage.close();
    },
  };
}

