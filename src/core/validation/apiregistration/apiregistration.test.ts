/** APIService validation as a table of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'apiregistration.k8s.io';
const svc = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, ...spec } });

describe('APIService', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['local', svc('v1beta1.metrics.k8s.io', {}), []],
    ['backed by a service', svc('v1beta1.metrics.k8s.io', { service: { namespace: 'kube-system', name: 'metrics-server' }, insecureSkipTLSVerify: true }), []],
    ['name not version.group', svc('metrics', {}), ['metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"']],
    ['priorities out of range, local with insecure', svc('v1beta1.metrics.k8s.io', { groupPriorityMinimum: 0, versionPriority: 2000, insecureSkipTLSVerify: true }), [
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 2000: must be positive and less than 1000',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]],
    ['service without name and namespace', svc('v1beta1.metrics.k8s.io', { service: {} }), ['spec.service.namespace: Required value', 'spec.service.name: Required value']],
  ];
  it.each(cases)('%s', (_n, obj, want) => expect(errorsOf(g, 'apiservices', obj)).toEqual(want));
});
