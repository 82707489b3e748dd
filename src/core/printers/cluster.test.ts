import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');

function cells(group: string, resource: string, obj: KubeObject) {
  return toTable([obj], { group, version: 'v1', resource, kind: obj.kind, now }).rows[0].cells;
}
const obj = (kind: string, apiVersion: string, name: string, body: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion, kind, metadata: { name, creationTimestamp: '2025-06-01T11:00:00Z', ...meta }, ...body,
});

const cpu = (target: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } });

describe('cluster and policy printers', () => {
  it.each([
    ['autoscaling', 'horizontalpodautoscalers', ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']],
    ['policy', 'poddisruptionbudgets', ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']],
    ['scheduling.k8s.io', 'priorityclasses', ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']],
    ['coordination.k8s.io', 'leases', ['Name', 'Holder', 'Age']],
    ['certificates.k8s.io', 'certificatesigningrequests', ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']],
    ['admissionregistration.k8s.io', 'validatingwebhookconfigurations', ['Name', 'Webhooks', 'Age']],
    ['admissionregistration.k8s.io', 'validatingadmissionpolicies', ['Name', 'Validations', 'ParamKind', 'Age']],
    ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings', ['Name', 'PolicyName', 'ParamRef', 'Age']],
    ['flowcontrol.apiserver.k8s.io', 'flowschemas', ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']],
    ['node.k8s.io', 'runtimeclasses', ['Name', 'Handler', 'Age']],
    ['apiregistration.k8s.io', 'apiservices', ['Name', 'Service', 'Available', 'Age']],
  ])('%s/%s columns', (group, resource, names) => {
    expect(tableColumnsFor(group, resource).map((c) => c.name)).toEqual(names);
  });

  it.each<[string, string, string, KubeObject, unknown[]]>([
    [
      'autoscaling/v2 HPA with CPU and memory metrics', 'autoscaling', 'horizontalpodautoscalers',
      obj('HorizontalPodAutoscaler', 'autoscaling/v2', 'web', {
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10,
          metrics: [cpu(80), { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }],
        },
        status: {
          currentReplicas: 3, desiredReplicas: 3,
          currentMetrics: [
            { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45, averageValue: '90m' } } },
            { type: 'Resource', resource: { name: 'memory', current: { averageValue: '262144Ki' } } },
          ],
        },
      }),
      ['web', 'Deployment/web', 'cpu: 45%/80%, memory: 256Mi/500Mi', '2', 10, 3, '60m'],
    ],
    [
      'HPA before the first metrics arrive', 'autoscaling', 'horizontalpodautoscalers',
      obj('HorizontalPodAutoscaler', 'autoscaling/v2', 'api', { spec: { scaleTargetRef: { kind: 'Deployment', name: 'api' }, maxReplicas: 5, metrics: [cpu(50)] }, status: { currentReplicas: 0 } }),
      ['api', 'Deployment/api', 'cpu: <unknown>/50%', '<unset>', 5, 0, '60m'],
    ],
    [
      'HPA with more than two metrics of every kind', 'autoscaling', 'horizontalpodautoscalers',
      obj('HorizontalPodAutoscaler', 'autoscaling/v2', 'q', {
        spec: {
          scaleTargetRef: { kind: 'StatefulSet', name: 'q' }, minReplicas: 1, maxReplicas: 4,
          metrics: [
            { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
            { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
            { type: 'Object', object: { metric: { name: 'hits' }, target: { type: 'Value', value: '2k' } } },
          ],
        },
        status: { currentReplicas: 1, currentMetrics: [{ type: 'Pods', pods: { current: { averageValue: '500' } } }] },
      }),
      ['q', 'StatefulSet/q', '500/1k, <unknown>/30 (avg) + 1 more...', '1', 4, 1, '60m'],
    ],
    [
      'autoscaling/v1 HPA reads its CPU target', 'autoscaling', 'horizontalpodautoscalers',
      obj('HorizontalPodAutoscaler', 'autoscaling/v1', 'v1', {
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
        status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 12 },
      }),
      ['v1', 'Deployment/web', 'cpu: 12%/70%', '1', 3, 2, '60m'],
    ],
    [
      'HPA without metrics', 'autoscaling', 'horizontalpodautoscalers',
      obj('HorizontalPodAutoscaler', 'autoscaling/v2', 'none', { spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3, metrics: [] }, status: {} }),
      ['none', 'Deployment/x', '<none>', '<unset>', 3, 0, '60m'],
    ],
    [
      'PDB with minAvailable', 'policy', 'poddisruptionbudgets',
      obj('PodDisruptionBudget', 'policy/v1', 'web', { spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } }, status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 } }),
      ['web', '2', 'N/A', 1, '60m'],
    ],
    [
      'PDB with a percentage maxUnavailable', 'policy', 'poddisruptionbudgets',
      obj('PodDisruptionBudget', 'policy/v1', 'zk', { spec: { maxUnavailable: '25%' }, status: {} }),
      ['zk', 'N/A', '25%', 0, '60m'],
    ],
    [
      'priority class', 'scheduling.k8s.io', 'priorityclasses',
      obj('PriorityClass', 'scheduling.k8s.io/v1', 'system-cluster-critical', { value: 2000000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority', description: 'critical' }),
      ['system-cluster-critical', 2000000000, false, '60m', 'PreemptLowerPriority'],
    ],
    [
      'lease', 'coordination.k8s.io', 'leases',
      obj('Lease', 'coordination.k8s.io/v1', 'kube-controller-manager', { spec: { holderIdentity: 'cp-1_4f2a', leaseDurationSeconds: 15 } }, { namespace: 'kube-system' }),
      ['kube-controller-manager', 'cp-1_4f2a', '60m'],
    ],
    [
      'approved and issued CSR', 'certificates.k8s.io', 'certificatesigningrequests',
      obj('CertificateSigningRequest', 'certificates.k8s.io/v1', 'csr-abc', {
        spec: { signerName: 'kubernetes.io/kube-apiserver-client', username: 'system:admin', expirationSeconds: 86400, request: 'LS0t', usages: ['client auth'] },
        status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0tLS1CRUdJTg==' },
      }),
      ['csr-abc', '60m', 'kubernetes.io/kube-apiserver-client', 'system:admin', '24h', 'Approved,Issued'],
    ],
    [
      'pending CSR', 'certificates.k8s.io', 'certificatesigningrequests',
      obj('CertificateSigningRequest', 'certificates.k8s.io/v1', 'csr-new', { spec: { signerName: 'kubernetes.io/kubelet-serving', username: 'system:node:n1' }, status: {} }),
      ['csr-new', '60m', 'kubernetes.io/kubelet-serving', 'system:node:n1', '<none>', 'Pending'],
    ],
    [
      'validating webhook configuration', 'admissionregistration.k8s.io', 'validatingwebhookconfigurations',
      obj('ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/v1', 'policy', { webhooks: [{ name: 'a.example.com' }, { name: 'b.example.com' }] }),
      ['policy', 2, '60m'],
    ],
    [
      'validating admission policy with a param kind', 'admissionregistration.k8s.io', 'validatingadmissionpolicies',
      obj('ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v1', 'replicas', { spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.replicas <= params.data.max' }] } }),
      ['replicas', 1, 'v1/ConfigMap', '60m'],
    ],
    [
      'policy binding with a namespaced param', 'admissionregistration.k8s.io', 'validatingadmissionpolicybindings',
      obj('ValidatingAdmissionPolicyBinding', 'admissionregistration.k8s.io/v1', 'replicas-binding', { spec: { policyName: 'replicas', paramRef: { name: 'limits', namespace: 'prod' }, validationActions: ['Deny'] } }),
      ['replicas-binding', 'replicas', 'prod/limits', '60m'],
    ],
    [
      'policy binding with a param name only', 'admissionregistration.k8s.io', 'validatingadmissionpolicybindings',
      obj('ValidatingAdmissionPolicyBinding', 'admissionregistration.k8s.io/v1', 'b', { spec: { policyName: 'p', paramRef: { name: 'limits' } } }),
      ['b', 'p', '*/limits', '60m'],
    ],
    [
      'policy binding without params', 'admissionregistration.k8s.io', 'validatingadmissionpolicybindings',
      obj('ValidatingAdmissionPolicyBinding', 'admissionregistration.k8s.io/v1', 'c', { spec: { policyName: 'p' } }),
      ['c', 'p', '<unset>', '60m'],
    ],
    [
      'limited priority level', 'flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations',
      obj('PriorityLevelConfiguration', 'flowcontrol.apiserver.k8s.io/v1', 'workload-low', { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } } }),
      ['workload-low', 'Limited', 100, 128, 6, 50, '60m'],
    ],
    [
      'exempt priority level', 'flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations',
      obj('PriorityLevelConfiguration', 'flowcontrol.apiserver.k8s.io/v1', 'exempt', { spec: { type: 'Exempt', exempt: {} } }),
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '60m'],
    ],
    ['runtime class', 'node.k8s.io', 'runtimeclasses', obj('RuntimeClass', 'node.k8s.io/v1', 'gvisor', { handler: 'runsc' }), ['gvisor', 'runsc', '60m']],
    [
      'allocated and reserved resource claim', 'resource.k8s.io', 'resourceclaims',
      obj('ResourceClaim', 'resource.k8s.io/v1', 'gpu', { spec: {}, status: { allocation: { devices: {} }, reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }] } }),
      ['gpu', 'allocated,reserved', '60m'],
    ],
    [
      'deleted pending resource claim', 'resource.k8s.io', 'resourceclaims',
      obj('ResourceClaim', 'resource.k8s.io/v1', 'gone', { spec: {}, status: {} }, { deletionTimestamp: '2025-06-01T11:59:00Z' }),
      ['gone', 'deleted', '60m'],
    ],
  ])('%s', (_name, group, resource, object, expected) => {
    expect(cells(group, resource, object)).toEqual(expected);
  });

  it('flow schema lists print in matching order, then by name', () => {
    const fs = (name: string, precedence: number, dangling?: string): KubeObject =>
      obj('FlowSchema', 'flowcontrol.apiserver.k8s.io/v1', name, {
        spec: { priorityLevelConfiguration: { name: 'workload-high' }, matchingPrecedence: precedence, distinguisherMethod: precedence > 1 ? { type: 'ByUser' } : undefined },
        status: dangling ? { conditions: [{ type: 'Dangling', status: dangling }] } : {},
      });
    const table = toTable([fs('service-accounts', 9000, 'False'), fs('exempt', 1, 'False'), fs('b-system', 500), fs('a-system', 500)], {
      group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', now, listMeta: { resourceVersion: '5' },
    });
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['exempt', 'workload-high', 1, '<none>', '60m', 'False'],
      ['a-system', 'workload-high', 500, 'ByUser', '60m', '?'],
      ['b-system', 'workload-high', 500, 'ByUser', '60m', '?'],
      ['service-accounts', 'workload-high', 9000, 'ByUser', '60m', 'False'],
    ]);
  });

  describe('apiservices', () => {
    const apiService = (name: string, spec: Record<string, unknown>, conditions?: unknown[]) =>
      obj('APIService', 'apiregistration.k8s.io/v1', name, { spec, ...(conditions ? { status: { conditions } } : {}) });
    const available = (status: string, reason?: string) => ({ type: 'Available', status, ...(reason ? { reason } : {}) });

    it('describes the columns as kube-aggregator does', () => {
      const columns = tableColumnsFor('apiregistration.k8s.io', 'apiservices');
      expect(columns.map((c) => [c.name, c.type, c.format])).toEqual([['Name', 'string', 'name'], ['Service', 'string', ''], ['Available', 'string', ''], ['Age', 'string', '']]);
      expect(columns[1].description).toBe('The reference to the service that hosts this API endpoint.');
      expect(columns[2].description).toBe('Whether this service is available.');
    });

    it.each<[string, KubeObject, unknown[]]>([
      ['a local APIService', apiService('v1.apps', { group: 'apps', version: 'v1' }, [available('True', 'Local')]), ['v1.apps', 'Local', 'True', '60m']],
      ['a remote one, available', apiService('v1beta1.metrics.k8s.io', { service: { namespace: 'kube-system', name: 'metrics-server' } }, [available('True', 'Passed')]), ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'True', '60m']],
      ['a remote one, failing', apiService('v1.x.io', { service: { namespace: 'ns', name: 'svc' } }, [available('False', 'ServiceNotFound')]), ['v1.x.io', 'ns/svc', 'False (ServiceNotFound)', '60m']],
      ['a false condition without a reason', apiService('v1.y.io', {}, [available('False')]), ['v1.y.io', 'Local', 'False', '60m']],
      ['no Available condition yet', apiService('v1.z.io', {}), ['v1.z.io', 'Local', 'Unknown', '60m']],
    ])('%s', (_what, o, want) => {
      expect(cells('apiregistration.k8s.io', 'apiservices', o)).toEqual(want);
    });
  });
});
