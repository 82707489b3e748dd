/**
 * metrics.k8s.io/v1beta1 as metrics-server serves it behind its APIService
 * (v1beta1.metrics.k8s.io, groupPriorityMinimum 100): NodeMetrics (`nodes`)
 * and PodMetrics (`pods`), get and list only, with labelSelector, each item
 * stamped with the scrape time and metrics-server's window. Served only with
 * simulated nodes, whose usage metrics.ts makes up; a cluster without
 * metrics-server has no such group, and `kubectl top` says so.
 */
import { formatTime, type KubeObject } from '../api/types';
import { newBadRequest, newMethodNotSupported, newNotFound } from '../errors';
import { isSelectorError, parseLabelSelector, type LabelSelector } from '../selectors';
import { negotiateOutput } from '../http/negotiation';
import { queryOf } from '../http/queryParams';
import { writeObject } from '../http/responseWriter';
import type { RequestInfo } from '../http/requestInfo';
import { metricsGroup } from '../registry/metrics';
import type { Clock } from '../util/clock';
import { metricsWindow, nodeUsage, podUsage, usageList } from './metrics';
import { isSimulatedNode } from './nodes';

/** What the metrics come from: the cluster's nodes and pods as the API server stores them. */
export interface MetricsSource {
  listNodes(): Promise<KubeObject[]>;
  listPods(namespace: string): Promise<KubeObject[]>;
  clock: Clock;
}

/** One PodMetrics; undefined when metrics-server would have no sample of the pod. */
export function podMetricsOf(pod: KubeObject, now: Date, nodes: ReadonlyMap<string, KubeObject>): KubeObject | undefined {
  const containers = podUsage(pod, now.getTime());
  if (!containers || !isSimulatedNode(nodes.get(String((pod['spec'] as Record<string, unknown>)['nodeName'])))) return undefined;
  const m = pod.metadata;
  return {
    kind: 'PodMetrics',
    apiVersion: 'metrics.k8s.io/v1beta1',
    metadata: { name: m.name, namespace: m.namespace, creationTimestamp: formatTime(now), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: formatTime(now),
    window: metricsWindow,
    containers: containers.map((c) => ({ name: c.name, usage: usageList(c) })),
  };
}

function nodeMetricsOf(node: KubeObject, pods: readonly KubeObject[], now: Date): KubeObject | undefined {
  if (!isSimulatedNode(node)) return undefined;
  const m = node.metadata;
  return {
    kind: 'NodeMetrics',
    apiVersion: 'metrics.k8s.io/v1beta1',
    metadata: { name: m.name, creationTimestamp: formatTime(now), ...(m.labels ? { labels: m.labels } : {}) },
    timestamp: formatTime(now),
    window: metricsWindow,
    usage: usageList(nodeUsage(m.name!, pods, now.getTime())),
  };
}

function labelSelectorOf(url: URL): LabelSelector | undefined {
  const text = queryOf(url).get('labelSelector');
  if (!text) return undefined;
  const parsed = parseLabelSelector(text);
  if (isSelectorError(parsed)) throw newBadRequest(parsed.message);
  return parsed;
}

/** The API's answer to one request for `nodes` or `pods` of metrics.k8s.io/v1beta1. */
export async function serveMetrics(request: Request, url: URL, info: RequestInfo, source: MetricsSource): Promise<Response> {
  const gr = { group: metricsGroup, resource: info.resource };
  if (info.subresource || (info.verb !== 'get' && info.verb !== 'list')) throw newMethodNotSupported(gr, info.verb);
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: false, url, userAgent: request.headers.get('user-agent') });
  const now = source.clock.now();
  const nodes = await source.listNodes();
  const byName = new Map(nodes.map((n) => [n.metadata.name!, n]));
  const write = (obj: unknown) => writeObject(choice.serializer, 200, obj, { pretty: choice.pretty });
  const selector = info.verb === 'list' ? labelSelectorOf(url) : undefined;
  const byKey = (a: KubeObject, b: KubeObject) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`);

  if (info.resource === 'nodes') {
    const pods = await source.listPods('');
    if (info.verb === 'get') {
      const node = byName.get(info.name);
      if (!node) throw newNotFound({ group: '', resource: 'nodes' }, info.name);
      const metrics = nodeMetricsOf(node, pods, now);
      if (!metrics) throw newNotFound({ group: metricsGroup, resource: 'nodemetrics' }, info.name);
      return write(metrics);
    }
    const items = nodes.filter((n) => !selector || selector.matches(n.metadata.labels)).sort(byKey).flatMap((n) => nodeMetricsOf(n, pods, now) ?? []);
    return write({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items });
  }

  const pods = await source.listPods(info.namespace);
  if (info.verb === 'get') {
    const pod = pods.find((p) => p.metadata.name === info.name);
    if (!pod) throw newNotFound({ group: '', resource: 'pods' }, info.name);
    const metrics = podMetricsOf(pod, now, byName);
    if (!metrics) throw newNotFound({ group: metricsGroup, resource: 'podmetrics' }, `${info.namespace}/${info.name}`);
    return write(metrics);
  }
  const items = pods.filter((p) => !selector || selector.matches(p.metadata.labels)).sort(byKey).flatMap((p) => podMetricsOf(p, now, byName) ?? []);
  return write({ kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items });
}

/**
 * The ClusterRole metrics-server's manifest installs beside its APIService:
 * reading metrics aggregated into the admin, edit and view roles, so
 * `kubectl top` works for whoever may view a namespace.
 */
export const aggregatedMetricsReader = (): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: {
    name: 'system:aggregated-metrics-reader',
    labels: {
      'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
      'rbac.authorization.k8s.io/aggregate-to-view': 'true',
    },
  },
  rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
} as KubeObject);

/** metrics-server's APIService, as its components.yaml registers it (kube-apiserver then proxies metrics.k8s.io to it). */
export const metricsAPIService = (): KubeObject => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'k8s-app': 'metrics-server' } },
  spec: {
    service: { namespace: 'kube-system', name: 'metrics-server', port: 443 },
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    insecureSkipTLSVerify: true,
    groupPriorityMinimum: 100,
    versionPriority: 100,
  },
} as KubeObject);
