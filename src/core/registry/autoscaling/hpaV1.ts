/**
 * autoscaling/v1 HorizontalPodAutoscalers are stored as autoscaling/v2
 * (pkg/apis/autoscaling/v1 conversion). v1 carries only the CPU utilization
 * target; every other metric, the behavior, the conditions and the current
 * metrics travel in annotations so that an object read and written back
 * through v1 keeps them:
 *   autoscaling.alpha.kubernetes.io/metrics          (spec.metrics, v1 MetricSpec layout)
 *   autoscaling.alpha.kubernetes.io/behavior         (spec.behavior)
 *   autoscaling.alpha.kubernetes.io/conditions       (status.conditions)
 *   autoscaling.alpha.kubernetes.io/current-metrics  (status.currentMetrics, v1 MetricStatus layout)
 * The CPU metric read back from targetCPUUtilizationPercentage comes after
 * the annotated ones, as kube-apiserver orders them.
 */
import type { KubeObject } from '../../api/types';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const metricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';

const sourceField: Record<string, string> = { Resource: 'resource', ContainerResource: 'containerResource', Pods: 'pods', Object: 'object', External: 'external' };

function defined(o: Obj): Obj {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A v2 MetricSpec in the v1 (v2beta1-like) layout of the metrics annotation. */
function metricSpecToV1(m: Obj): Obj {
  const type = String(m['type']);
  const src = isObj(m[sourceField[type] ?? '']) ? (m[sourceField[type]!] as Obj) : {};
  const target = isObj(src['target']) ? src['target'] : {};
  const metric = isObj(src['metric']) ? src['metric'] : {};
  switch (type) {
    case 'Resource':
    case 'ContainerResource':
      return { type, [sourceField[type]!]: defined({ name: src['name'], container: src['container'], targetAverageUtilization: target['averageUtilization'], targetAverageValue: target['averageValue'] }) };
    case 'Pods':
      return { type, pods: defined({ metricName: metric['name'], selector: metric['selector'], targetAverageValue: target['averageValue'] }) };
    case 'Object':
      return { type, object: defined({ target: src['describedObject'], metricName: metric['name'], selector: metric['selector'], targetValue: target['value'], averageValue: target['averageValue'] }) };
    case 'External':
      return { type, external: defined({ metricName: metric['name'], metricSelector: metric['selector'], targetValue: target['value'], targetAverageValue: target['averageValue'] }) };
    default:
      return m;
  }
}

function target(utilization: unknown, average: unknown, value: unknown): Obj {
  if (utilization !== undefined) return { type: 'Utilization', averageUtilization: utilization };
  if (average !== undefined) return { type: 'AverageValue', averageValue: average };
  return { type: 'Value', value };
}

function identifier(name: unknown, selector: unknown): Obj {
  return defined({ name, selector });
}

/** A metric of the v1 annotation as a v2 MetricSpec. */
export function metricSpecFromV1(m: Obj): Obj {
  const type = String(m['type']);
  const src = isObj(m[sourceField[type] ?? '']) ? (m[sourceField[type]!] as Obj) : {};
  switch (type) {
    case 'Resource':
    case 'ContainerResource':
      return { type, [sourceField[type]!]: defined({ name: src['name'], container: src['container'], target: target(src['targetAverageUtilization'], src['targetAverageValue'], undefined) }) };
    case 'Pods':
      return { type, pods: { metric: identifier(src['metricName'], src['selector']), target: target(undefined, src['targetAverageValue'], undefined) } };
    case 'Object':
      return { type, object: { describedObject: src['target'], metric: identifier(src['metricName'], src['selector']), target: target(undefined, src['averageValue'], src['targetValue']) } };
    case 'External':
      return { type, external: { metric: identifier(src['metricName'], src['metricSelector']), target: target(undefined, src['targetAverageValue'], src['targetValue']) } };
    default:
      return m;
  }
}

/** A v2 MetricStatus in the v1 layout of the current-metrics annotation. */
function metricStatusToV1(m: Obj): Obj {
  const type = String(m['type']);
  const src = isObj(m[sourceField[type] ?? '']) ? (m[sourceField[type]!] as Obj) : {};
  const current = isObj(src['current']) ? src['current'] : {};
  const metric = isObj(src['metric']) ? src['metric'] : {};
  switch (type) {
    case 'Resource':
    case 'ContainerResource':
      return { type, [sourceField[type]!]: defined({ name: src['name'], container: src['container'], currentAverageUtilization: current['averageUtilization'], currentAverageValue: current['averageValue'] }) };
    case 'Pods':
      return { type, pods: defined({ metricName: metric['name'], selector: metric['selector'], currentAverageValue: current['averageValue'] }) };
    case 'Object':
      return { type, object: defined({ target: src['describedObject'], metricName: metric['name'], selector: metric['selector'], currentValue: current['value'], averageValue: current['averageValue'] }) };
    case 'External':
      return { type, external: defined({ metricName: metric['name'], metricSelector: metric['selector'], currentValue: current['value'], currentAverageValue: current['averageValue'] }) };
    default:
      return m;
  }
}

function metricStatusFromV1(m: Obj): Obj {
  const type = String(m['type']);
  const src = isObj(m[sourceField[type] ?? '']) ? (m[sourceField[type]!] as Obj) : {};
  switch (type) {
    case 'Resource':
    case 'ContainerResource':
      return { type, [sourceField[type]!]: defined({ name: src['name'], container: src['container'], current: defined({ averageUtilization: src['currentAverageUtilization'], averageValue: src['currentAverageValue'] }) }) };
    case 'Pods':
      return { type, pods: { metric: identifier(src['metricName'], src['selector']), current: defined({ averageValue: src['currentAverageValue'] }) } };
    case 'Object':
      return { type, object: { describedObject: src['target'], metric: identifier(src['metricName'], src['selector']), current: defined({ value: src['currentValue'], averageValue: src['averageValue'] }) } };
    case 'External':
      return { type, external: { metric: identifier(src['metricName'], src['metricSelector']), current: defined({ value: src['currentValue'], averageValue: src['currentAverageValue'] }) } };
    default:
      return m;
  }
}

const isCpuUtilization = (m: unknown): m is Obj =>
  isObj(m) && m['type'] === 'Resource' && isObj(m['resource']) && m['resource']['name'] === 'cpu' && isObj(m['resource']['target']) && m['resource']['target']['averageUtilization'] !== undefined;

/** The stored (v2) object as autoscaling/v1 serves it; one already in the v1 layout is left alone. */
export function hpaToV1(obj: KubeObject): KubeObject {
  const spec = isObj(obj['spec']) ? obj['spec'] : {};
  // Written in the v1 layout before storage converted (only v1 has this field).
  if (spec['targetCPUUtilizationPercentage'] !== undefined) return obj;
  const metrics = Array.isArray(spec['metrics']) ? (spec['metrics'] as unknown[]).filter(isObj) : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  if (others.length) annotations[metricsAnnotation] = JSON.stringify(others.map(metricSpecToV1));
  if (spec['behavior'] !== undefined) annotations[behaviorAnnotation] = JSON.stringify(spec['behavior']);
  const status = isObj(obj['status']) ? obj['status'] : undefined;
  const current = Array.isArray(status?.['currentMetrics']) ? (status!['currentMetrics'] as unknown[]).filter(isObj) : [];
  if (current.length) annotations[currentMetricsAnnotation] = JSON.stringify(current.map(metricStatusToV1));
  if (Array.isArray(status?.['conditions']) && (status!['conditions'] as unknown[]).length) annotations[conditionsAnnotation] = JSON.stringify(status!['conditions']);
  const cpuCurrent = current.find((m) => m['type'] === 'Resource' && isObj(m['resource']) && m['resource']['name'] === 'cpu');
  const out: Obj = {
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
    metadata: { ...obj.metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: defined({
      scaleTargetRef: spec['scaleTargetRef'], minReplicas: spec['minReplicas'], maxReplicas: spec['maxReplicas'],
      targetCPUUtilizationPercentage: cpu ? ((cpu['resource'] as Obj)['target'] as Obj)['averageUtilization'] : undefined,
    }),
  };
  if (status) {
    out['status'] = defined({
      observedGeneration: status['observedGeneration'], lastScaleTime: status['lastScaleTime'], currentReplicas: status['currentReplicas'] ?? 0, desiredReplicas: status['desiredReplicas'] ?? 0,
      currentCPUUtilizationPercentage: cpuCurrent && isObj(cpuCurrent['resource']) && isObj(cpuCurrent['resource']['current']) ? cpuCurrent['resource']['current']['averageUtilization'] : undefined,
    });
  }
  return out as KubeObject;
}

function parseAnnotation(annotations: Record<string, string>, key: string): unknown {
  const raw = annotations[key];
  delete annotations[key];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** An autoscaling/v1 object in the v2 layout it is stored in. */
export function hpaFromV1(obj: KubeObject): KubeObject {
  const spec = isObj(obj['spec']) ? obj['spec'] : {};
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  const others = parseAnnotation(annotations, metricsAnnotation);
  const behavior = parseAnnotation(annotations, behaviorAnnotation);
  const currentOthers = parseAnnotation(annotations, currentMetricsAnnotation);
  const conditions = parseAnnotation(annotations, conditionsAnnotation);
  const metrics = (Array.isArray(others) ? others.filter(isObj).map(metricSpecFromV1) : []);
  if (spec['targetCPUUtilizationPercentage'] !== undefined) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec['targetCPUUtilizationPercentage'] } } });
  }
  const metadata = { ...obj.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  const out: Obj = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata,
    spec: defined({ scaleTargetRef: spec['scaleTargetRef'], minReplicas: spec['minReplicas'], maxReplicas: spec['maxReplicas'], metrics: metrics.length ? metrics : undefined, behavior }),
  };
  const status = isObj(obj['status']) ? obj['status'] : undefined;
  if (status) {
    const currentMetrics = Array.isArray(currentOthers) ? currentOthers.filter(isObj).map(metricStatusFromV1) : [];
    if (!currentMetrics.some((m) => m['type'] === 'Resource' && isObj(m['resource']) && m['resource']['name'] === 'cpu') && status['currentCPUUtilizationPercentage'] !== undefined) {
      currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status['currentCPUUtilizationPercentage'] } } });
    }
    out['status'] = defined({
      observedGeneration: status['observedGeneration'], lastScaleTime: status['lastScaleTime'], currentReplicas: status['currentReplicas'], desiredReplicas: status['desiredReplicas'],
      currentMetrics: currentMetrics.length ? currentMetrics : undefined, conditions: Array.isArray(conditions) ? conditions : undefined,
    });
  }
  return out as KubeObject;
}
