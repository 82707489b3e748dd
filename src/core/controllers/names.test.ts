import { describe, expect, it } from 'vitest';
import { controllerEnabled, parseControllers } from './names';

describe('--controllers as kube-controller-manager reads it', () => {
  it('* turns on the defaults; bootstrap-signer and token-cleaner are opt-in', () => {
    expect(controllerEnabled('deployment-controller')).toBe(true);
    expect(controllerEnabled('bootstrap-signer-controller')).toBe(false);
    expect(controllerEnabled('bootstrap-signer-controller', ['*', 'bootstrapsigner'])).toBe(true);
  });

  it('without * nothing runs unless named; the first entry naming a controller wins', () => {
    expect(controllerEnabled('namespace-controller', ['garbage-collector-controller'])).toBe(false);
    expect(controllerEnabled('garbage-collector-controller', ['garbagecollector'])).toBe(true);
    expect(controllerEnabled('replicaset-controller', ['-replicaset', '*'])).toBe(false);
    expect(controllerEnabled('replicaset-controller', ['replicaset-controller', '-replicaset-controller'])).toBe(true);
  });

  it('unknown names are refused with kube-controller-manager\'s message', () => {
    expect(() => parseControllers(['*', 'kubelet'])).toThrow('"kubelet" is not in the list of known controllers');
  });
});
