/**
 * A simulated node's kubelet server: what a kubelet answers on its port
 * 10250, reached by kube-apiserver's nodes/proxy in process since there is
 * no machine to dial. Read-only endpoints: /healthz, /pods, /configz,
 * /stats/summary, /metrics, /metrics/cadvisor, /metrics/resource and
 * /metrics/probes; any other path is the kubelet mux's 404.
 *
 * Stats come from the simulated runtime (kubeletStats.ts). The gate
 * PodAndContainerStatsFromCRI moves pod and container stats to the runtime
 * when it can report them (containerd 2.2, CRI-O 1.31), which the metric
 * nodeagent_metrics_provider shows; the figures are the same either way.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { specOf, statusOf } from '../controllers/controllerUtils';
import type { FeatureGates } from '../features';
import { Gauge, Counter, MetricsRegistry, textContentType } from '../ops/metrics';
import type { Clock } from '../util/clock';
import type { ProberResults } from './proberResults';
import { cadvisorMetrics, resourceMetrics, sampleNode, statsSummary } from './kubeletStats';

/** What the kubelet knows: its Node, the pods bound to it (its pod manager's), the clock and its gates. */
export interface KubeletSource {
  node: KubeObject;
  listPods(): Promise<KubeObject[]>;
  clock: Clock;
  gates: Pick<FeatureGates, 'PodAndContainerStatsFromCRI'>;
  /** Its prober's result counts. */
  proberResults?: ProberResults;
}

/** The kubelet's port, where nodes/proxy reaches it. */
export const kubeletPort = 10250;

const jsonHeaders = { 'content-type': 'application/json' };
const textHeaders = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

/** http.NotFound, as the kubelet's mux answers an unknown path. */
const notFound = () => new Response('404 page not found\n', { status: 404, headers: textHeaders });
/** go-restful's answer to a method a route does not take. */
const methodNotAllowed = () => new Response('405: Method Not Allowed', { status: 405, headers: textHeaders });

/** Whether the runtime can serve pod and container stats over CRI (ListPodSandboxMetrics): containerd 2.2+, CRI-O 1.31.0+. */
export function runtimeReportsStats(runtimeVersion: string): boolean {
  const m = /^([a-z-]+):\/\/v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(runtimeVersion);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  const atLeast = (a: number, b: number, c: number) => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
  if (m[1] === 'containerd') return atLeast(2, 2, 0);
  if (m[1] === 'cri-o') return atLeast(1, 31, 0);
  return false;
}

const nodeInfoOf = (node: KubeObject): Record<string, unknown> => (isObject(statusOf(node)['nodeInfo']) ? (statusOf(node)['nodeInfo'] as Record<string, unknown>) : {});

/** The source of pod and container stats: the runtime with the gate on and a runtime that reports them, else the embedded cAdvisor. */
export function metricsProvider(node: KubeObject, gates: KubeletSource['gates']): 'cri' | 'cadvisor' {
  return gates.PodAndContainerStatsFromCRI && runtimeReportsStats(String(nodeInfoOf(node)['containerRuntimeVersion'] ?? '')) ? 'cri' : 'cadvisor';
}

