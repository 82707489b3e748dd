/**
 * The HorizontalPodAutoscaler's replica calculator for Resource metrics
 * (pkg/controller/podautoscaler/replica_calculator.go): from the pods' usage
 * (PodMetrics, in milli-units as the metrics client reads them) and requests,
 * the usage ratio to the target; within the 0.1 tolerance the count stays,
 * otherwise ceil(ratio x ready pods). Pods being deleted or Failed are
 * ignored; Pending pods and cpu samples of pods not yet Ready count as
 * unready, pods without a sample as missing; these are then assumed at 0
 * (scale up) or at the target (scale down), and a change the assumption
 * reverses is dropped.
 */
import { objectsOf, type KubeObject } from '../api/types';
import { specOf, statusOf } from './controllerUtils';
import { containerRequest } from '../simulation/containerResources';

/** --horizontal-pod-autoscaler-tolerance */
export const tolerance = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period */
const cpuInitializationPeriodMs = 300_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay */
const initialReadinessDelayMs = 30_000;

/** One pod's sample: its usage in milli-units, when it was taken and over which window. */
export interface PodMetric {
  value: bigint;
  timestampMs: number;
  windowMs: number;
}

export type PodMetricsInfo = Map<string, PodMetric>;

export class ReplicaCalculationError extends Error {}

