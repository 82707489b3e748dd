/**
 * metrics.k8s.io/v1beta1 as metrics-server's APIService registers it
 * (v1beta1.metrics.k8s.io, groupPriorityMinimum 100): NodeMetrics `nodes`
 * and PodMetrics `pods`, get and list only. Only the types and schemas, kept
 * in the core so discovery needs no simulation code; simulation/metricsApi.ts
 * answers the requests.
 */
import type { ResourceType, SchemaObject } from './types';

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
