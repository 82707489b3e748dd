/** Lease validation as a table of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

describe('Lease', () => {
  it('durations are positive, transitions not negative, preferredHolder needs a strategy', () => {
    expect(errorsOf('coordination.k8s.io', 'leases', { spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 } })).toEqual([]);
    expect(errorsOf('coordination.k8s.io', 'leases', { spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'b' } })).toEqual([
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]);
  });
});
