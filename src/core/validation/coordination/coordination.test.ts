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

describe('LeaseCandidate', () => {
  const g = 'coordination.k8s.io';
  it('lease name, semantic versions, strategy', () => {
    const spec = { leaseName: 'kube-scheduler', binaryVersion: '1.36.0', emulationVersion: '1.35.0', strategy: 'OldestEmulationVersion' };
    expect(errorsOf(g, 'leasecandidates', { spec })).toEqual([]);
    expect(errorsOf(g, 'leasecandidates', { spec: { binaryVersion: '1.34.0', emulationVersion: 'v1', strategy: 'Newest' } })).toEqual([
      'spec.leaseName: Required value',
      'spec.emulationVersion: Invalid value: "v1": must be a valid semantic version',
      'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
    ]);
    expect(errorsOf(g, 'leasecandidates', { spec: { ...spec, emulationVersion: undefined } })).toEqual([
      "spec.emulationVersion: Required value: must be specified when `strategy` is 'OldestEmulationVersion'",
    ]);
    expect(errorsOf(g, 'leasecandidates', { spec: { ...spec, leaseName: 'other' } }, { spec })).toEqual(['spec.leaseName: Invalid value: "other": field is immutable']);
  });
});
