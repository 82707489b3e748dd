/**
 * autoscaling strategies: HorizontalPodAutoscaler defaulting
 * (pkg/apis/autoscaling/v1 and v2 SetDefaults_HorizontalPodAutoscaler).
 * Both versions default minReplicas to 1; v2 also gives a spec without
 * metrics the 80% cpu utilization target, and fills a behavior that is
 * given (only then) with the default scaling rules: scale up by 4 pods or
 * 100% every 15s with no stabilization, scale down by 100% every 15s, the
 * larger change winning. The scale-down window is left unset: the
 * controller's --horizontal-pod-autoscaler-downscale-stabilization (5m)
 * then applies.
 */
import { canonicalQuantity, isQuantityText } from '../../api/quantity';
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

type Rules = Record<string, unknown>;

/** copyHPAScalingRules over the defaults: what the rules give wins, field by field. */
function scalingRules(given: unknown, defaults: Rules): Rules {
  if (!isObject(given)) return defaults;
  const out: Rules = { ...given };
  for (const [field, value] of Object.entries(defaults)) if (out[field] === undefined || out[field] === null) out[field] = value;
  return out;
}

/** Both versions default minReplicas; a v1 body (autoscaling/v1 requests) has no metrics or behavior to default. */
function defaultHorizontalPodAutoscaler(obj: KubeObject): void {
  if (obj.apiVersion === 'autoscaling/v2') {
    withStoredDefaults(obj);
    canonicalMetricValues(obj);
  } else if (isObject(obj['spec'])) obj['spec']['minReplicas'] ??= 1;
}

const metricSources = ['resource', 'containerResource', 'pods', 'object', 'external'];

/** The Quantities of v2 metric targets and current values, stored as they encode (`1024Mi` is `1Gi`, `0.5` is `500m`). */
function canonicalMetricValues(obj: KubeObject): void {
  const lists: [unknown, string][] = [[isObject(obj['spec']) ? obj['spec']['metrics'] : undefined, 'target'], [isObject(obj['status']) ? obj['status']['currentMetrics'] : undefined, 'current']];
  for (const [list, key] of lists) {
    if (!Array.isArray(list)) continue;
    for (const metric of list) {
      if (!isObject(metric)) continue;
      for (const source of metricSources) {
        const values = isObject(metric[source]) ? metric[source][key] : undefined;
        if (!isObject(values)) continue;
        for (const field of ['value', 'averageValue']) if (isQuantityText(values[field])) values[field] = canonicalQuantity(values[field]);
      }
    }
  }
}

/**
 * The v2 defaults, also applied to what storage holds when it is read, as
 * kube-apiserver's codec defaults the storage version on decode: an HPA made
 * through v1 without a CPU target then reads as the 80% target, in both
 * versions (v1's targetCPUUtilizationPercentage: 80).
 */
export function withStoredDefaults(obj: KubeObject): KubeObject {
  const spec = obj['spec'];
  if (!isObject(spec)) return obj;
  spec['minReplicas'] ??= 1;
  if (!Array.isArray(spec['metrics']) || spec['metrics'].length === 0) {
    spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const behavior = spec['behavior'];
  if (isObject(behavior)) {
    behavior['scaleUp'] = scalingRules(behavior['scaleUp'], defaultScaleUpRules());
    behavior['scaleDown'] = scalingRules(behavior['scaleDown'], defaultScaleDownRules());
  }
  return obj;
}

/** HPAScaleUpRules: 4 pods or 100% every 15s, whichever is more, with no stabilization. */
export const defaultScaleUpRules = () => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** HPAScaleDownRules: 100% every 15s; the window is left to the controller's flag. */
export const defaultScaleDownRules = () => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  horizontalpodautoscalers: { defaulter: defaultHorizontalPodAutoscaler },
};
