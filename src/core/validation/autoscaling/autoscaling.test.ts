/** HorizontalPodAutoscaler validation (v2, and v1 read through its conversion) as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const v2 = (spec: Record<string, unknown>) => ({ apiVersion: 'autoscaling/v2', spec: { scaleTargetRef: ref, maxReplicas: 3, ...spec } });
const v1 = (spec: Record<string, unknown>) => ({ apiVersion: 'autoscaling/v1', spec: { scaleTargetRef: ref, maxReplicas: 3, ...spec } });
const cpu = (target: Record<string, unknown>) => ({ type: 'Resource', resource: { name: 'cpu', target } });

describe('HorizontalPodAutoscaler', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid v2', v2({ minReplicas: 1, metrics: [cpu({ type: 'Utilization', averageUtilization: 50 })] }), []],
    ['valid v1', v1({ minReplicas: 1, targetCPUUtilizationPercentage: 50 }), []],
    ['minReplicas 0 (v1)', v1({ minReplicas: 0 }), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1']],
    ['max below min, no target', { apiVersion: 'autoscaling/v2', spec: { minReplicas: 5, maxReplicas: 2 } }, [
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
      'spec.scaleTargetRef.kind: Required value',
      'spec.scaleTargetRef.name: Required value',
    ]],
    ['v1 CPU target 0 is spec.metrics[0]', v1({ targetCPUUtilizationPercentage: 0 }), ['spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0']],
    ['metric type without its source, another source too', v2({ metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } } }] }), [
      'spec.metrics[0].pods: Required value: must populate information for the given metric source',
    ]],
    ['resource metric with both targets and a bad type', v2({ metrics: [cpu({ type: 'Percent', averageUtilization: 5, averageValue: '1' })] }), [
      'spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
      'spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization',
    ]],
    ['unknown metric type', v2({ metrics: [{ type: 'Magic' }] }), [
      'spec.metrics[0].type: Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[0].type: Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]],
    ['behavior', v2({ behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Any', policies: [{ type: 'Nodes', value: 0, periodSeconds: 2000 }] }, scaleDown: { policies: [] } } }), [
      'spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600',
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Any": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800',
      'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
    ]],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf('autoscaling', 'horizontalpodautoscalers', obj)).toEqual(want));

  it('updates are validated like creates; status writes check only the replica counts', () => {
    expect(errorsOf('autoscaling', 'horizontalpodautoscalers', v2({ minReplicas: 0 }), v2({}))).toEqual(['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1']);
    expect(errorsOf('autoscaling', 'horizontalpodautoscalers', { ...v2({}), status: { currentReplicas: -1 } }, v2({}), 'status')).toEqual([
      'status.currentReplicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});