/** groupPods: which pods count, which are unready, which lack a sample, which are ignored. */
function groupPods(pods: readonly KubeObject[], metrics: PodMetricsInfo, resource: string, nowMs: number) {
  let readyPodCount = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata.name!;
    const status = statusOf(pod);
    if (pod.metadata.deletionTimestamp || status['phase'] === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (status['phase'] === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const ready = objectsOf(status['conditions']).find((c) => c['type'] === 'Ready');
      const startMs = Date.parse(String(status['startTime'] ?? ''));
      let isUnready: boolean;
      if (!ready || Number.isNaN(startMs)) isUnready = true;
      else {
        const transitionMs = Date.parse(String(ready['lastTransitionTime'] ?? '')) || 0;
        // Within the initialization period a sample counts only if a whole window of it follows the last readiness change.
        if (startMs + cpuInitializationPeriodMs > nowMs) isUnready = ready['status'] === 'False' || metric.timestampMs < transitionMs + metric.windowMs;
        // Later, only a pod that has never been ready is left out.
        else isUnready = ready['status'] === 'False' && startMs + initialReadinessDelayMs > transitionMs;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    readyPodCount++;
  }
  return { readyPodCount, unready, missing, ignored };
}

/** calculatePodRequests: each pod's summed container requests, in milli-units. */
function calculateRequests(pods: readonly KubeObject[], resource: 'cpu' | 'memory'): Map<string, bigint> {
  const requests = new Map<string, bigint>();
  for (const pod of pods) {
    let sum = 0n;
    for (const c of objectsOf(specOf(pod)['containers'])) {
      const r = containerRequest(c, resource);
      if (r === 0n) throw new ReplicaCalculationError(`missing request for ${resource} in container ${String(c['name'])} of Pod ${pod.metadata.name}`);
      // Nanocores and bytes to milli-units.
      sum += resource === 'cpu' ? r / 1_000_000n : r * 1000n;
    }
    requests.set(pod.metadata.name!, sum);
  }
  return requests;
}

/** GetResourceUtilizationRatio: usage over requests, as a percentage and a ratio to the target; the average usage. */
function utilizationRatio(metrics: PodMetricsInfo, requests: Map<string, bigint>, targetUtilization: number) {
  let metricsTotal = 0n;
  let requestsTotal = 0n;
  let entries = 0n;
  for (const [name, metric] of metrics) {
    const request = requests.get(name);
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    entries++;
  }
  if (requestsTotal === 0n) throw new ReplicaCalculationError('no metrics returned matched known pods');
  const utilization = Number((metricsTotal * 100n) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, raw: metricsTotal / entries };
}

export interface ResourceReplicas {
  replicas: number;
  /** The average utilization in percent (Utilization targets only). */
  utilization?: number;
  /** The average usage per pod in milli-units. */
  averageValue: bigint;
}

/**
 * GetResourceReplicas (targetUtilization) or GetRawResourceReplicas (targetAverageMilli): the replica count the pods'
 * usage asks for. Throws ReplicaCalculationError with kube's message.
 */
export function resourceReplicas(
  currentReplicas: number,
  target: { utilization: number } | { averageMilli: bigint },
  resource: 'cpu' | 'memory',
  pods: readonly KubeObject[],
  sampled: PodMetricsInfo,
  nowMs: number,
): ResourceReplicas {
  if (sampled.size === 0) throw new ReplicaCalculationError(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  if (pods.length === 0) throw new ReplicaCalculationError('no pods returned by selector while calculating replica count');
  const metrics = new Map(sampled);
  const { readyPodCount, unready, missing, ignored } = groupPods(pods, metrics, resource, nowMs);
  for (const name of [...ignored, ...unready]) metrics.delete(name);
  if (metrics.size === 0) throw new ReplicaCalculationError('did not receive metrics for targeted pods (pods might be unready)');

  if ('utilization' in target) {
    const requests = calculateRequests(pods, resource);
    const { ratio, utilization, raw } = utilizationRatio(metrics, requests, target.utilization);
    const result = (replicas: number) => ({ replicas, utilization, averageValue: raw });
    const scaleUpWithUnready = unready.size > 0 && ratio > 1;
    if (!scaleUpWithUnready && missing.size === 0) {
      return result(Math.abs(1 - ratio) <= tolerance ? currentReplicas : Math.ceil(ratio * readyPodCount));
    }
    if (missing.size > 0) {
      // Missing pods are assumed at the target (or at their request) when scaling down, idle when scaling up.
      const fallback = BigInt(Math.max(100, target.utilization));
      for (const name of missing) {
        if (ratio < 1) metrics.set(name, { value: ((requests.get(name) ?? 0n) * fallback) / 100n, timestampMs: nowMs, windowMs: 0 });
        else if (ratio > 1) metrics.set(name, { value: 0n, timestampMs: nowMs, windowMs: 0 });
      }
    }
    if (scaleUpWithUnready) for (const name of unready) metrics.set(name, { value: 0n, timestampMs: nowMs, windowMs: 0 });
    const next = utilizationRatio(metrics, requests, target.utilization).ratio;
    if (Math.abs(1 - next) <= tolerance || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return result(currentReplicas);
    const replicas = Math.ceil(next * metrics.size);
    if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas)) return result(currentReplicas);
    return result(replicas);
  }

  // calcPlainMetricReplicas: the average usage against the target value.
  const usageOf = (m: PodMetricsInfo) => {
    let total = 0n;
    for (const v of m.values()) total += v.value;
    return { ratio: Number(total) / m.size / Number(target.averageMilli), average: total / BigInt(m.size) };
  };
  const { ratio, average } = usageOf(metrics);
  const result = (replicas: number) => ({ replicas, averageValue: average });
  const scaleUpWithUnready = unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && missing.size === 0) {
    return result(Math.abs(1 - ratio) <= tolerance ? currentReplicas : Math.ceil(ratio * readyPodCount));
  }
  for (const name of missing) {
    if (ratio < 1) metrics.set(name, { value: target.averageMilli, timestampMs: nowMs, windowMs: 0 });
    else metrics.set(name, { value: 0n, timestampMs: nowMs, windowMs: 0 });
  }
  if (scaleUpWithUnready) for (const name of unready) metrics.set(name, { value: 0n, timestampMs: nowMs, windowMs: 0 });
  const next = usageOf(metrics).ratio;
  if (Math.abs(1 - next) <= tolerance || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return result(currentReplicas);
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas)) return result(currentReplicas);
  return result(replicas);
}
