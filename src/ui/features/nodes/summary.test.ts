/** The Nodes panel's reading of Nodes and Pods: pure cases, then real objects from simulated nodes through the workbench's client. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../../core/testing/client';
import { eventually } from '../../../core/testing/eventually';
import { createApiClient, type KubeList, type KubeObject } from '../../api';
import { allocatedResources, placePods, readyCondition, summarizeNode, summarizePending, summarizePod } from './summary';

const node = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  status: { allocatable: { cpu: '2', memory: '4Gi' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }] },
  ...extra,
});

const pod = (name: string, nodeName: string | undefined, requests: Record<string, string>[], status: Record<string, unknown> = { phase: 'Running' }, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { ...(nodeName ? { nodeName } : {}), containers: requests.map((r, i) => ({ name: `c${i}`, image: 'nginx', resources: { requests: r } })), ...spec },
  status,
});

describe('node status', () => {
  const cases: [string, KubeObject, ReturnType<typeof readyCondition>['status'], string][] = [
    ['Ready True is Ready', node('a'), 'Ready', 'KubeletReady'],
    ['Ready False is NotReady', node('a', { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] } }), 'NotReady', 'KubeletNotReady'],
    ['Ready Unknown after the grace period', node('a', { status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }] } }), 'Unknown', 'NodeStatusUnknown'],
    ['no Ready condition yet is Unknown', node('a', { status: {} }), 'Unknown', ''],
  ];
  it.each(cases)('%s', (_name, n, status, reason) => {
    expect(readyCondition(n)).toMatchObject({ status, reason });
  });

  it('[API-PATH-013] cordon, taints as describe prints them, and the stopped kubelet annotation', () => {
    const n = node('node-1', {
      metadata: { name: 'node-1', annotations: { 'kubesim.io/kubelet': 'stopped' } },
      spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }, { key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] },
    });
    expect(summarizeNode(n)).toMatchObject({ name: 'node-1', cordoned: true, kubeletStopped: true, taints: ['node.kubernetes.io/unschedulable:NoSchedule', 'dedicated=gpu:NoExecute'] });
    expect(summarizeNode(node('node-2'))).toMatchObject({ cordoned: false, kubeletStopped: false, taints: [] });
  });
});

describe('allocated resources (kubectl describe node)', () => {
  it('sums the requests of the non-terminal pods bound to the node, overhead and init containers included, percent truncated', () => {
    const pods = [
      pod('a', 'n', [{ cpu: '250m', memory: '64Mi' }, { cpu: '0.25', memory: '64Mi' }]),
      // An init container needs the larger of itself and the containers; overhead adds on top.
      pod('b', 'n', [{ cpu: '100m' }], { phase: 'Pending' }, { initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '300m', memory: '1Gi' } } }], overhead: { cpu: '10m' } }),
      pod('done', 'n', [{ cpu: '1' }], { phase: 'Succeeded' }),
      pod('failed', 'n', [{ cpu: '1' }], { phase: 'Failed' }),
      pod('elsewhere', 'm', [{ cpu: '1' }]),
      pod('unbound', undefined, [{ cpu: '1' }], { phase: 'Pending' }),
    ];
    expect(allocatedResources(node('n'), pods)).toEqual([
      { resource: 'cpu', requests: '810m', allocatable: '2', percent: 40 },
      { resource: 'memory', requests: '1152Mi', allocatable: '4Gi', percent: 28 },
    ]);
  });

  it('nothing requested is 0 (0%); nothing allocatable is 0%', () => {
    expect(allocatedResources(node('n'), [pod('a', 'n', [{}])])).toEqual([
      { resource: 'cpu', requests: '0', allocatable: '2', percent: 0 },
      { resource: 'memory', requests: '0', allocatable: '4Gi', percent: 0 },
    ]);
    expect(allocatedResources(node('n', { status: {} }), [pod('a', 'n', [{ cpu: '1' }])])[0]).toEqual({ resource: 'cpu', requests: '1', allocatable: '0', percent: 0 });
  });
});

describe('pod state', () => {
  const waiting = (reason: string) => ({ phase: 'Running', containerStatuses: [{ name: 'c0', ready: false, restartCount: 3, state: { waiting: { reason } } }] });
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['running and ready', { phase: 'Running', containerStatuses: [{ name: 'c0', ready: true, state: { running: {} } }] }, 'Running', 'ok'],
    ['running, not ready', { phase: 'Running', containerStatuses: [{ name: 'c0', ready: false, state: { running: {} } }] }, 'Running', 'warn'],
    ['creating', { phase: 'Pending', containerStatuses: [{ name: 'c0', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }] }, 'ContainerCreating', 'pending'],
    ['crash looping', waiting('CrashLoopBackOff'), 'CrashLoopBackOff', 'bad'],
    ['completed', { phase: 'Succeeded', containerStatuses: [{ name: 'c0', ready: false, state: { terminated: { reason: 'Completed', exitCode: 0 } } }] }, 'Completed', 'done'],
    ['failed', { phase: 'Failed', containerStatuses: [{ name: 'c0', ready: false, state: { terminated: { reason: 'Error', exitCode: 1 } } }] }, 'Error', 'bad'],
  ];
  it.each(cases)('%s', (_name, status, shown, tone) => {
    expect(summarizePod(pod('p', 'n', [{}], status))).toMatchObject({ namespace: 'default', name: 'p', status: shown, tone });
  });

  it('a pod being deleted is Terminating', () => {
    const p = pod('p', 'n', [{}]);
    p.metadata = { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' };
    expect(summarizePod(p)).toMatchObject({ status: 'Terminating', tone: 'warn' });
  });

  it('places bound pods under their node, sorted, and keeps unbound ones that may still be scheduled', () => {
    const { byNode, pending } = placePods([pod('z', 'n', [{}]), pod('a', 'n', [{}]), pod('waits', undefined, [{}], { phase: 'Pending' }), pod('gone', undefined, [{}], { phase: 'Failed' })]);
    expect(byNode.get('n')?.map((p) => p.metadata?.name)).toEqual(['a', 'z']);
    expect(pending.map((p) => p.metadata?.name)).toEqual(['waits']);
  });

  it('a pending pod carries its PodScheduled reason and message, and the node preemption nominated', () => {
    const p = pod('big', undefined, [{ cpu: '3' }], {
      phase: 'Pending',
      nominatedNodeName: 'node-2',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient cpu.' }],
    });
    expect(summarizePending(p)).toMatchObject({ status: 'Pending', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient cpu.', nominatedNodeName: 'node-2' });
    expect(summarizePending(pod('new', undefined, [{}], { phase: 'Pending' }))).toMatchObject({ reason: '', message: '', nominatedNodeName: '' });
  });
});

describe('against simulated nodes', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });

  it('[API-OTHER-001] nodes registered by their kubelets read Ready; a pod that fits is counted on its node, one that cannot fit waits with the scheduler\'s message', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 2 }));
    const client = createApiClient((request) => s.server.handle(request), 'http://kubesim.test');
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
    await client.create('/api/v1/namespaces/default/pods', pod('small', undefined, [{ cpu: '500m', memory: '256Mi' }], {}));
    await client.create('/api/v1/namespaces/default/pods', pod('huge', undefined, [{ cpu: '100' }], {}));
    const pods = await eventually(
      async () => (await client.get<KubeList>('/api/v1/pods')).items,
      (items) =>
        items.some((p) => p.metadata?.name === 'small' && (p['spec'] as { nodeName?: string }).nodeName) &&
        items.some((p) => summarizePending(p).message !== '') &&
        items.filter((p) => p.metadata?.labels?.['k8s-app'] === 'kube-dns' && (p['spec'] as { nodeName?: string }).nodeName).length === 2,
      'small and the coredns pods bound, huge unschedulable',
    );
    const nodes = (await client.get<KubeList>('/api/v1/nodes')).items;
    expect(nodes.map((n) => [summarizeNode(n).name, summarizeNode(n).ready.status, summarizeNode(n).ready.reason])).toEqual([
      ['node-1', 'Ready', 'KubeletReady'],
      ['node-2', 'Ready', 'KubeletReady'],
    ]);
    const { byNode, pending } = placePods(pods);
    const [bound] = [...byNode.entries()].filter(([, on]) => on.some((p) => p.metadata?.name === 'small'));
    const where = nodes.find((n) => n.metadata?.name === bound![0])!;
    // The pod's requests and those of the coredns pod kubeadm's add-on runs on each node (100m, 70Mi).
    expect(allocatedResources(where, pods)).toEqual([
      { resource: 'cpu', requests: '600m', allocatable: '4', percent: 15 },
      { resource: 'memory', requests: '326Mi', allocatable: '16Gi', percent: 1 },
    ]);
    expect(pending.map((p) => summarizePending(p))).toEqual([
      expect.objectContaining({ name: 'huge', status: 'Pending', reason: 'Unschedulable', message: expect.stringMatching(/^0\/2 nodes are available: 2 Insufficient cpu\./) }),
    ]);
  });
});
