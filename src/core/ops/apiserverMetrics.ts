/**
 * kube-apiserver's metrics (k8s.io/apiserver/pkg/endpoints/metrics and friends):
 * request counts and latencies labelled as MonitorRequest labels them, the
 * in-flight gauge, stored object counts, deprecated APIs requested, watch
 * events, admission and ValidatingAdmissionPolicy timings, declarative
 * validation mismatches, feature gates, and the health check SLIs served on
 * /metrics/slis. Both endpoints answer in the text or the protobuf exposition.
 */
import { featureSpec, type FeatureGate, type FeatureGates } from '../features';
import type { RequestInfo } from '../http/requestInfo';
import { deprecatedApiFrom, hasSharedUrl, requestUrl } from '../http/request/context';
import { resourcePrefix } from '../registry/generic/keys';
import type { ResourceRegistry } from '../registry/registry';
import type { Storage } from '../storage/interface';
import type { HealthChecks } from './health';
import { Counter, Gauge, Histogram, MetricsRegistry } from './metrics';
import { processMetrics } from './processMetrics';
import { acceptsProtobuf, encodeProtobufExposition, protobufContentType } from './metricsProtobuf';

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** apiserver_request_duration_seconds' buckets in kube-apiserver. */
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export interface ApiServerMetricsDeps {
  registry: ResourceRegistry;
  storage: Storage;
  gates: FeatureGates;
  health: HealthChecks;
  /** --show-hidden-metrics-for-version (the previous minor release). */
  showHiddenMetricsForVersion?: string;
}

export interface ApiServerMetrics {
  /** Counts a request in flight until the returned function is called (apiserver_current_inflight_requests). */
  startRequest(request: Request, info: RequestInfo | undefined): () => void;
  /** Records one finished resource request with its status code and duration. */
  observeRequest(request: Request, info: RequestInfo, code: number, seconds: number): void;
  /** One watch event sent (apiserver_watch_events_total, apiserver_watch_events_sizes). */
  observeWatchEvent(info: RequestInfo, bytes: number, count?: number): void;
  /** One validating admission step of a plugin (controller duration histogram; the step histogram too unless `step` is false). */
  observeAdmission(plugin: string, operation: string, rejected: boolean, seconds: number, step?: boolean): void;
  /** One admission webhook call (apiserver_admission_webhook_admission_duration_seconds and _request_total). */
  observeWebhook(webhook: string, type: string, operation: string, rejected: boolean, code: number, seconds: number): void;
  /** One ValidatingAdmissionPolicy evaluation and the action it led to. */
  observePolicyCheck(policy: string, binding: string, errorType: string, action: string, seconds: number): void;
  /** pod_security_evaluations_total, _exemptions_total and _errors_total, by their label values (`by` 0 makes the series). */
  podSecurity: {
    evaluation(labels: readonly string[], by?: number): void;
    evaluationSeries(labels: readonly string[]): (by?: number) => void;
    exemption(labels: readonly string[], by?: number): void;
    error(labels: readonly string[], by?: number): void;
  };
  /** Declarative and hand-written validation disagreed (declarative_validation_mismatch_total). */
  observeDeclarativeValidationMismatch(): void;
  /**
   * The host re-read --authentication-config after a change: counted and
   * timestamped by outcome and by the hash of the API server's identity.
   */
  observeAuthenticationConfigReload(success: boolean, apiServerIdHash: string, unixSeconds: number): void;
  /** GET /metrics and GET /metrics/slis (text, or protobuf when Accept asks for it), or undefined for other paths. */
  serve(path: string, accept?: string | null): Promise<Response | undefined>;
}

/** Subresources whose requests are connects (CleanVerb's validConnectRequests). */
const connectSubresources = new Set(['proxy', 'attach', 'exec', 'portforward']);

/** The verb label: kube's upper-case HTTP-style verbs, LIST and WATCH told apart, APPLY for server-side apply, CONNECT for the streaming and proxy subresources. */
export function reportedVerb(request: Request, info: RequestInfo): string {
  if (info.isResourceRequest && connectSubresources.has(info.subresource)) return 'CONNECT';
  switch (info.verb) {
    case 'get':
      return 'GET';
    case 'list':
      return 'LIST';
    case 'watch':
      return 'WATCH';
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return (request.headers.get('content-type') ?? '').split(';')[0]!.trim() === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    case 'delete':
    case 'deletecollection':
      return 'DELETE';
    case 'connect':
      return 'CONNECT';
    default:
      return 'other';
  }
}

