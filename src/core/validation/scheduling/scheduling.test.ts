/** PriorityClass validation as a table of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'scheduling.k8s.io';

describe('PriorityClass', () => {
  it('user values stay below the system range; system- names are reserved', () => {
    expect(errorsOf(g, 'priorityclasses', { value: 1000 })).toEqual([]);
    expect(errorsOf(g, 'priorityclasses', { value: 2000000000 })).toEqual(['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
    expect(errorsOf(g, 'priorityclasses', { metadata: { name: 'system-mine' }, value: 1 })).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    expect(errorsOf(g, 'priorityclasses', { value: 1, preemptionPolicy: 'Sometimes' })).toEqual(['preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"']);
  });

  it('value and preemptionPolicy are fixed', () => {
    expect(errorsOf(g, 'priorityclasses', { value: 2, preemptionPolicy: 'Never' }, { value: 1 })).toEqual([
      'value: Forbidden: may not be changed in an update.',
      'preemptionPolicy: Invalid value: "Never": field is immutable',
    ]);
  });
});
