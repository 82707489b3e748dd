import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number): string => new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const day = 86400;

function cells(group: string, resource: string, obj: KubeObject) {
  return toTable([obj], { group, version: 'v1', resource, kind: obj.kind, now }).rows[0].cells;
}
const columns = (group: string, resource: string) =>
  tableColumnsFor(group, resource).map((c) => `${c.name}:${c.type}${c.priority ? ':wide' : ''}`);

const podTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'nginx', image: 'nginx:1.27' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ],
  },
};

function obj(kind: string, apiVersion: string, name: string, body: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion, kind, metadata: { name, namespace: 'default', creationTimestamp: ago(10 * day), ...meta }, ...body };
}

describe('workload printers', () => {
  it.each([
    ['apps', 'deployments', ['Name:string', 'Ready:string', 'Up-to-date:string', 'Available:string', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['apps', 'replicasets', ['Name:string', 'Desired:integer', 'Current:integer', 'Ready:integer', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['apps', 'statefulsets', ['Name:string', 'Ready:string', 'Age:string', 'Containers:string:wide', 'Images:string:wide']],
    ['apps', 'daemonsets', ['Name:string', 'Desired:integer', 'Current:integer', 'Ready:integer', 'Up-to-date:integer', 'Available:integer', 'Node Selector:string', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['batch', 'jobs', ['Name:string', 'Status:string', 'Completions:string', 'Duration:string', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['batch', 'cronjobs', ['Name:string', 'Schedule:string', 'Timezone:string', 'Suspend:boolean', 'Active:integer', 'Last Schedule:string', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['', 'replicationcontrollers', ['Name:string', 'Desired:integer', 'Current:integer', 'Ready:integer', 'Age:string', 'Containers:string:wide', 'Images:string:wide', 'Selector:string:wide']],
    ['apps', 'controllerrevisions', ['Name:string', 'Controller:string', 'Revision:string', 'Age:string']],
  ])('%s/%s columns', (group, resource, expected) => {
    expect(columns(group, resource)).toEqual(expected);
  });

  it.each<[string, string, string, KubeObject, unknown[]]>([
    [
      'deployment with label and expression selector',
      'apps', 'deployments',
      obj('Deployment', 'apps/v1', 'web', {
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend', 'backend'] }] }, template: podTemplate },
        status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
      }),
      ['web', '2/3', 3, 2, '10d', 'nginx,sidecar', 'nginx:1.27,busybox:1.36', 'app=web,tier in (backend,frontend)'],
    ],
    [
      'new deployment without status',
      'apps', 'deployments',
      obj('Deployment', 'apps/v1', 'api', { spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: { spec: { containers: [{ name: 'api', image: 'api:v2' }] } } } }, { creationTimestamp: ago(4) }),
      ['api', '0/1', 0, 0, '4s', 'api', 'api:v2', 'app=api'],
    ],
    [
      'replica set',
      'apps', 'replicasets',
      obj('ReplicaSet', 'apps/v1', 'web-7d4b9c6f5', {
        spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d4b9c6f5' } }, template: podTemplate },
        status: { replicas: 3, readyReplicas: 1 },
      }),
      ['web-7d4b9c6f5', 3, 3, 1, '10d', 'nginx,sidecar', 'nginx:1.27,busybox:1.36', 'app=web,pod-template-hash=7d4b9c6f5'],
    ],
    [
      'scaled-down replica set',
      'apps', 'replicasets',
      obj('ReplicaSet', 'apps/v1', 'web-old', { spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: podTemplate }, status: { replicas: 0 } }),
      ['web-old', 0, 0, 0, '10d', 'nginx,sidecar', 'nginx:1.27,busybox:1.36', 'app=web'],
    ],
    [
      'stateful set',
      'apps', 'statefulsets',
      obj('StatefulSet', 'apps/v1', 'db', { spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { spec: { containers: [{ name: 'postgres', image: 'postgres:16' }] } } }, status: { replicas: 2, readyReplicas: 1 } }),
      ['db', '1/3', '10d', 'postgres', 'postgres:16'],
    ],
    [
      'daemon set with node selector',
      'apps', 'daemonsets',
      obj('DaemonSet', 'apps/v1', 'kube-proxy', {
        spec: { selector: { matchLabels: { 'k8s-app': 'kube-proxy' } }, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.32.0' }] } } },
        status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 },
      }, { namespace: 'kube-system' }),
      ['kube-proxy', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '10d', 'kube-proxy', 'registry.k8s.io/kube-proxy:v1.32.0', 'k8s-app=kube-proxy'],
    ],
    [
      'complete job',
      'batch', 'jobs',
      obj('Job', 'batch/v1', 'pi', {
        spec: { completions: 1, parallelism: 1, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'c1' } }, template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }] } } },
        status: { succeeded: 1, startTime: ago(3600), completionTime: ago(3600 - 25), conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] },
      }, { creationTimestamp: ago(3600) }),
      ['pi', 'Complete', '1/1', '25s', '60m', 'pi', 'perl:5.34', 'batch.kubernetes.io/controller-uid=c1'],
    ],
    [
      'running work-queue job',
      'batch', 'jobs',
      obj('Job', 'batch/v1', 'queue', { spec: { parallelism: 3, template: { spec: { containers: [{ name: 'w', image: 'worker' }] } } }, status: { active: 3, succeeded: 1, startTime: ago(200) } }, { creationTimestamp: ago(200) }),
      ['queue', 'Running', '1/1 of 3', '3m20s', '3m20s', 'w', 'worker', '<none>'],
    ],
    [
      'failed job',
      'batch', 'jobs',
      obj('Job', 'batch/v1', 'bad', { spec: { completions: 2, template: { spec: { containers: [] } } }, status: { failed: 7, startTime: ago(90), conditions: [{ type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True' }] } }),
      ['bad', 'Failed', '0/2', '90s', '10d', '', '', '<none>'],
    ],
    [
      'suspended job not yet started',
      'batch', 'jobs',
      obj('Job', 'batch/v1', 'later', { spec: { completions: 1, suspend: true, template: { spec: { containers: [] } } }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } }),
      ['later', 'Suspended', '0/1', '', '10d', '', '', '<none>'],
    ],
    [
      'job being deleted',
      'batch', 'jobs',
      obj('Job', 'batch/v1', 'gone', { spec: { completions: 1, template: { spec: { containers: [] } } }, status: { startTime: ago(30) } }, { deletionTimestamp: ago(1) }),
      ['gone', 'Terminating', '0/1', '30s', '10d', '', '', '<none>'],
    ],
    [
      'cron job',
      'batch', 'cronjobs',
      obj('CronJob', 'batch/v1', 'hello', {
        spec: { schedule: '*/1 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox:1.28' }] } } } } },
        status: { active: [{ kind: 'Job', name: 'hello-29145600' }], lastScheduleTime: ago(30) },
      }),
      ['hello', '*/1 * * * *', '<none>', 'False', 1, '30s', '10d', 'hello', 'busybox:1.28', '<none>'],
    ],
    [
      'cron job with time zone that never ran',
      'batch', 'cronjobs',
      obj('CronJob', 'batch/v1', 'nightly', { spec: { schedule: '0 3 * * *', timeZone: 'Europe/Paris', jobTemplate: { spec: { template: { spec: { containers: [] } } } } }, status: {} }),
      ['nightly', '0 3 * * *', 'Europe/Paris', '<unset>', 0, '<none>', '10d', '', '', '<none>'],
    ],
    [
      'replication controller',
      '', 'replicationcontrollers',
      obj('ReplicationController', 'v1', 'nginx', { spec: { replicas: 3, selector: { app: 'nginx' }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } }, status: { replicas: 3, readyReplicas: 3 } }),
      ['nginx', 3, 3, 3, '10d', 'nginx', 'nginx', 'app=nginx'],
    ],
    [
      'controller revision owned by a stateful set',
      'apps', 'controllerrevisions',
      obj('ControllerRevision', 'apps/v1', 'web-5d8f7b', { revision: 2, data: {} }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] }),
      ['web-5d8f7b', 'statefulset.apps/web', 2, '10d'],
    ],
    [
      'orphaned controller revision',
      'apps', 'controllerrevisions',
      obj('ControllerRevision', 'apps/v1', 'old-1', { revision: 1 }),
      ['old-1', '<none>', 1, '10d'],
    ],
  ])('%s', (_name, group, resource, object, expected) => {
    expect(cells(group, resource, object)).toEqual(expected);
  });

  it('deployment selector prints empty when absent and <invalid> when malformed; others print <none> and <error>', () => {
    const bad = { matchExpressions: [{ key: 'tier', operator: 'Near', values: ['x'] }] };
    expect(cells('apps', 'deployments', obj('Deployment', 'apps/v1', 'a', { spec: { template: podTemplate } })).at(-1)).toBe('');
    expect(cells('apps', 'deployments', obj('Deployment', 'apps/v1', 'a', { spec: { selector: bad, template: podTemplate } })).at(-1)).toBe('<invalid>');
    expect(cells('apps', 'replicasets', obj('ReplicaSet', 'apps/v1', 'a', { spec: { selector: {}, template: podTemplate } })).at(-1)).toBe('<none>');
    expect(cells('apps', 'replicasets', obj('ReplicaSet', 'apps/v1', 'a', { spec: { selector: bad, template: podTemplate } })).at(-1)).toBe('<error>');
  });
});
