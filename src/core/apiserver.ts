/**
 * createApiServer: wires the registry, the stores and the request pipeline
 * into one `handle(Request): Promise<Response>`.
 *
 * Pipeline: the filters of http/chain.ts (requestInfo, compression, ...),
 * then dispatch (discovery | openapi | version/health | resource);
 * resource: lookup the resource type -> verb handler -> store -> encode.
 */
import type { KubeObject } from './api/types';
import { createValidatingAdmissionPolicyPlugin, requestAdmission } from './admission';
import { customResourceInfo } from './apiextensions/resources';
import { CRD_GROUP, CRD_RESOURCE } from './apiextensions/types';
import { createCrdController } from './controllers/crd';
import { startGarbageCollector } from './controllers/garbageCollector';
import { startNamespaceController } from './controllers/namespace';
import { startServiceAccountController } from './controllers/serviceAccount';
import { startTokensController } from './controllers/tokens';
import { startBootstrapSigner } from './controllers/bootstrapsigner';
import { startTokenCleaner } from './controllers/tokencleaner';
import { featureGates, type FeatureGates } from './features';
import type { RequestAuthenticator } from './auth/authenticator/types';
import { buildAuthentication, storeGetter, type AuthenticationOptions } from './auth/authentication';
import { serveIssuerDiscovery } from './auth/serviceaccount/discovery';
import { createToken } from './auth/serviceaccount/tokenRequest';
import { admitNodeTokenRequest, type NodeTokenDeps } from './auth/node/tokenRequest';
import { createAuthenticationReview } from './http/handlers/authenticationReviews';
import type { AuthorizerFactory } from './auth/authorizer/modes';
import type { Authorizer } from './auth/authorizer/types';
import { createAuthorization } from './auth/authorizer/wiring';
import { allUnauthenticated, anonymousUser } from './auth/user';
import { buildHandlerChain } from './http/chain';
import { addTrace, requestInfoFrom, userFrom } from './http/request/context';
import { createWatchCache, type WatchCacheStorage } from './storage/cacher';
import { serveDiscovery } from './discovery';
import {
  newBadRequest,
  newGenericNotFound,
  newMethodNotSupported,
  newNotFound,
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
import type { RequestScope } from './http/handlers/scope';
import { scaleHandler } from './http/handlers/scale';
import { updateResource } from './http/handlers/update';
import { watchResource } from './http/handlers/watch';
import { newRequestInfo, type RequestInfo } from './http/requestInfo';
import { writeBytes, writeError, writeObject, writeText } from './http/responseWriter';
import { jsonSerializer } from './http/serializers/json';
import { serveOpenApi } from './ops/openapi';
import { serverHealth, type HealthChecks } from './ops/health';
import { createApiServerMetrics } from './ops/apiserverMetrics';
import { versionInfo } from './ops/version';
import { Store } from './registry/generic/store';
import { registryBundle } from './registry/generated';
import { ResourceRegistry } from './registry/registry';
import { evaluationsDefinitions, evaluationsResource } from './registry/kubesim';
import { strategyFor } from './registry/strategies';
import { bootstrapServices, ServiceAllocator, serviceAllocationHooks } from './registry/core/services';
import type { ResourceType } from './registry/types';
import type { Storage } from './storage/interface';
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
  /** --livez-grace-period: how long after start /livez excuses unfinished post-start hooks. */
  livezGracePeriodMs?: number;
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

/** Namespaces every cluster starts with. */
export const bootstrapNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function createApiServer(options: ApiServerOptions): ApiServer {
  const clock = options.clock ?? realClock;
  const gates = featureGates(options.featureGates);
  // The watch cache sits above the backend: fan-out, history window, 410 past it.
  const storage = createWatchCache(options.storage, { clock, historyWindowMs: options.watchHistoryWindowMs });
  const random = options.random ?? pooledRandom(cryptoRandom);
  const registry = new ResourceRegistry(registryBundle, { runtimeConfig: options.runtimeConfig });
  registry.addResource(evaluationsResource, evaluationsDefinitions);
  const allDefinitions = { ...registryBundle.definitions, ...evaluationsDefinitions };
  const stores = new Map<string, Store>();
  const serviceAllocator = new ServiceAllocator({ serviceClusterIPRange: options.serviceClusterIPRange, serviceNodePortRange: options.serviceNodePortRange, random });

  const namespaceType = registry.resourceFor('', 'v1', 'namespaces')!;
  const health = serverHealth({ clock, storage: options.storage, livezGracePeriodMs: options.livezGracePeriodMs });
  health.done('start-apiserver-admission-initializer');
  health.done('generic-apiserver-start-informers');

  async function checkNamespace(namespace: string): Promise<void> {
    const ns = await storeFor(namespaceType).getKv('', namespace);
    if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, namespace);
    // Stored values are JSON.stringify output: without the key's text the namespace cannot be terminating.
    if (!ns.value.includes('"deletionTimestamp"')) return;
    const obj = JSON.parse(ns.value) as KubeObject;
    if (obj.metadata.deletionTimestamp) {
      throw new StatusError({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
        message: `unable to create new content in namespace ${namespace} because it is being terminated`,
        details: { name: namespace, kind: 'namespaces', causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] },
      });
    }
  }

  function storeFor(type: ResourceType): Store {
    const key = `${type.group}/${type.version}/${type.resource}`;
    let store = stores.get(key);
    // A custom resource's type is replaced when its CRD changes: its store follows.
    if (!store || store.type !== type) {
      const root = registry.schemaFor({ group: type.group, version: type.version, kind: type.kind });
      const strategy = type.group === '' && type.resource === 'services' ? { ...strategyFor(type), ...serviceAllocationHooks(serviceAllocator) } : strategyFor(type);
      store = new Store(type, strategy, { storage, clock, random, checkNamespace }, { root, definitions: allDefinitions });
      stores.set(key, store);
    }
    return store;
  }

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
    if (services) await bootstrapServices(storeFor(services), serviceAllocator);
    health.done('bootstrap-controller');
  }

  const getObject = storeGetter(registry, storeFor);
  const authn = buildAuthentication(options.authentication ?? {}, { clock, getObject, requestAuthenticators: options.authenticators });

  const metrics = createApiServerMetrics({ registry, storage, gates, health: health.checks });
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
  const policies = createValidatingAdmissionPolicyPlugin({ storage, registry, storeFor, authorizer: () => authorization.authorizer });
  const ready = bootstrap().then(async () => {
    const deps = { storage, registry, clock, storeFor };
    const serviceAccounts = startServiceAccountController(deps);
    controllers = [startNamespaceController(deps), startGarbageCollector(deps), serviceAccounts, startTokensController({ ...deps, tokens: authn.serviceAccounts })];
    if (options.authentication?.controllers?.bootstrapSigner) controllers.push(startBootstrapSigner(deps));
    if (options.authentication?.controllers?.tokenCleaner) controllers.push(startTokenCleaner(deps));
    // The bootstrap namespaces' default ServiceAccounts exist before the first request.
    await serviceAccounts.synced;
    // Stored CRDs are served again before the first request.
    await crdController.start();
    for (const h of ['start-apiextensions-informers', 'start-apiextensions-controllers', 'crd-informer-synced'] as const) health.done(h);
    await policies.start();
    controllers.push(crdController, policies);
    const rbacControllers = await authorization.start();
    if (rbacControllers.length) health.ran('rbac/bootstrap-roles');
    controllers.push(...rbacControllers);
    health.informersSynced();
  });

  async function handleResource(request: Request, url: URL, info: RequestInfo): Promise<Response> {
    const type = registry.resourceFor(info.apiGroup, info.apiVersion, info.resource);
    if (!type) throw newGenericNotFound();
    if (info.subresource && !type.subresources.some((s) => s.name === info.subresource)) throw newGenericNotFound();
    if (type.scope === 'Cluster' && info.namespace && info.resource !== 'namespaces') throw newGenericNotFound();
    const custom = customResourceInfo(type);
    if (custom?.terminating && info.verb === 'create') {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'create not allowed while custom resource definition is terminating', reason: 'MethodNotAllowed', code: 405, details: { group: type.group, kind: type.resource } });
    }
    const warnings = custom?.deprecationWarning !== undefined ? [custom.deprecationWarning] : [];
    // The request's writes pass validating admission (ValidatingAdmissionPolicy) before storage.
    const admitted = storeFor(type).withAdmission(requestAdmission(policies, request, info, type, warnings)).withTrace((e) => addTrace(request, e));
    const store = authorization.guard(admitted, userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] }, info);
    const scope: RequestScope = { request, url, info, type, store, clock, random, gates, warnings };
    const gr = { group: type.group, resource: type.resource };
    // A terminating CRD's discovery drops update and patch, yet its objects can still be written (to release finalizers).
    const verbAllowed = (verb: string) => type.verbs.includes(verb) || (!!custom?.terminating && (verb === 'update' || verb === 'patch'));

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
      return evictPod(scope);
    }
    if (info.subresource && info.subresource !== 'status' && info.subresource !== 'finalize') {
      throw newMethodNotSupported(gr, info.verb);
    }
    switch (info.verb) {
      case 'get':
        return getResource(scope);
      case 'list':
        if (!verbAllowed('list')) throw newMethodNotSupported(gr, 'list');
        return listResource(scope);
      case 'watch':
        if (!verbAllowed('watch')) throw newMethodNotSupported(gr, 'watch');
        return watchResource(scope);
      case 'create':
        if (info.name) throw newMethodNotSupported(gr, 'create');
        if (!verbAllowed('create')) throw newMethodNotSupported(gr, 'create');
        return createResource(scope);
      case 'update':
        if (!verbAllowed('update') && !info.subresource) throw newMethodNotSupported(gr, 'update');
        return updateResource(scope);
      case 'patch':
        if (!verbAllowed('patch') && !info.subresource) throw newMethodNotSupported(gr, 'patch');
        return patchResource(scope);
      case 'delete':
        if (!verbAllowed('delete')) throw newMethodNotSupported(gr, 'delete');
        return deleteResource(scope);
      case 'deletecollection':
        if (!verbAllowed('deletecollection')) throw newMethodNotSupported(gr, 'deletecollection');
        return deleteCollection(scope);
      default:
        throw newMethodNotSupported(gr, info.verb || request.method);
    }
  }

  async function handleNonResource(request: Request, url: URL): Promise<Response> {
    const path = url.pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', code: 405, details: {} });
    }
    if (path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/')) {
      const d = serveDiscovery(registry, path, request.headers.get('accept'), { serverAddress: options.serverAddress ?? url.host });
      if (!d) throw newGenericNotFound();
      if (d.status === 406) return writeError(new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotAcceptable', code: 406, message: 'only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' }), request);
      const bytes = jsonSerializer.encode(d.body, { pretty: url.searchParams.get('pretty') === 'true' });
      return writeBytes(200, d.contentType, bytes, { headers: d.headers });
    }
    if (path === '/version' || path === '/version/') {
      return writeObject(jsonSerializer, 200, versionInfo(registry.kubernetesVersion), { pretty: true });
    }
    const metricsResponse = await metrics.serve(path);
    if (metricsResponse) return metricsResponse;
    const openapi = serveOpenApi(registry, url);
    if (openapi) return openapi;
    if (path === '/') {
      const paths = ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/metrics', '/metrics/slis', '/openapi/v3', '/version'];
      for (const g of registry.groups()) if (g.name) for (const v of g.versions) paths.push(`/apis/${g.name}`, `/apis/${g.name}/${v}`);
      return writeObject(jsonSerializer, 200, { paths: [...new Set(paths)].sort() }, { pretty: true });
    }
    return writeText(404, '404 page not found\n');
  }

  async function handle(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      // Health answers during startup too: that is when its post-start hooks are unfinished.
      const checked = request.method === 'GET' || request.method === 'HEAD' ? await health.checks.serve(url.pathname, url) : undefined;
      if (checked) return checked;
      await ready;
      const info = requestInfoFrom(request) ?? newRequestInfo(request.method, url);
      if (!info.isResourceRequest) return (await serveIssuerDiscovery(request, url.pathname, authn.serviceAccounts)) ?? (await handleNonResource(request, url));
      if (!info.verb) throw newBadRequest(`unsupported HTTP method ${request.method}`);
      const response = await handleResource(request, url, info);
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

  return {
    handle: buildHandlerChain(handle, {
      compression: gates.APIResponseCompression,
      authentication: { authenticators: authn.requestAuthenticators, anonymous: options.anonymousAuth ?? true, anonymousPaths: options.authentication?.anonymousPaths },
      authorizer: authorization.authorizer,
      metrics,
    }),
    authorizer: authorization.authorizer,
    health: health.checks,
    ready,
    registry,
    storage,
    async close() {
      for (const c of controllers) c.stop();
      authorization.close();
      await storage.close();
    },
  };
}

