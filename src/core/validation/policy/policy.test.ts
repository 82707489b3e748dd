/** PodDisruptionBudget validation as a table of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

describe('PodDisruptionBudget', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['valid', { spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } } }, []],
    ['both set', { spec: { minAvailable: 1, maxUnavailable: 1 } }, ['spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set']],
    ['negative and over 100%', { spec: { minAvailable: -1 } }, ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']],
    ['over 100%', { spec: { maxUnavailable: '150%' } }, ['spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%']],
    ['not a percent', { spec: { maxUnavailable: 'half' } }, [
      `spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    ]],
    ['eviction policy', { spec: { unhealthyPodEvictionPolicy: 'Never' } }, ['spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"']],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf('policy', 'poddisruptionbudgets', obj)).toEqual(want));
});
