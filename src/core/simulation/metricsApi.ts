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
import type { ResourceType, SchemaObject } from '../registry/types';
import type { Clock } from '../util/clock';
import { metricsWindow, nodeUsage, podUsage, usageList } from './metrics';
import { isSimulatedNode } from './nodes';

export const metricsGroup = 'metrics.k8s.io';
/** The APIService's groupPriorityMinimum: after every built-in group. */
export const metricsGroupPriority = 100;

const definitionPrefix = 'io.k8s.metrics.pkg.apis.metrics.v1beta1';

const metricsResource = (kind: string, resource: string, singular: string, scope: 'Cluster' | 'Namespaced'): ResourceType => ({
  group: metricsGroup,
  version: 'v1beta1',
  kind,
  resource,
  singular,
  scope,
  verbs: ['get', 'list'],
  subresources: [],
  definition: `${definitionPrefix}.${kind}`,
  listKind: `${kind}List`,
});

export const nodeMetricsResource = metricsResource('NodeMetrics', 'nodes', 'node', 'Cluster');
export const podMetricsResource = metricsResource('PodMetrics', 'pods', 'pod', 'Namespaced');

const ref = (name: string): SchemaObject => ({ $ref: `#/definitions/${name}` });
const quantity = ref('io.k8s.apimachinery.pkg.api.resource.Quantity');
const typeMeta = {
  apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
  kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
};
const usage: SchemaObject = { type: 'object', description: 'The memory and CPU usage.', additionalProperties: quantity };
const gvk = (kind: string) => [{ group: metricsGroup, version: 'v1beta1', kind }];
const list = (kind: string): SchemaObject => ({
  description: `${kind}List is a list of ${kind}.`,
  type: 'object',
  required: ['items'],
  properties: { ...typeMeta, metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta'), items: { type: 'array', items: ref(`${definitionPrefix}.${kind}`) } },
  'x-kubernetes-group-version-kind': gvk(`${kind}List`),
});

export const metricsDefinitions: Record<string, SchemaObject> = {
  [`${definitionPrefix}.NodeMetrics`]: {
    description: 'NodeMetrics sets resource usage metrics of a node.',
    type: 'object',
    required: ['timestamp', 'window', 'usage'],
    properties: {
      ...typeMeta,
      metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
      timestamp: { type: 'string', format: 'date-time', description: 'The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].' },
      window: { type: 'string' },
      usage,
    },
    'x-kubernetes-group-version-kind': gvk('NodeMetrics'),
  },
  [`${definitionPrefix}.NodeMetricsList`]: list('NodeMetrics'),
  [`${definitionPrefix}.PodMetrics`]: {
    description: 'PodMetrics sets resource usage metrics of a pod.',
    type: 'object',
    required: ['timestamp', 'window', 'containers'],
    properties: {
      ...typeMeta,
      metadata: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'),
      timestamp: { type: 'string', format: 'date-time', description: 'The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].' },
      window: { type: 'string' },
      containers: { type: 'array', description: 'Metrics for all containers are collected within the same time window.', items: ref(`${definitionPrefix}.ContainerMetrics`) },
    },
    'x-kubernetes-group-version-kind': gvk('PodMetrics'),
  },
  [`${definitionPrefix}.PodMetricsList`]: list('PodMetrics'),
  [`${definitionPrefix}.ContainerMetrics`]: {
    description: 'ContainerMetrics sets resource usage metrics of a container.',
    type: 'object',
    required: ['name', 'usage'],
    properties: { name: { type: 'string', description: 'Container name corresponding to the one from pod.spec.containers.' }, usage },
  },
};

/** What the metrics come from: the cluster's nodes and pods as the API server stores them. */
export interface MetricsSource {
  listNodes(): Promise<KubeObject[]>;
  listPods(namespace: string): Promise<KubeObject[]>;
  clock: Clock;
}

/** One PodMetrics; undefined when metrics-server would have no sample of the pod. */
export function podMetricsOf(pod: KubeObject, now: Date, nodes: ReadonlyMap<string, KubeObject>): KubeObject | undefined {
  const containers = podUsage(pod);
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
    usage: usageList(nodeUsage(m.name!, pods)),
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
