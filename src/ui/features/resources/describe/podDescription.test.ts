/** A Pod as kubectl describe pod words it: pure cases, then pods run by a simulated kubelet, read through the workbench's client. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../../../core/testing/client';
import { eventually } from '../../../../core/testing/eventually';
import { createApiClient, type KubeList, type KubeObject } from '../../../api';
import { eventRow, involvedObjectSelector, sortEvents } from './events';
import { containerGroups, describePod, describeState } from './podDescription';

const now = new Date('2026-11-28T12:10:00Z');

describe('container state (describeStatus)', () => {
  it('Running with its start; Waiting with its reason, or none; no state at all is Waiting', () => {
    expect(describeState({ running: { startedAt: '2026-11-28T12:00:00Z' } }, 0)).toEqual({ state: 'Running', details: [['Started', 'Sat, 28 Nov 2026 12:00:00 +0000']] });
    expect(describeState({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s' } }, 0)).toEqual({ state: 'Waiting', details: [['Reason', 'CrashLoopBackOff']] });
    expect(describeState({ waiting: {} }, 0)).toEqual({ state: 'Waiting', details: [] });
    expect(describeState({}, 0)).toEqual({ state: 'Waiting', details: [] });
  });

  it('Terminated: reason, message, exit code, signal when set, started and finished', () => {
    expect(describeState({ terminated: { reason: 'Error', exitCode: 1, startedAt: '2026-11-28T12:00:00Z', finishedAt: '2026-11-28T12:00:01Z' } }, 0)).toEqual({
      state: 'Terminated',
      details: [
        ['Reason', 'Error'],
        ['Exit Code', '1'],
        ['Started', 'Sat, 28 Nov 2026 12:00:00 +0000'],
        ['Finished', 'Sat, 28 Nov 2026 12:00:01 +0000'],
      ],
    });
    expect(describeState({ terminated: { reason: 'OOMKilled', message: 'out of memory', exitCode: 137, signal: 9 } }, 0).details.map(([k]) => k)).toEqual(['Reason', 'Message', 'Exit Code', 'Signal', 'Started', 'Finished']);
  });
});

const sidecarPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'side', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'side-1', uid: 'u', controller: true }] },
  spec: {
    nodeName: 'node-1',
    initContainers: [
      { name: 'setup', image: 'busybox' },
      { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
    ],
    containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }],
    ephemeralContainers: [{ name: 'debugger', image: 'busybox' }],
  },
  status: {
    phase: 'Running',
    hostIP: '10.0.0.1',
    podIP: '10.244.1.5',
    podIPs: [{ ip: '10.244.1.5' }],
    conditions: [
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', status: 'True' },
    ],
    initContainerStatuses: [
      { name: 'setup', ready: true, restartCount: 0, containerID: 'containerd://a', state: { terminated: { reason: 'Completed', exitCode: 0 } } },
      { name: 'proxy', ready: true, started: true, restartCount: 0, containerID: 'containerd://b', state: { running: { startedAt: '2026-11-28T12:00:00Z' } } },
    ],
    containerStatuses: [
      { name: 'app', ready: true, restartCount: 2, state: { running: { startedAt: '2026-11-28T12:05:00Z' } }, lastState: { terminated: { reason: 'Error', exitCode: 1 } } },
    ],
  },
};

describe('kubectl describe pod', () => {
  it('groups containers as describe does, marks the sidecar, and gives Last State only after a termination', () => {
    const groups = containerGroups(sidecarPod, 0);
    expect(groups.map((g) => [g.title, g.containers.map((c) => `${c.name}${c.sidecar ? ' (sidecar)' : ''} ${c.status?.state.state ?? 'no status'}`)])).toEqual([
      ['Init Containers', ['setup Terminated', 'proxy (sidecar) Running']],
      ['Containers', ['app Running']],
      ['Ephemeral Containers', ['debugger no status']],
    ]);
    expect(groups[0]!.containers[1]!.status).toMatchObject({ ready: true, restartCount: 0, containerID: 'containerd://b' });
    expect(groups[0]!.containers[1]!.status?.lastState).toBeUndefined();
    expect(groups[1]!.containers[0]!.status).toMatchObject({ ready: true, restartCount: 2, lastState: { state: 'Terminated', details: expect.arrayContaining([['Reason', 'Error'], ['Exit Code', '1']]) } });
  });

  it('Containers are always listed; Init and Ephemeral Containers only when the pod has some', () => {
    expect(containerGroups({ spec: { containers: [] } }).map((g) => g.title)).toEqual(['Containers']);
  });

  it('node/hostIP, phase, IPs, controller, QoS from the spec when status has none, conditions, and READY counting the running sidecar', () => {
    expect(describePod(sidecarPod, now, 0)).toMatchObject({
      node: 'node-1/10.0.0.1',
      status: 'Running',
      ip: '10.244.1.5',
      ips: ['10.244.1.5'],
      controlledBy: 'ReplicaSet/side-1',
      qosClass: 'Burstable',
      ready: '2/2',
      printedStatus: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
    });
    expect(describePod({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending', qosClass: 'BestEffort' } }, now)).toMatchObject({ node: '<none>', ips: [], qosClass: 'BestEffort', ready: '0/1' });
  });

  it('a pod being deleted is Terminating (lasts ...) until it is done', () => {
    const deleting = { ...sidecarPod, metadata: { ...sidecarPod.metadata, deletionTimestamp: '2026-11-28T12:09:30Z' } };
    expect(describePod(deleting, now).status).toBe('Terminating (lasts 30s)');
    expect(describePod({ ...deleting, status: { phase: 'Succeeded' } }, now).status).toBe('Succeeded');
  });
});

describe('against a simulated kubelet', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });

  it('a sidecar pod runs 2/2 with the kubelet\'s Started events; a crashing container has restarts, Last State Error and a BackOff event', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    const client = createApiClient((request) => s.server.handle(request), 'http://kubesim.test');
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
    const pods = '/api/v1/namespaces/default/pods';
    await client.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'side' }, spec: { initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'nginx' }] } });
    await client.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'crashes', annotations: { 'kubesim.io/exit-code': '1' } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } });

    const side = await eventually(() => client.get<KubeObject>(`${pods}/side`), (p) => describePod(p, new Date()).ready === '2/2', 'side 2/2');
    const d = describePod(side, new Date(), 0);
    expect(d.node).toMatch(/^node-1\/\d+\.\d+\.\d+\.\d+$/);
    expect(d.groups.map((g) => [g.title, g.containers.map((c) => [c.name, c.sidecar, c.status?.state.state])])).toEqual([
      ['Init Containers', [['proxy', true, 'Running']]],
      ['Containers', [['app', false, 'Running']]],
    ]);
    const sideEvents = async () => sortEvents((await client.get<KubeList>(`/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(involvedObjectSelector(side.metadata!.uid!))}`)).items).map((e) => eventRow(e, new Date()));
    const rows = await eventually(sideEvents, (r) => r.filter((e) => e.reason === 'Started').length === 2, 'both Started events');
    expect(rows[0]).toMatchObject({ type: 'Normal', reason: 'Scheduled', from: 'default-scheduler' });
    expect(rows.filter((e) => e.reason === 'Started').map((e) => [e.from, e.message])).toEqual([
      ['kubelet', 'Started container proxy'],
      ['kubelet', 'Started container app'],
    ]);

    const crashed = await eventually(() => client.get<KubeObject>(`${pods}/crashes`), (p) => (containerGroups(p)[0]!.containers[0]!.status?.restartCount ?? 0) >= 1, 'a restart');
    const app = containerGroups(crashed, 0)[0]!.containers[0]!;
    expect(app.status?.lastState).toMatchObject({ state: 'Terminated', details: expect.arrayContaining([['Reason', 'Error'], ['Exit Code', '1']]) });
    const crashEvents = (await client.get<KubeList>(`/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(involvedObjectSelector(crashed.metadata!.uid!))}`)).items;
    expect(crashEvents.map((e) => eventRow(e, new Date())).find((e) => e.reason === 'BackOff')).toMatchObject({ type: 'Warning', from: 'kubelet', message: expect.stringMatching(/^Back-off restarting failed container app in pod crashes_default/) });
  });
});
