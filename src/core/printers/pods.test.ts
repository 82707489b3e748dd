import { describe, expect, it } from 'vitest';
import { toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number): string => new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');

function pod(spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', uid: 'u-1', resourceVersion: '42', creationTimestamp: ago(600), ...metadata },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
    status,
  };
}

const running = { running: { startedAt: ago(300) } };
const readyRunning = (name: string, restartCount = 0) => ({ name, ready: true, started: true, restartCount, state: running });

function podRow(obj: KubeObject) {
  return toTable([obj], { group: '', version: 'v1', resource: 'pods', kind: 'Pod', now }).rows[0];
}

describe('pod table', () => {
  it('has the kube-apiserver pod columns, wide ones at priority 1', () => {
    const table = toTable([], { group: '', version: 'v1', resource: 'pods', kind: 'Pod', now });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ]);
    expect(table.columnDefinitions[1].description).toBe('The aggregate readiness state of this pod for accepting traffic.');
    expect(table.columnDefinitions[5].description).toMatch(/^podIP address allocated to the pod/);
  });

  it.each<[string, KubeObject, unknown[]]>([
    [
      'running pod with all containers ready',
      pod(
        { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'log' }] },
        { phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }, { ip: 'fd00::5' }], containerStatuses: [readyRunning('app'), readyRunning('log')] },
      ),
      ['web-0', '2/2', 'Running', '0', '10m', '10.244.1.5', 'node-1', '<none>', '<none>'],
    ],
    [
      'unscheduled pending pod',
      pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }),
      ['web-0', '0/1', 'Pending', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'scheduling-gated pod',
      pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      ['web-0', '0/1', 'SchedulingGated', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'container being created',
      pod({ nodeName: 'node-1' }, { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }),
      ['web-0', '0/1', 'ContainerCreating', '0', '10m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'crash-looping container shows restarts with the last restart age',
      pod({ nodeName: 'node-1' }, {
        phase: 'Running',
        podIP: '10.244.1.7',
        containerStatuses: [{
          name: 'app', ready: false, restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(300) } },
        }],
      }),
      ['web-0', '0/1', 'CrashLoopBackOff', '5 (5m ago)', '10m', '10.244.1.7', 'node-1', '<none>', '<none>'],
    ],
    [
      'completed pod',
      pod({ nodeName: 'node-1' }, { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: ago(60) } } }] }),
      ['web-0', '0/1', 'Completed', '0', '10m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'terminated without a reason prints the exit code',
      pod({}, { phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 137 } } }] }),
      ['web-0', '0/1', 'ExitCode:137', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'terminated by a signal prints the signal',
      pod({}, { phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, signal: 9 } } }] }),
      ['web-0', '0/1', 'Signal:9', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'evicted pod reports the pod reason',
      pod({}, { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' }),
      ['web-0', '0/1', 'Evicted', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'deleting running pod is Terminating',
      pod({ nodeName: 'node-1' }, { phase: 'Running', podIP: '10.244.1.5', containerStatuses: [readyRunning('app')] }, { deletionTimestamp: ago(5), deletionGracePeriodSeconds: 30 }),
      ['web-0', '1/1', 'Terminating', '0', '10m', '10.244.1.5', 'node-1', '<none>', '<none>'],
    ],
    [
      'deleting succeeded pod keeps its terminal status',
      pod({}, { phase: 'Succeeded', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, { deletionTimestamp: ago(5) }),
      ['web-0', '0/1', 'Completed', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'deleting pod on a lost node is Unknown',
      pod({}, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: ago(5) }),
      ['web-0', '0/1', 'Unknown', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'first of two init containers running',
      pod({ initContainers: [{ name: 'migrate' }, { name: 'seed' }] }, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'migrate', ready: false, restartCount: 0, state: running },
          { name: 'seed', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      }),
      ['web-0', '0/1', 'Init:0/2', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'second init container running after the first succeeded',
      pod({ initContainers: [{ name: 'migrate' }, { name: 'seed' }] }, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'migrate', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'seed', ready: false, restartCount: 0, state: running },
        ],
      }),
      ['web-0', '0/1', 'Init:1/2', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'crash-looping init container counts its own restarts',
      pod({ initContainers: [{ name: 'migrate' }] }, {
        phase: 'Pending',
        initContainerStatuses: [{
          name: 'migrate', ready: false, restartCount: 3,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(120) } },
        }],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      }),
      ['web-0', '0/1', 'Init:CrashLoopBackOff', '3 (2m ago)', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'failed init container with a reason',
      pod({ initContainers: [{ name: 'migrate' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }),
      ['web-0', '0/1', 'Init:Error', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'failed init container without a reason',
      pod({ initContainers: [{ name: 'migrate' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 2 } } }] }),
      ['web-0', '0/1', 'Init:ExitCode:2', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'started sidecar counts as a container, and its restarts count',
      pod({ initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] }, {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }],
        initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 2, state: running }],
        containerStatuses: [readyRunning('app', 1)],
      }),
      ['web-0', '2/2', 'Running', '3', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'completed container beside a running one reads Running when the pod is Ready',
      pod({ containers: [{ name: 'app' }, { name: 'job' }] }, {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [readyRunning('app'), { name: 'job', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      }),
      ['web-0', '1/2', 'Running', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'completed container beside a running one reads NotReady otherwise',
      pod({ containers: [{ name: 'app' }, { name: 'job' }] }, {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [readyRunning('app'), { name: 'job', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      }),
      ['web-0', '1/2', 'NotReady', '0', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'readiness gates and nominated node in the wide columns',
      pod({ nodeName: 'node-2', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] }, {
        phase: 'Running',
        nominatedNodeName: 'node-3',
        podIPs: [{ ip: '10.244.2.9' }],
        conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }],
        containerStatuses: [readyRunning('app')],
      }),
      ['web-0', '1/1', 'Running', '0', '10m', '10.244.2.9', 'node-2', 'node-3', '1/2'],
    ],
    [
      'restarts across containers report the newest termination',
      pod({ containers: [{ name: 'app' }, { name: 'log' }] }, {
        phase: 'Running',
        containerStatuses: [
          { ...readyRunning('app', 2), lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * 3600) } } },
          { ...readyRunning('log', 1), lastState: { terminated: { exitCode: 1, finishedAt: ago(45) } } },
        ],
      }),
      ['web-0', '2/2', 'Running', '3 (45s ago)', '10m', '<none>', '<none>', '<none>', '<none>'],
    ],
  ])('%s', (_name, obj, cells) => {
    expect(podRow(obj).cells).toEqual(cells);
  });

  it('marks succeeded and failed pods with a Completed row condition', () => {
    expect(podRow(pod({}, { phase: 'Succeeded' })).conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    expect(podRow(pod({}, { phase: 'Failed' })).conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    expect(podRow(pod({}, { phase: 'Running' }))).not.toHaveProperty('conditions');
  });

  it('prints <unknown> age for a pod without creationTimestamp', () => {
    expect(podRow(pod({}, { phase: 'Pending' }, { creationTimestamp: null })).cells[4]).toBe('<unknown>');
  });
});