/** scope: resource (one named object), namespace, or cluster. */
function requestScope(info: RequestInfo): string {
  if (info.name) return 'resource';
  if (info.namespace) return 'namespace';
  return 'cluster';
}

function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function dryRun(url: URL): string {
  if (url.search === '') return '';
  return [...new Set(url.searchParams.getAll('dryRun'))].sort().join(',');
}

export function createApiServerMetrics(deps: ApiServerMetricsDeps): ApiServerMetrics {
  // Native buckets cost every observation a logarithm and a map update; without the gate no exposition shows them.
  const native = deps.gates.NativeHistograms;
  const registry = new MetricsRegistry({ currentVersion: deps.registry.kubernetesVersion, showHiddenMetricsForVersion: deps.showHiddenMetricsForVersion });
  const requests = registry.register(new Counter({
    name: 'apiserver_request_total', stability: 'STABLE', labels: [...requestLabels, 'code'],
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  }));
  const latencies = registry.register(new Histogram({
    native,
    name: 'apiserver_request_duration_seconds', stability: 'STABLE', labels: requestLabels, buckets: durationBuckets,
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  }));
  const inflight = registry.register(new Gauge({
    name: 'apiserver_current_inflight_requests', stability: 'STABLE', labels: ['request_kind'],
    help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  }));
  const storageObjects = registry.register(new Gauge({
    name: 'apiserver_storage_objects', stability: 'STABLE', labels: ['resource'],
    help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  }));
  const deprecatedApis = registry.register(new Gauge({
    name: 'apiserver_requested_deprecated_apis', stability: 'STABLE', labels: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
  }));
  const features = registry.register(new Gauge({
    name: 'kubernetes_feature_enabled', stability: 'BETA', labels: ['name', 'stage'],
    help: 'This metric records the data about the stage and enablement of a k8s feature.',
  }));
  const watchLabels = ['group', 'version', 'resource'];
  const watchEvents = registry.register(new Counter({ name: 'apiserver_watch_events_total', labels: watchLabels, help: 'Number of events sent in watch clients' }));
  const watchEventSizes = registry.register(new Histogram({
    native,
    name: 'apiserver_watch_events_sizes', labels: watchLabels, buckets: [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
    help: 'Watch event size distribution in bytes',
  }));
  const admissionBuckets = [0.005, 0.025, 0.1, 0.5, 1, 2.5];
  const admissionStep = registry.register(new Histogram({
    native,
    name: 'apiserver_admission_step_admission_duration_seconds', stability: 'STABLE', labels: ['type', 'operation', 'rejected'], buckets: admissionBuckets,
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
  }));
  const admissionController = registry.register(new Histogram({
    native,
    name: 'apiserver_admission_controller_admission_duration_seconds', stability: 'STABLE', labels: ['name', 'type', 'operation', 'rejected'], buckets: admissionBuckets,
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
  }));
  /** The admission histograms' series by plugin, operation and outcome, their labels resolved once (every write observes them). */
  const admissionSeriesByKey = new Map<string, { step: (seconds: number) => void; controller: (seconds: number) => void }>();
  function admissionSeries(plugin: string, operation: string, rejected: boolean) {
    const key = `${plugin}/${operation}/${rejected}`;
    let series = admissionSeriesByKey.get(key);
    if (!series) {
      series = { step: admissionStep.bind(['validate', operation, String(rejected)]), controller: admissionController.bind([plugin, 'validate', operation, String(rejected)]) };
      admissionSeriesByKey.set(key, series);
    }
    return series;
  }
  const webhookDuration = registry.register(new Histogram({
    native,
    name: 'apiserver_admission_webhook_admission_duration_seconds', stability: 'STABLE', labels: ['name', 'type', 'operation', 'rejected'], buckets: [...admissionBuckets, 10, 25],
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
  }));
  const webhookRequests = registry.register(new Counter({
    name: 'apiserver_admission_webhook_request_total', labels: ['name', 'type', 'operation', 'code', 'rejected'],
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
  }));
  const policyLabels = ['policy', 'policy_binding', 'error_type', 'enforcement_action'];
  const policyChecks = registry.register(new Counter({
    name: 'apiserver_validating_admission_policy_check_total', stability: 'BETA', labels: policyLabels,
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
  }));
  const policyCheckDuration = registry.register(new Histogram({
    native,
    name: 'apiserver_validating_admission_policy_check_duration_seconds', stability: 'BETA', labels: policyLabels, buckets: [0.0000005, 0.001, 0.01, 0.1, 1],
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
  }));
  const podSecurityRequestLabels = ['request_operation', 'resource', 'subresource'];
  const podSecurityEvaluations = registry.register(new Counter({
    name: 'pod_security_evaluations_total', labels: ['decision', 'policy_level', 'policy_version', 'mode', ...podSecurityRequestLabels],
    help: 'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
  }));
  const podSecurityExemptions = registry.register(new Counter({
    name: 'pod_security_exemptions_total', labels: podSecurityRequestLabels,
    help: 'Number of exempt requests, not counting ignored or out of scope requests.',
  }));
  const podSecurityErrors = registry.register(new Counter({
    name: 'pod_security_errors_total', labels: ['fatal', ...podSecurityRequestLabels],
    help: 'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
  }));
  const dvMismatches = registry.register(new Counter({
    name: 'declarative_validation_mismatch_total',
    help: 'Number of times declarative validation results differed from handwritten validation results for core types.',
  }));
  // In the order client_golang writes them (sorted by name).
  const reloadLabels = ['apiserver_id_hash', 'status'];
  const authnReloads = registry.register(new Counter({
    name: 'apiserver_authentication_config_controller_automatic_reloads_total', labels: reloadLabels,
    help: 'Total number of automatic reloads of authentication configuration split by status and apiserver identity.',
  }));
  const authnReloadTime = registry.register(new Gauge({
    name: 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds', labels: reloadLabels,
    help: 'Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.',
  }));
  const dvPanics = registry.register(new Counter({ name: 'declarative_validation_panic_total', help: 'Number of times declarative validation has panicked during validation.' }));
  // Both exist from the start, at zero, as counters without labels do.
  dvMismatches.inc([], 0);
  dvPanics.inc([], 0);
  for (const m of processMetrics) registry.register(m);
  for (const [name, enabled] of Object.entries(deps.gates)) features.set([name, featureSpec(name as FeatureGate).stage], enabled ? 1 : 0);
  for (const kind of ['mutating', 'readOnly']) inflight.set([kind], 0);

  // Health SLIs live in their own registry, served on /metrics/slis.
  const slis = new MetricsRegistry();
  const healthcheck = slis.register(new Gauge({
    name: 'kubernetes_healthcheck', stability: 'STABLE', labels: ['name', 'type'],
    help: 'This metric records the result of a single healthcheck.',
  }));
  const healthchecks = slis.register(new Counter({
    name: 'kubernetes_healthchecks_total', stability: 'STABLE', labels: ['name', 'status', 'type'],
    help: 'This metric records the results of all healthcheck.',
  }));
  deps.health.observe((endpoint, name, healthy) => {
    healthcheck.set([name, endpoint], healthy ? 1 : 0);
    healthchecks.inc([name, healthy ? 'success' : 'error', endpoint]);
  });

  // Object counts are read at scrape time, one counting range per stored resource.
  registry.onCollect(async () => {
    const seen = new Set<string>();
    for (const g of deps.registry.groups()) {
      for (const v of g.versions) {
        for (const type of deps.registry.resourcesIn(g.name, v)) {
          if (type.createOnly || !type.verbs.length || type.resource.includes('/')) continue;
          // One series per storage location: versions of a resource, and events in two groups, share it.
          const prefix = resourcePrefix(type.group, type.resource);
          if (seen.has(prefix)) continue;
          seen.add(prefix);
          const label = type.group ? `${type.resource}.${type.group}` : type.resource;
          try {
            storageObjects.set([label], (await deps.storage.range(prefix, { limit: 1 })).count);
          } catch {
            storageObjects.set([label], -1);
          }
        }
      }
    }
  });

  const watchObservers = new WeakMap<RequestInfo, (bytes: number, count: number) => void>();

  const text = (body: string) => new Response(body, { status: 200, headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' } });

  // Every request passes here: the in-flight series and each label set's request series are resolved once (per reset).
  const readOnly = inflight.bind(['readOnly']);
  const mutating = inflight.bind(['mutating']);
  const readOnlyDone = () => readOnly(-1);
  const mutatingDone = () => mutating(-1);
  const notCounted = () => {};
  interface RequestSeries {
    values: readonly string[];
    latency: (seconds: number) => void;
    byCode: Map<number, () => void>;
  }
  const requestSeries = new Map<string, RequestSeries>();
  // The series resolved last: requests in a row to one collection's objects (each URL seen once) share it.
  let lastSeries: RequestSeries | undefined;
  function seriesFor(values: string[]): RequestSeries {
    const last = lastSeries;
    if (last !== undefined && sameLabels(last.values, values)) return last;
    const key = values.join('\u0000');
    let series = requestSeries.get(key);
    if (!series) requestSeries.set(key, (series = { values, latency: latencies.bind(values), byCode: new Map() }));
    return (lastSeries = series);
  }
  function countRequest(series: RequestSeries, code: number, seconds: number): void {
    let count = series.byCode.get(code);
    if (!count) series.byCode.set(code, (count = requests.bind([...series.values, String(code)])));
    count();
    series.latency(seconds);
  }
  /**
   * The series of a request's attributes. They are shared by every request to the same URL and
   * method (withRequestInfo), which so finds its labels without building them; a patch's verb
   * also depends on its content type, so it is looked up each time.
   */
  const seriesByInfo = new WeakMap<RequestInfo, { url: URL; series: RequestSeries }>();
  function requestSeriesFor(request: Request, info: RequestInfo): RequestSeries {
    const url = requestUrl(request);
    const known = seriesByInfo.get(info);
    if (known?.url === url) return known.series;
    const series = seriesFor([reportedVerb(request, info), dryRun(url), info.apiGroup, info.apiVersion, info.resource, info.subresource, requestScope(info), 'apiserver']);
    // Only a shared URL's RequestInfo is seen again (requestUrl).
    if (info.verb !== 'patch' && hasSharedUrl(request)) seriesByInfo.set(info, { url, series });
    return series;
  }

  return {
    startRequest(request, info) {
      // Watches are long-running and not limited by max-in-flight, so they are not counted.
      if (info?.verb === 'watch') return notCounted;
      if (request.method === 'GET' || request.method === 'HEAD') {
        readOnly(1);
        return readOnlyDone;
      }
      mutating(1);
      return mutatingDone;
    },
    observeDeclarativeValidationMismatch() {
      dvMismatches.inc();
    },
    observeAuthenticationConfigReload(success, apiServerIdHash, unixSeconds) {
      const labels = [apiServerIdHash, success ? 'success' : 'failure'];
      authnReloads.inc(labels);
      authnReloadTime.set(labels, unixSeconds);
    },
    observeWatchEvent(info, bytes, count = 1) {
      // Every event of every watch lands here: each watch's series are resolved once.
      let observe = watchObservers.get(info);
      if (!observe) {
        const labels = [info.apiGroup, info.apiVersion, info.resource];
        const inc = watchEvents.bind(labels);
        const size = watchEventSizes.bind(labels);
        watchObservers.set(info, (observe = (n, times) => (inc(times), size(n, times))));
      }
      observe(bytes, count);
    },
    observeAdmission(plugin, operation, rejected, seconds, step = true) {
      const series = admissionSeries(plugin, operation, rejected);
      if (step) series.step(seconds);
      series.controller(seconds);
    },
    podSecurity: {
      evaluation: (labels, by) => podSecurityEvaluations.inc(labels, by),
      evaluationSeries: (labels) => podSecurityEvaluations.bind(labels),
      exemption: (labels, by) => podSecurityExemptions.inc(labels, by),
      error: (labels, by) => podSecurityErrors.inc(labels, by),
    },
    observeWebhook(webhook, type, operation, rejected, code, seconds) {
      webhookDuration.observe([webhook, type, operation, String(rejected)], seconds);
      webhookRequests.inc([webhook, type, operation, String(code), String(rejected)]);
    },
    observePolicyCheck(policy, binding, errorType, action, seconds) {
      policyChecks.inc([policy, binding, errorType, action]);
      policyCheckDuration.observe([policy, binding, errorType, action], seconds);
    },
    observeRequest(request, info, code, seconds) {
      countRequest(requestSeriesFor(request, info), code, seconds);
      // A deprecated built-in version names its removal release; a deprecated CRD version names none.
      const removedRelease = deprecatedApiFrom(request);
      if (removedRelease !== undefined) deprecatedApis.set([info.apiGroup, info.apiVersion, info.resource, info.subresource, removedRelease], 1);
    },
    async serve(path, accept) {
      const source = path === '/metrics' ? registry : path === '/metrics/slis' ? slis : undefined;
      if (!source) return undefined;
      if (acceptsProtobuf(accept ?? null)) {
        const bytes = encodeProtobufExposition(await source.gather(), { nativeHistograms: deps.gates.NativeHistograms });
        return new Response(bytes as BodyInit, { status: 200, headers: { 'Content-Type': protobufContentType } });
      }
      return text(await source.exposition());
    },
  };
}