/** The kubelet's own registry (/metrics): a few of its gauges and the stats provider. */
async function kubeletMetrics(source: KubeletSource, pods: readonly KubeObject[]): Promise<string> {
  const registry = new MetricsRegistry();
  const nodeName = registry.register(new Gauge({ name: 'kubelet_node_name', help: "The node's name. The count is always 1.", labels: ['node'] }));
  const runningPods = registry.register(new Gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox' }));
  const containers = registry.register(new Gauge({ name: 'kubelet_running_containers', help: 'Number of containers currently running', labels: ['container_state'] }));
  const provider = registry.register(new Gauge({ name: 'nodeagent_metrics_provider', help: 'The source of pod and container stats: cri (the container runtime) or cadvisor.', labels: ['provider'] }));
  nodeName.set([source.node.metadata.name!], 1);
  const states = { created: 0, exited: 0, running: 0, unknown: 0 };
  let sandboxes = 0;
  for (const pod of pods) {
    const phase = statusOf(pod)['phase'];
    if (phase === 'Running' || phase === 'Pending') {
      if (statusOf(pod)['podIP']) sandboxes++;
    }
    for (const s of [...objectsOf(statusOf(pod)['initContainerStatuses']), ...objectsOf(statusOf(pod)['containerStatuses'])]) {
      const state = isObject(s['state']) ? s['state'] : {};
      if (isObject(state['running'])) states.running++;
      else if (isObject(state['terminated'])) states.exited++;
      else if (s['containerID']) states.created++;
    }
  }
  runningPods.set([], sandboxes);
  for (const [state, n] of Object.entries(states)) containers.set([state], n);
  provider.set([metricsProvider(source.node, source.gates)], 1);
  return registry.exposition();
}

/** The prober's counts (/metrics/probes): every probe its workers ran for the node's pods, by result. */
async function probeMetrics(pods: readonly KubeObject[], results: ProberResults | undefined): Promise<string> {
  const registry = new MetricsRegistry();
  const total = registry.register(new Counter({
    name: 'prober_probe_total',
    help: 'Cumulative number of a liveness, readiness or startup probe for a container by result.',
    labels: ['container', 'namespace', 'pod', 'pod_uid', 'probe_type', 'result'],
  }));
  for (const pod of pods) {
    for (const { container, probeType, result, count } of results?.of(pod.metadata.uid ?? '') ?? []) {
      total.set([container, pod.metadata.namespace!, pod.metadata.name!, pod.metadata.uid!, probeType, result], count);
    }
  }
  return registry.exposition();
}

/** The kubelet's configuration as /configz shows it (KubeletConfiguration, internal field names, under "kubeletconfig"). */
export function kubeletConfiguration(source: KubeletSource): Record<string, unknown> {
  const capacity = isObject(statusOf(source.node)['capacity']) ? (statusOf(source.node)['capacity'] as Record<string, unknown>) : {};
  return {
    enableServer: true,
    staticPodPath: '/etc/kubernetes/manifests',
    podLogsDir: '/var/log/pods',
    syncFrequency: '1m0s',
    fileCheckFrequency: '20s',
    httpCheckFrequency: '20s',
    address: '0.0.0.0',
    port: kubeletPort,
    tlsCertFile: '/var/lib/kubelet/pki/kubelet.crt',
    tlsPrivateKeyFile: '/var/lib/kubelet/pki/kubelet.key',
    rotateCertificates: true,
    authentication: { x509: { clientCAFile: '/etc/kubernetes/pki/ca.crt' }, webhook: { enabled: true, cacheTTL: '2m0s' }, anonymous: { enabled: false } },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    registryPullQPS: 5,
    registryBurst: 10,
    eventRecordQPS: 50,
    eventBurst: 100,
    enableDebuggingHandlers: true,
    healthzPort: 10248,
    healthzBindAddress: '127.0.0.1',
    oomScoreAdj: -999,
    clusterDomain: 'cluster.local',
    clusterDNS: ['10.96.0.10'],
    streamingConnectionIdleTimeout: '4h0m0s',
    nodeStatusUpdateFrequency: '10s',
    nodeStatusReportFrequency: '5m0s',
    nodeLeaseDurationSeconds: 40,
    imageMinimumGCAge: '2m0s',
    imageMaximumGCAge: '0s',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    volumeStatsAggPeriod: '1m0s',
    cgroupsPerQOS: true,
    cgroupDriver: 'systemd',
    cpuManagerPolicy: 'none',
    cpuManagerReconcilePeriod: '10s',
    memoryManagerPolicy: 'None',
    topologyManagerPolicy: 'none',
    topologyManagerScope: 'container',
    runtimeRequestTimeout: '2m0s',
    hairpinMode: 'promiscuous-bridge',
    maxPods: Number(capacity['pods'] ?? 110),
    podPidsLimit: -1,
    resolvConf: '/etc/resolv.conf',
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    nodeStatusMaxImages: 50,
    maxOpenFiles: 1000000,
    contentType: 'application/vnd.kubernetes.protobuf',
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    serializeImagePulls: true,
    evictionHard: { 'imagefs.available': '15%', 'imagefs.inodesFree': '5%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' },
    evictionPressureTransitionPeriod: '5m0s',
    enableControllerAttachDetach: true,
    makeIPTablesUtilChains: true,
    iptablesMasqueradeBit: 14,
    iptablesDropBit: 15,
    ...(source.gates.PodAndContainerStatsFromCRI ? { featureGates: { PodAndContainerStatsFromCRI: true } } : {}),
    failSwapOn: true,
    memorySwap: {},
    containerLogMaxSize: '10Mi',
    containerLogMaxFiles: 5,
    containerLogMaxWorkers: 1,
    containerLogMonitorInterval: '10s',
    configMapAndSecretChangeDetectionStrategy: 'Watch',
    enforceNodeAllocatable: ['pods'],
    volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
    logging: { format: 'text', flushFrequency: '5s', verbosity: 0, options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } } },
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    seccompDefault: false,
    memoryThrottlingFactor: 0.9,
    registerNode: true,
    localStorageCapacityIsolation: true,
    containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
    failCgroupV1: true,
  };
}

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: jsonHeaders });
const metricsText = (body: string) => new Response(body, { status: 200, headers: { 'content-type': textContentType } });

/** The kubelet's answer to one request: method, path (leading slash) and query. */
export async function serveKubelet(source: KubeletSource, method: string, path: string, query: URLSearchParams): Promise<Response> {
  // The health check is a plain mux handler, for any method.
  if (path === '/healthz') return new Response('ok', { status: 200, headers: textHeaders });
  const route = path.replace(/\/$/, '') || '/';
  const routes = new Set(['/pods', '/configz', '/stats/summary', '/metrics', '/metrics/cadvisor', '/metrics/resource', '/metrics/probes']);
  if (!routes.has(route)) return notFound();
  if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed();
  const now = source.clock.now();
  const name = source.node.metadata.name!;
  const pods = (await source.listPods()).filter((p) => specOf(p)['nodeName'] === name);
  const version = String(nodeInfoOf(source.node)['kubeletVersion'] ?? '');
  switch (route) {
    case '/pods':
      return json({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods.map(({ kind: _k, apiVersion: _a, ...pod }) => pod) });
    case '/configz':
      return json({ kubeletconfig: kubeletConfiguration(source) });
    case '/stats/summary':
      return json(statsSummary(sampleNode(source.node, pods, now), query.get('only_cpu_and_memory') === 'true'));
    case '/metrics':
      return metricsText(await kubeletMetrics(source, pods));
    case '/metrics/cadvisor':
      return metricsText(await cadvisorMetrics(sampleNode(source.node, pods, now)));
    case '/metrics/resource':
      return metricsText(await resourceMetrics(sampleNode(source.node, pods, now), version));
    default:
      return metricsText(await probeMetrics(pods, source.proberResults));
  }
}
