/** Simulated nodes: their kubelets and the scheduler, driven through HTTP as kubectl drives a small cluster. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { passTime } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';
import { fitErrorMessage, preemptionMessage } from './scheduler';
import { normalizedImage } from './kubelet';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

async function cluster(nodes = 2, controllers = ['*']): Promise<TestServer> {
  t = await newTestServer({ controllers, simulatedNodes: nodes });
  await eventually(async () => (await t!.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).body.items?.length, (n) => n === nodes, 'the node leases');
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  return t;
}

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
});

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const phaseIs = (phase: string) => (p: any) => p?.status?.phase === phase;
const eventsOf = async (s: TestServer, name: string): Promise<any[]> => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items;

describe('simulated nodes', () => {
  it('[API-PATH-009] registers each node as its kubelet does: labels, capacity, Ready, nodeInfo, and a Lease renewed every 10s', async () => {
    const s = await cluster(2);
    const nodes = (await s.json('GET', '/api/v1/nodes')).body.items;
    expect(nodes.map((n: any) => n.metadata.name)).toEqual(['node-1', 'node-2']);
    const node = nodes[1];
    expect(node.metadata.labels).toEqual({
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-2',
      'kubernetes.io/os': 'linux',
    });
    expect(node.metadata.annotations['kubesim.io/node']).toBe('simulated');
    expect(node.spec).toEqual({ podCIDR: '10.244.2.0/24', podCIDRs: ['10.244.2.0/24'] });
    // As the API server stores them: quantities in their canonical form.
    expect(node.status.capacity).toEqual({ cpu: '4', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16Gi', pods: '110' });
    expect(node.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
      ['Ready', 'True', 'KubeletReady'],
    ]);
    expect(node.status.addresses).toEqual([{ type: 'InternalIP', address: '172.18.0.3' }, { type: 'Hostname', address: 'node-2' }]);
    const version = (await s.json('GET', '/version')).body.gitVersion.replace(/\+.*$/, '');
    expect(node.status.nodeInfo).toMatchObject({ kubeletVersion: version, operatingSystem: 'linux', architecture: 'amd64', containerRuntimeVersion: 'containerd://2.0.0' });
    const lease = (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2')).body;
    expect(lease.spec).toEqual({ holderIdentity: 'node-2', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' });
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: node.metadata.uid }]);
    // kubectl describe node: what the kubelet recorded as it started.
    const nodeEvents = await eventually(async () => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dnode-2`)).body.items as any[], (l) => l.length === 6, 'the node events');
    expect(nodeEvents.map((e) => [e.reason, e.message])).toEqual([
      ['Starting', 'Starting kubelet.'],
      ['NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods'],
      ['NodeHasSufficientMemory', 'Node node-2 status is now: NodeHasSufficientMemory'],
      ['NodeHasNoDiskPressure', 'Node node-2 status is now: NodeHasNoDiskPressure'],
      ['NodeHasSufficientPID', 'Node node-2 status is now: NodeHasSufficientPID'],
      ['NodeReady', 'Node node-2 status is now: NodeReady'],
    ]);
    expect(nodeEvents[0].involvedObject).toEqual({ kind: 'Node', name: 'node-2', uid: 'node-2' });
    expect(nodeEvents[0].source).toEqual({ component: 'kubelet', host: 'node-2' });
    s.clock.advance(10_000);
    await eventually(async () => (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2')).body.spec.renewTime, (r) => r === '2026-01-01T00:00:10.000000Z', 'the renewed lease');
    // A Node deleted by hand stays gone while its kubelet runs (it registers once); its Lease goes on, without an owner.
    expect((await s.json('DELETE', '/api/v1/nodes/node-2')).status).toBe(200);
    s.clock.advance(10_000);
    await eventually(async () => (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2')).body.spec?.renewTime, (r) => r === '2026-01-01T00:00:20.000000Z', 'the lease renewed after the delete');
    s.clock.advance(10_000);
    await eventually(async () => (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2')).body.spec?.renewTime, (r) => r === '2026-01-01T00:00:30.000000Z', 'the next renewal');
    expect((await s.json('GET', '/api/v1/nodes/node-2')).status).toBe(404);
    expect(node.metadata.uid).toBeTruthy();
  });

  it('runs a Deployment: pods bound across the nodes, given IPs from their node, Running and Ready, so the rollout completes', async () => {
    const s = await cluster(2);
    const created = await s.json('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } },
    });
    expect(created.status).toBe(201);
    const status = await eventually(async () => (await s.json('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body.status, (st) => st?.availableReplicas === 4, 'the rollout');
    expect(status).toMatchObject({ replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 4 });
    const pods = (await s.json('GET', `${ns}/pods`)).body.items;
    // LeastAllocated spreads pods without requests evenly.
    expect(pods.filter((p: any) => p.spec.nodeName === 'node-1')).toHaveLength(2);
    expect(pods.filter((p: any) => p.spec.nodeName === 'node-2')).toHaveLength(2);
    const ips = pods.map((p: any) => p.status.podIP);
    expect(new Set(ips).size).toBe(4);
    for (const p of pods) {
      const n = p.spec.nodeName.slice(5);
      expect(p.status.podIP).toMatch(new RegExp(`^10\\.244\\.${n}\\.\\d+$`));
      expect(p.status.hostIP).toBe(`172.18.0.${Number(n) + 1}`);
      expect(p.status.phase).toBe('Running');
      expect(p.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
      expect(p.status.containerStatuses).toEqual([{
        name: 'nginx',
        state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'docker.io/library/nginx:1.27',
        imageID: expect.stringMatching(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/),
        containerID: expect.stringMatching(/^containerd:\/\/[0-9a-f]{64}$/),
        started: true,
        // RecursiveReadOnlyMounts: the service account token's read-only mount.
        volumeMounts: [{ name: expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/), mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
      }]);
    }
    // Who set what, as a cluster's managedFields show it: the ReplicaSet controller made the pod, the kubelet wrote its status.
    expect(pods[0].metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource])).toEqual([['kube-controller-manager', 'Update', undefined], ['kubelet', 'Update', 'status']]);
    expect(Object.keys(pods[0].metadata.managedFields[0].fieldsV1)).toEqual(['f:metadata', 'f:spec']);
    expect(Object.keys(pods[0].metadata.managedFields[1].fieldsV1)).toEqual(['f:status']);
    const deployment = (await s.json('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body;
    expect(deployment.metadata.managedFields.filter((m: any) => m.manager === 'kube-controller-manager').map((m: any) => m.subresource ?? '')).toEqual(['', 'status']);
    const name = pods[0].metadata.name;
    const events = (await eventually(() => eventsOf(s, name), (l) => l.length >= 4, 'the pod events')).map((e: any) => [e.source, e.involvedObject.fieldPath ?? '', e.reason, e.message]);
    expect(events).toEqual([
      [{ component: 'default-scheduler' }, '', 'Scheduled', `Successfully assigned default/${name} to ${pods[0].spec.nodeName}`],
      [{ component: 'kubelet', host: pods[0].spec.nodeName }, 'spec.containers{nginx}', 'Pulled', 'Container image "nginx:1.27" already present on machine'],
      [{ component: 'kubelet', host: pods[0].spec.nodeName }, 'spec.containers{nginx}', 'Created', 'Created container: nginx'],
      [{ component: 'kubelet', host: pods[0].spec.nodeName }, 'spec.containers{nginx}', 'Started', 'Started container nginx'],
    ]);
    // kubectl logs: nginx's entrypoint and start-up lines, stdout and stderr interleaved.
    const log = await s.request('GET', `${ns}/pods/${name}/log`);
    expect(log.status).toBe(200);
    const lines = (await log.text()).split('\n');
    expect(lines[0]).toBe('/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration');
    expect(lines[8]).toBe('/docker-entrypoint.sh: Configuration complete; ready for start up');
    expect(lines[9]).toMatch(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[notice\] 1#1: using the "epoll" event method$/);
    expect(lines[10]).toMatch(/\[notice\] 1#1: nginx\/1\.27\.3$/);
  });

  it('leaves a pod no node fits Pending with the scheduler\'s reasons, and places it once room is made', async () => {
    const s = await cluster(2);
    const big = (name: string, cpu: string) => pod(name, { containers: [{ name: 'app', image: 'busybox', resources: { requests: { cpu } } }] });
    expect((await s.json('POST', `${ns}/pods`, { body: big('a', '3') })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: big('b', '3') })).status).toBe(201);
    await eventually(() => getPod(s, 'a'), phaseIs('Running'), 'a running');
    await eventually(() => getPod(s, 'b'), phaseIs('Running'), 'b running');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('pinned', { nodeSelector: { 'kubernetes.io/hostname': 'node-3' } }) })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: big('c', '2') })).status).toBe(201);
    const message = '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    const c = await eventually(() => getPod(s, 'c'), (p) => p.status?.conditions?.[0]?.reason === 'Unschedulable', 'c unschedulable');
    expect(c.spec.nodeName).toBeUndefined();
    expect(c.status).toEqual({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Unschedulable', message }], qosClass: 'Burstable' });
    const warning = (await eventually(() => eventsOf(s, 'c'), (l) => l.length > 0, 'FailedScheduling'))[0];
    expect(warning).toMatchObject({ type: 'Warning', reason: 'FailedScheduling', message, source: { component: 'default-scheduler' } });
    const pinned = await eventually(() => getPod(s, 'pinned'), (p) => p.status?.conditions?.[0]?.reason === 'Unschedulable', 'pinned unschedulable');
    expect(pinned.status.conditions[0].message).toBe("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    // Deleting a's pod frees its node: c is placed there.
    const aNode = (await getPod(s, 'a')).spec.nodeName;
    expect((await s.json('DELETE', `${ns}/pods/a`)).status).toBe(200);
    const placed = await eventually(() => getPod(s, 'c'), phaseIs('Running'), 'c running');
    expect(placed.spec.nodeName).toBe(aNode);
  });

  it('honours cordons and taints', async () => {
    const s = await cluster(2);
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { spec: { unschedulable: true } }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await s.json('PATCH', '/api/v1/nodes/node-2', { body: { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('plain') })).status).toBe(201);
    const plain = await eventually(() => getPod(s, 'plain'), (p) => p.status?.conditions?.[0]?.reason === 'Unschedulable', 'plain unschedulable');
    expect(plain.status.conditions[0].message).toBe('0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }) })).status).toBe(201);
    expect((await eventually(() => getPod(s, 'tolerant'), phaseIs('Running'), 'tolerant running')).spec.nodeName).toBe('node-2');
    // Uncordoning node-1 is a node change: the waiting pod is tried again.
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { spec: { unschedulable: null } }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await eventually(() => getPod(s, 'plain'), phaseIs('Running'), 'plain running')).spec.nodeName).toBe('node-1');
  });

  it('runs scripted programs: exits per restartPolicy, CrashLoopBackOff with back-off on the server clock, readiness after the probe delay', async () => {
    const s = await cluster(1);
    const script = (code: number, seconds?: number) => ({ annotations: { 'kubesim.io/exit-code': String(code), ...(seconds !== undefined ? { 'kubesim.io/run-seconds': String(seconds) } : {}) } });
    await s.json('POST', `${ns}/pods`, { body: pod('ok', { restartPolicy: 'Never' }, script(0, 30)) });
    await s.json('POST', `${ns}/pods`, { body: pod('fails', { restartPolicy: 'Never' }, script(3)) });
    await s.json('POST', `${ns}/pods`, { body: pod('crashes', {}, script(1)) });
    await s.json('POST', `${ns}/pods`, { body: pod('slow', { containers: [{ name: 'app', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 20 } }] }) });
    const failed = await eventually(() => getPod(s, 'fails'), phaseIs('Failed'), 'fails failed');
    expect(failed.status.containerStatuses[0].state).toEqual({ terminated: { exitCode: 3, reason: 'Error', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:00Z', containerID: failed.status.containerStatuses[0].containerID } });
    expect(failed.status.conditions.slice(1, 4).map((c: any) => [c.type, c.status, c.reason])).toEqual([['Initialized', 'True', 'PodCompleted'], ['Ready', 'False', 'PodCompleted'], ['ContainersReady', 'False', 'PodCompleted']]);
    const crashing = await eventually(() => getPod(s, 'crashes'), (p) => p.status?.containerStatuses?.[0]?.restartCount === 1, 'the first restart');
    const cs = crashing.status.containerStatuses[0];
    expect(cs.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=app pod=crashes_default(${crashing.metadata.uid})` } });
    expect(cs.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(crashing.status.phase).toBe('Running');
    expect((await eventually(() => eventsOf(s, 'crashes'), (l) => l.some((e) => e.reason === 'BackOff'), 'the BackOff event')).find((e) => e.reason === 'BackOff')).toMatchObject({ type: 'Warning', message: `Back-off restarting failed container app in pod crashes_default(${crashing.metadata.uid})` });
    const slow = await eventually(() => getPod(s, 'slow'), phaseIs('Running'), 'slow running');
    expect(slow.status.containerStatuses[0].ready).toBe(false);
    expect(slow.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
    expect((await getPod(s, 'ok')).status.phase).toBe('Running');
    // 10s: the back-off is over, the container runs (and fails) again; 20s: the probe passes; 30s: ok's program ends.
    s.clock.advance(10_000);
    const again = await eventually(() => getPod(s, 'crashes'), (p) => p.status?.containerStatuses?.[0]?.restartCount === 2, 'the second restart');
    expect(again.status.containerStatuses[0].state.waiting.message).toContain('back-off 20s');
    s.clock.advance(10_000);
    await eventually(() => getPod(s, 'slow'), (p) => p.status?.containerStatuses?.[0]?.ready === true, 'slow ready');
    s.clock.advance(10_000);
    const ok = await eventually(() => getPod(s, 'ok'), phaseIs('Succeeded'), 'ok succeeded');
    expect(ok.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:30Z' });
  });

  it('a crashing container is reported Error, restarted at once the first time, then backs off 10s, 20s: the statuses `kubectl get pods -w` shows', async () => {
    const s = await cluster(1);
    const watch = await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3Dcrashes`);
    await s.json('POST', `${ns}/pods`, { body: pod('crashes', {}, { annotations: { 'kubesim.io/exit-code': '1', 'kubesim.io/run-seconds': '2' } }) });
    /** Each status as kubectl's STATUS and RESTARTS columns read it, and the back-off a CrashLoopBackOff names. */
    const seen: string[] = [];
    const column = (cs: any) => {
      if (!cs) return 'Pending';
      const state = cs?.state ?? {};
      const status = state.waiting?.reason ?? state.terminated?.reason ?? (state.running ? 'Running' : '?');
      const backOff = /back-off (\d+s)/.exec(state.waiting?.message ?? '')?.[1];
      return `${status} ${cs?.restartCount}${backOff ? ` ${backOff}` : ''}`;
    };
    const follow = async (until: string) => {
      for (let e = await watch.next(); e; e = await watch.next()) {
        const line = column((e.object as any).status?.containerStatuses?.[0]);
        if (seen.at(-1) !== line) seen.push(line);
        if (line === until) return;
      }
    };
    await follow('Running 0');
    s.clock.advance(2_000);
    await follow('Running 1');
    s.clock.advance(2_000);
    await follow('CrashLoopBackOff 1 10s');
    // The first exit at 2s: reported, and started again at once; the second at 4s waits 10s.
    expect(seen).toEqual(['Pending', 'ContainerCreating 0', 'Running 0', 'Error 0', 'Running 1', 'Error 1', 'CrashLoopBackOff 1 10s']);
    const first = await getPod(s, 'crashes');
    expect(first.status.phase).toBe('Running');
    expect(first.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error', startedAt: '2026-01-01T00:00:02Z', finishedAt: '2026-01-01T00:00:04Z' });
    // One BackOff event, when the wait began; no event said back-off for the first restart.
    expect((await eventsOf(s, 'crashes')).filter((e) => e.reason === 'BackOff').map((e) => [e.count ?? 1, e.message])).toEqual([[1, `Back-off restarting failed container app in pod crashes_default(${first.metadata.uid})`]]);
    seen.length = 0;
    s.clock.advance(10_000);
    await follow('Running 2');
    s.clock.advance(2_000);
    await follow('CrashLoopBackOff 2 20s');
    expect(seen).toEqual(['Running 2', 'Error 2', 'CrashLoopBackOff 2 20s']);
    watch.close();
  });

  it('stops a deleted pod\'s containers, writes its final phase and deletes it at once', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('web') });
    const running = await eventually(() => getPod(s, 'web'), phaseIs('Running'), 'web running');
    const deleted = await s.json('DELETE', `${ns}/pods/web`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionGracePeriodSeconds).toBe(30);
    await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).status, (st) => st === 404, 'web gone');
    const events = await eventsOf(s, 'web');
    expect(events.find((e) => e.reason === 'Killing')).toMatchObject({ type: 'Normal', message: 'Stopping container app', involvedObject: { uid: running.metadata.uid, fieldPath: 'spec.containers{app}' } });
  });

  it('a deleted pod terminates gracefully: preStop hooks, then SIGTERM; what ignores it is killed (137) when the grace period ends; the pod shows Terminating meanwhile', async () => {
    const s = await cluster(1);
    const step = (ms: number) => passTime(s, ms);
    await s.json('POST', `${ns}/pods`, {
      body: pod('graceful', {
        terminationGracePeriodSeconds: 20,
        containers: [
          // nginx exits 0 on SIGTERM, after its preStop sleep.
          { name: 'web', image: 'nginx:1.27', lifecycle: { preStop: { sleep: { seconds: 5 } } } },
          // sleep as PID 1 ignores SIGTERM; its preStop exec fails (a FailedPreStopHook event).
          { name: 'sleeper', image: 'busybox:1.36', command: ['sleep', '3600'], lifecycle: { preStop: { exec: { command: ['sh', '-c', 'exit 3'] } } } },
          // A shell that traps SIGTERM ends with its handler's code, after a preStop exec that takes 2s.
          { name: 'trapper', image: 'busybox:1.36', command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"], lifecycle: { preStop: { exec: { command: ['sleep', '2'] } } } },
        ],
      }),
    });
    const running = await eventually(() => getPod(s, 'graceful'), (p) => p?.status?.containerStatuses?.every((c: any) => c.state.running), 'graceful running');
    const start = s.clock.now().getTime();
    const deleted = await s.json('DELETE', `${ns}/pods/graceful`);
    expect(deleted.body.metadata.deletionGracePeriodSeconds).toBe(20);
    const state = (p: any, name: string) => p.status.containerStatuses.find((c: any) => c.name === name).state;
    const at = (ms: number) => new Date(start + ms).toISOString().replace('.000Z', 'Z');
    await step(4_000);
    // Terminating: trapper's hook ended at 2s and SIGTERM came then; its handler ran once the `sleep 1` it had just
    // begun was done, at 3s. The others still run.
    let p = await eventually(() => getPod(s, 'graceful'), (x) => !!state(x, 'trapper').terminated, 'trapper ended');
    expect(p.metadata.deletionTimestamp).toBeDefined();
    expect(p.status.phase).toBe('Running');
    expect(state(p, 'trapper').terminated).toMatchObject({ exitCode: 0, reason: 'Completed', finishedAt: at(3_000) });
    expect(state(p, 'web').running).toBeDefined();
    expect(state(p, 'sleeper').running).toBeDefined();
    await step(2_000);
    p = await eventually(() => getPod(s, 'graceful'), (x) => !!state(x, 'web').terminated, 'web ended');
    expect(state(p, 'web').terminated).toMatchObject({ exitCode: 0, reason: 'Completed', finishedAt: at(5_000) });
    expect(state(p, 'sleeper').running).toBeDefined();
    // The sleeper holds the pod until its SIGKILL at 20s; then the final status and the delete.
    await step(13_000);
    expect((await getPod(s, 'graceful')).status.phase).toBe('Running');
    const watch = await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3Dgraceful&resourceVersion=${(await getPod(s, 'graceful')).metadata.resourceVersion}`);
    await step(2_000);
    let last: any;
    for (let e = await watch.next(); e; e = e.type === 'DELETED' ? undefined : await watch.next()) last = e.object;
    watch.close();
    expect(last.status.phase).toBe('Failed');
    expect(state(last, 'sleeper').terminated).toMatchObject({ exitCode: 137, reason: 'Error', finishedAt: at(20_000) });
    const events = (await eventsOf(s, 'graceful')).filter((e) => ['Killing', 'FailedPreStopHook'].includes(e.reason)).map((e) => [e.involvedObject.fieldPath, e.type, e.reason, e.message]);
    expect(events).toEqual(expect.arrayContaining([
      ['spec.containers{web}', 'Normal', 'Killing', 'Stopping container web'],
      ['spec.containers{sleeper}', 'Normal', 'Killing', 'Stopping container sleeper'],
      ['spec.containers{sleeper}', 'Warning', 'FailedPreStopHook', 'PreStopHook failed'],
      ['spec.containers{trapper}', 'Normal', 'Killing', 'Stopping container trapper'],
    ]));
    expect(events).toHaveLength(4);
    expect(running.metadata.uid).toBe(last.metadata.uid);
  });

  it('a shell\'s SIGTERM handler runs after its foreground command: `sleep 3600` holds it until the SIGKILL, `sleep 3600 & wait` lets it run at once', async () => {
    const s = await cluster(1);
    const shell = (name: string, script: string) => pod(name, { terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script] }] });
    await s.json('POST', `${ns}/pods`, { body: shell('foreground', "trap 'echo handled; exit 0' TERM; sleep 3600") });
    await s.json('POST', `${ns}/pods`, { body: shell('waiting', "trap 'echo handled; exit 0' TERM; sleep 3600 & wait") });
    for (const name of ['foreground', 'waiting']) await eventually(() => getPod(s, name), phaseIs('Running'), `${name} running`);
    const start = s.clock.now().getTime();
    const ended = new Map<string, any>();
    const watches = await Promise.all(['foreground', 'waiting'].map(async (name) => [name, await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3D${name}&resourceVersion=${(await getPod(s, name)).metadata.resourceVersion}`)] as const));
    for (const name of ['foreground', 'waiting']) expect((await s.json('DELETE', `${ns}/pods/${name}`)).status).toBe(200);
    for (let i = 0; i < 6; i++) {
      s.clock.advance(1_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const [name, watch] of watches) {
      for (let e = await watch.next(); e; e = e.type === 'DELETED' ? undefined : await watch.next()) {
        const terminated = (e.object as any).status?.containerStatuses?.[0]?.state?.terminated;
        if (terminated) ended.set(name, terminated);
      }
      watch.close();
    }
    expect(ended.get('foreground')).toMatchObject({ exitCode: 137, finishedAt: new Date(start + 5_000).toISOString().replace('.000Z', 'Z') });
    expect(ended.get('waiting')).toMatchObject({ exitCode: 0, finishedAt: new Date(start).toISOString().replace('.000Z', 'Z') });
  });

  it('a delete\'s own grace period overrides the pod\'s: --grace-period=3 kills a sleep after 3s', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('quick', { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] }) });
    await eventually(() => getPod(s, 'quick'), phaseIs('Running'), 'quick running');
    expect((await s.json('DELETE', `${ns}/pods/quick`, { body: { gracePeriodSeconds: 3 } })).body.metadata.deletionGracePeriodSeconds).toBe(3);
    s.clock.advance(2_000);
    await new Promise((r) => setTimeout(r, 20));
    expect((await s.json('GET', `${ns}/pods/quick`)).status).toBe(200);
    s.clock.advance(1_000);
    await eventually(async () => (await s.json('GET', `${ns}/pods/quick`)).status, (st) => st === 404, 'quick gone');
  });

  it('a stopped kubelet: the node turns Unknown and tainted, its pods NotReady, evicted after their 300s toleration and replaced elsewhere; started again, it ends them', async () => {
    const s = await cluster(2);
    const merge = { 'content-type': 'application/merge-patch+json' };
    await s.json('POST', `${ns}/pods`, { body: pod('pinned', { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } }) });
    const created = await s.json('POST', '/apis/apps/v1/namespaces/default/replicasets', {
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, containers: [{ name: 'nginx', image: 'nginx' }] } } } },
    });
    expect(created.status).toBe(201);
    await eventually(() => getPod(s, 'pinned'), phaseIs('Running'), 'pinned running');
    const first = await eventually(async () => (await s.json('GET', `${ns}/pods?labelSelector=app%3Dweb`)).body.items as any[], (l) => l[0]?.status?.phase === 'Running', 'the replica running');
    // Let the replacement go anywhere: the template no longer pins node-1 (the running pod keeps its place).
    await s.json('PATCH', '/apis/apps/v1/namespaces/default/replicasets/web', { body: { spec: { template: { spec: { nodeSelector: null } } } }, headers: merge });

    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': 'stopped' } } }, headers: merge })).status).toBe(200);
    s.clock.advance(40_000);
    // Within the 50s grace period nothing happens.
    await new Promise((r) => setTimeout(r, 30));
    expect((await s.json('GET', '/api/v1/nodes/node-1')).body.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    s.clock.advance(20_000);
    const unknown = await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1')).body, (n) => n.spec.taints?.length === 2, 'node-1 tainted');
    expect(unknown.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['MemoryPressure', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
      ['DiskPressure', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
      ['PIDPressure', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
      ['Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
    ]);
    expect(unknown.spec.taints).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:01:00Z' },
    ]);
    const notReady = await eventually(() => getPod(s, 'pinned'), (p) => p.status.conditions.find((c: any) => c.type === 'Ready').status === 'False', 'pinned NotReady');
    expect(notReady.status.phase).toBe('Running');
    expect((await eventsOf(s, 'pinned')).find((e) => e.reason === 'NodeNotReady')).toMatchObject({ type: 'Warning', message: 'Node is not ready', source: { component: 'node-controller' } });

    // DefaultTolerationSeconds gave every pod 300s of unreachable: then the taint eviction controller deletes them.
    s.clock.advance(300_000);
    const evicted = await eventually(() => getPod(s, first[0].metadata.name), (p) => !!p.metadata.deletionTimestamp, 'the replica evicted');
    expect(evicted.status.conditions.find((c: any) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
    expect((await eventsOf(s, first[0].metadata.name)).find((e) => e.reason === 'TaintManagerEviction')).toMatchObject({ message: `Marking for deletion Pod default/${first[0].metadata.name}` });
    // Its replacement runs on node-2; the evicted pod stays Terminating, as on a dead machine.
    const replacement = await eventually(async () => (await s.json('GET', `${ns}/pods?labelSelector=app%3Dweb`)).body.items as any[], (l) => l.some((p) => p.status?.phase === 'Running' && p.spec.nodeName === 'node-2'), 'the replacement');
    expect(replacement).toHaveLength(2);
    s.clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 30));
    expect((await getPod(s, first[0].metadata.name)).metadata.deletionTimestamp).toBeDefined();

    // The kubelet starts again: the node is Ready, untainted, and the evicted pods are ended.
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': null } } }, headers: merge })).status).toBe(200);
    s.clock.advance(10_000);
    await eventually(async () => (await s.json('GET', `${ns}/pods/${first[0].metadata.name}`)).status, (st) => st === 404, 'the evicted pod gone');
    const back = await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1')).body, (n) => !n.spec.taints, 'node-1 untainted');
    expect(back.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
  });

  it('a jump of the fake clock past the grace period leaves running kubelets\' nodes Ready: their heartbeat due in the jump lands first', async () => {
    const s = await cluster(2);
    for (let i = 0; i < 3; i++) {
      s.clock.advance(600_000);
      await new Promise((r) => setTimeout(r, 120));
    }
    const nodes = (await s.json('GET', '/api/v1/nodes')).body.items;
    for (const node of nodes) {
      expect(node.spec.taints).toBeUndefined();
      expect(node.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    }
  });

  it('has no nodes unless asked: pods stay Pending and unbound', async () => {
    t = await newTestServer({ controllers: ['*'] });
    await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (st) => st === 200, 'the default service account');
    expect((await t.json('GET', '/api/v1/nodes')).body.items).toEqual([]);
    await t.json('POST', `${ns}/pods`, { body: pod('web') });
    await new Promise((r) => setTimeout(r, 20));
    const web = await getPod(t, 'web');
    expect(web.spec.nodeName).toBeUndefined();
    expect(web.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });
});

describe('ephemeral and sidecar containers', () => {
  const debug = async (s: TestServer, name: string, container: string) =>
    s.json('PATCH', `${ns}/pods/${name}/ephemeralcontainers`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { ephemeralContainers: [{ name: container, image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } },
    });
  const readyColumn = async (s: TestServer, name: string) => {
    const table = (await s.json('GET', `${ns}/pods/${name}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).body;
    return [table.rows[0].cells[1], table.rows[0].cells[2]];
  };

  it('an ephemeral container whose image is not published waits in ErrImagePull; the pod runs on', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('web') });
    await eventually(() => getPod(s, 'web'), phaseIs('Running'), 'web running');
    const patched = await s.json('PATCH', `${ns}/pods/web/ephemeralcontainers`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox:nope', targetContainerName: 'app', stdin: true, tty: true }] } },
    });
    expect(patched.status).toBe(200);
    const p = await eventually(() => getPod(s, 'web'), (x) => x.status?.ephemeralContainerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull', 'ErrImagePull');
    expect(p.status.phase).toBe('Running');
    expect(p.status.ephemeralContainerStatuses[0].state.waiting.message).toBe('rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/busybox:nope": failed to resolve reference "docker.io/library/busybox:nope": docker.io/library/busybox:nope: not found');
    expect(p.status.ephemeralContainerStatuses[0].containerID).toBeUndefined();
    // Pulled again 10s on (backing off 20s now), then the back-off.
    s.clock.advance(10_000);
    await eventually(async () => (await eventsOf(s, 'web')).filter((e) => e.reason === 'Pulling' && e.involvedObject.fieldPath === 'spec.ephemeralContainers{debugger}').map((e) => e.count ?? 1).reduce((a, b) => a + b, 0), (n) => n === 2, 'the second pull');
    s.clock.advance(10_000);
    const backOff = await eventually(() => getPod(s, 'web'), (x) => x.status?.ephemeralContainerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'ImagePullBackOff');
    expect(backOff.status.phase).toBe('Running');
  });

  it('starts an ephemeral container as the kubelet does: image events on its field, a status without started, outside readiness; never restarted, stopped when the pod finishes', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('web', { restartPolicy: 'Never' }, { annotations: { 'kubesim.io/run-seconds': '30' } }) });
    await eventually(() => getPod(s, 'web'), (p) => p?.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True', 'web ready');
    expect((await debug(s, 'web', 'debugger-abc')).status).toBe(200);
    const running = await eventually(() => getPod(s, 'web'), (p) => p.status?.ephemeralContainerStatuses?.length === 1, 'the ephemeral container status');
    const containerID = running.status.ephemeralContainerStatuses[0].containerID;
    expect(running.status.ephemeralContainerStatuses).toEqual([{
      name: 'debugger-abc',
      state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: 'docker.io/library/busybox:latest',
      imageID: expect.stringMatching(/^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/),
      containerID: expect.stringMatching(/^containerd:\/\/[0-9a-f]{64}$/),
    }]);
    // PodStatus field order: ephemeralContainerStatuses after qosClass.
    expect(Object.keys(running.status).slice(-2)).toEqual(['qosClass', 'ephemeralContainerStatuses']);
    // It counts for neither readiness nor phase.
    expect(running.status.phase).toBe('Running');
    expect(running.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(await readyColumn(s, 'web')).toEqual(['1/1', 'Running']);
    const events = await eventually(() => eventsOf(s, 'web'), (l) => l.filter((e) => e.involvedObject.fieldPath === 'spec.ephemeralContainers{debugger-abc}').length === 4, 'the ephemeral container events');
    expect(events.filter((e) => e.involvedObject.fieldPath === 'spec.ephemeralContainers{debugger-abc}').map((e) => [e.reason, e.message])).toEqual([
      ['Pulling', 'Pulling image "busybox"'],
      ['Pulled', 'Successfully pulled image "busybox" in 0s (0s including waiting)'],
      ['Created', 'Created container: debugger-abc'],
      ['Started', 'Started container debugger-abc'],
    ]);
    // The program scripts the regular container only: at 30s it exits, the pod is done, the debugger stopped.
    s.clock.advance(30_000);
    const done = await eventually(() => getPod(s, 'web'), phaseIs('Succeeded'), 'web succeeded');
    expect(done.status.ephemeralContainerStatuses[0]).toMatchObject({
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:30Z', containerID } },
      ready: false,
      restartCount: 0,
    });
    expect(done.status.ephemeralContainerStatuses[0].started).toBeUndefined();
    const killing = (await eventually(() => eventsOf(s, 'web'), (l) => l.some((e) => e.reason === 'Killing'), 'the Killing event')).filter((e) => e.reason === 'Killing');
    expect(killing.map((e) => [e.involvedObject.fieldPath, e.message])).toEqual([['spec.ephemeralContainers{debugger-abc}', 'Stopping container debugger-abc']]);
  });

  it('stops a deleted pod\'s ephemeral containers with its containers', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('web') });
    await eventually(() => getPod(s, 'web'), phaseIs('Running'), 'web running');
    await debug(s, 'web', 'debugger-abc');
    await eventually(() => getPod(s, 'web'), (p) => p.status?.ephemeralContainerStatuses?.[0]?.state?.running, 'the debugger running');
    expect((await s.json('DELETE', `${ns}/pods/web`)).status).toBe(200);
    // The debugger's shell is its container's PID 1 and ignores SIGTERM: killed when the 30s grace period ends.
    s.clock.advance(30_000);
    await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).status, (st) => st === 404, 'web gone');
    const killing = (await eventsOf(s, 'web')).filter((e) => e.reason === 'Killing');
    expect(killing.map((e) => e.involvedObject.fieldPath)).toEqual(['spec.containers{app}', 'spec.ephemeralContainers{debugger-abc}']);
  });

  it('runs init containers in order and keeps a sidecar running: started, ready after its probe delay, counted for the pod\'s readiness', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, {
      body: pod('side', {
        initContainers: [
          { name: 'init', image: 'busybox' },
          { name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 9901 }, initialDelaySeconds: 10 } },
        ],
      }),
    });
    const p = await eventually(() => getPod(s, 'side'), phaseIs('Running'), 'side running');
    const proxyID = p.status.initContainerStatuses[1].containerID;
    expect(p.status.initContainerStatuses).toEqual([
      {
        name: 'init',
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:00Z', containerID: p.status.initContainerStatuses[0].containerID } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'docker.io/library/busybox:latest',
        imageID: expect.stringMatching(/^docker\.io\/library\/busybox@sha256:/),
        containerID: expect.stringMatching(/^containerd:\/\//),
        started: false,
        volumeMounts: [{ name: expect.stringMatching(/^kube-api-access-/), mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
      },
      {
        name: 'proxy',
        state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
        lastState: {},
        ready: false,
        restartCount: 0,
        image: 'docker.io/envoyproxy/envoy:v1.31.0',
        imageID: expect.stringMatching(/^docker\.io\/envoyproxy\/envoy@sha256:/),
        containerID: expect.stringMatching(/^containerd:\/\//),
        started: true,
        volumeMounts: [{ name: expect.stringMatching(/^kube-api-access-/), mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
      },
    ]);
    expect(p.status.containerStatuses[0]).toMatchObject({ name: 'app', state: { running: {} }, ready: true, started: true });
    // The sidecar has started, so the pod is initialized; it is not ready yet, so neither is the pod.
    expect(p.status.conditions.slice(1, 4).map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Initialized', 'True', undefined, undefined],
      ['Ready', 'False', 'ContainersNotReady', 'containers with unready status: [proxy]'],
      ['ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [proxy]'],
    ]);
    expect(await readyColumn(s, 'side')).toEqual(['1/2', 'Running']);
    const events = await eventually(() => eventsOf(s, 'side'), (l) => l.length >= 10, 'the kubelet events');
    expect(events.filter((e) => e.reason === 'Started').map((e) => e.involvedObject.fieldPath)).toEqual(['spec.initContainers{init}', 'spec.initContainers{proxy}', 'spec.containers{app}']);
    s.clock.advance(10_000);
    const ready = await eventually(() => getPod(s, 'side'), (q) => q.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True', 'side ready');
    expect(ready.status.initContainerStatuses[1]).toMatchObject({ state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, ready: true, started: true, restartCount: 0, containerID: proxyID });
    expect(await readyColumn(s, 'side')).toEqual(['2/2', 'Running']);
    // Deleted: the sidecar is stopped with the container.
    expect((await s.json('DELETE', `${ns}/pods/side`)).status).toBe(200);
    await eventually(async () => (await s.json('GET', `${ns}/pods/side`)).status, (st) => st === 404, 'side gone');
    expect((await eventsOf(s, 'side')).filter((e) => e.reason === 'Killing').map((e) => e.involvedObject.fieldPath)).toEqual(['spec.containers{app}', 'spec.initContainers{proxy}']);
  });

  it('a Job pod with a sidecar: the main container completes, the sidecar is stopped (exit 0, Completed), the phase comes from the main container, the Job completes', async () => {
    const s = await cluster(1);
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'work' },
      spec: { template: { spec: { restartPolicy: 'Never', initContainers: [{ name: 'log', image: 'busybox', command: ['sh', '-c', 'sleep 3600'], restartPolicy: 'Always' }], containers: [{ name: 'main', image: 'busybox' }] } } },
    };
    expect((await s.json('POST', '/apis/batch/v1/namespaces/default/jobs', { body: job })).status).toBe(201);
    await eventually(async () => (await s.json('GET', '/apis/batch/v1/namespaces/default/jobs/work')).body.status?.succeeded, (n) => n === 1, 'the Job succeeded');
    const p = (await s.json('GET', `${ns}/pods?labelSelector=job-name%3Dwork`)).body.items[0];
    expect(p.status.phase).toBe('Succeeded');
    expect(p.status.initContainerStatuses).toEqual([expect.objectContaining({
      name: 'log',
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: p.status.startTime, finishedAt: p.status.startTime, containerID: p.status.initContainerStatuses[0].containerID } },
      ready: false,
      restartCount: 0,
      started: false,
    })]);
    expect(p.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(p.status.conditions.slice(1, 4).map((c: any) => [c.type, c.status, c.reason])).toEqual([['Initialized', 'True', 'PodCompleted'], ['Ready', 'False', 'PodCompleted'], ['ContainersReady', 'False', 'PodCompleted']]);
    const events = await eventsOf(s, p.metadata.name);
    expect(events.filter((e) => e.source.component === 'kubelet').map((e) => [e.involvedObject.fieldPath, e.reason])).toEqual([
      ['spec.initContainers{log}', 'Pulling'], ['spec.initContainers{log}', 'Pulled'], ['spec.initContainers{log}', 'Created'], ['spec.initContainers{log}', 'Started'],
      ['spec.containers{main}', 'Pulling'], ['spec.containers{main}', 'Pulled'], ['spec.containers{main}', 'Created'], ['spec.containers{main}', 'Started'],
      ['spec.initContainers{log}', 'Killing'],
    ]);
    const [ready, status] = await readyColumn(s, p.metadata.name);
    expect([ready, status]).toEqual(['0/2', 'Completed']);
  });

  it('a failed main container fails the pod though its sidecars exit 0; they are stopped last to first', async () => {
    const s = await cluster(1);
    const sidecars = [{ name: 'proxy', image: 'busybox', restartPolicy: 'Always' }, { name: 'log', image: 'busybox', restartPolicy: 'Always' }];
    await s.json('POST', `${ns}/pods`, { body: pod('fails', { restartPolicy: 'Never', initContainers: sidecars }, { annotations: { 'kubesim.io/exit-code': '2' } }) });
    const p = await eventually(() => getPod(s, 'fails'), phaseIs('Failed'), 'fails failed');
    expect(p.status.initContainerStatuses.map((c: any) => [c.name, c.state.terminated?.exitCode, c.state.terminated?.reason, c.ready, c.started])).toEqual([['proxy', 0, 'Completed', false, false], ['log', 0, 'Completed', false, false]]);
    expect(p.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    const killing = (await eventually(() => eventsOf(s, 'fails'), (l) => l.filter((e) => e.reason === 'Killing').length === 2, 'the sidecars stopped')).filter((e) => e.reason === 'Killing');
    expect(killing.map((e) => [e.involvedObject.fieldPath, e.message])).toEqual([['spec.initContainers{log}', 'Stopping container log'], ['spec.initContainers{proxy}', 'Stopping container proxy']]);
  });
});

describe('scheduler and kubelet helpers', () => {
  it('words FitError as kube-scheduler does: counts per reason, sorted, then the preemption verdicts', () => {
    expect(fitErrorMessage(0, [])).toBe('no nodes available to schedule pods');
    const misfits = [
      { reasons: ['Insufficient memory', 'Insufficient cpu'], unresolvable: false },
      { reasons: ['Insufficient cpu'], unresolvable: false },
      { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true },
    ];
    expect(fitErrorMessage(3, misfits, { postFilterMessage: preemptionMessage(3, [{ reasons: ['No preemption victims found for incoming pod'], unresolvable: true }, { reasons: ['No preemption victims found for incoming pod'], unresolvable: true }]) }))
      .toBe("0/3 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.");
    expect(fitErrorMessage(1, [{ reasons: ['Insufficient cpu'], unresolvable: false }], { postFilterMessage: 'preemption: not eligible due to preemptionPolicy=Never.' }))
      .toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
  });

  it('runs a known image\'s Cmd: busybox\'s sh reads EOF and exits 0, so the pod crash-loops; a command not on PATH is a StartError', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('sh', { containers: [{ name: 'app', image: 'busybox' }] }) });
    const looping = await eventually(() => getPod(s, 'sh'), (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff', 'the crash loop');
    expect(looping.status.phase).toBe('Running');
    expect(looping.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    await s.json('POST', `${ns}/pods`, { body: pod('typo', { restartPolicy: 'Never', containers: [{ name: 'typo', image: 'busybox:1.36', args: ['slep', '10'] }] }) });
    const failed = await eventually(() => getPod(s, 'typo'), phaseIs('Failed'), 'the failed pod');
    expect(failed.status.containerStatuses[0].state.terminated).toMatchObject({
      exitCode: 128,
      reason: 'StartError',
      message: 'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "slep": executable file not found in $PATH: unknown',
    });
  });

  it('a container starts in its sandbox: its /etc/hosts, `hostname -i` and a status.podIP env var have the pod\'s address; on the host network, the node\'s', async () => {
    const s = await cluster(1);
    const script = 'hostname; hostname -i; echo "env $MY_IP"; tail -1 /etc/hosts';
    const container = { name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script], env: [{ name: 'MY_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] };
    await s.json('POST', `${ns}/pods`, { body: pod('addr', { restartPolicy: 'Never', containers: [container] }) });
    await s.json('POST', `${ns}/pods`, { body: pod('host', { restartPolicy: 'Never', hostNetwork: true, containers: [container] }) });
    for (const [name, hostname] of [['addr', 'addr'], ['host', 'node-1']]) {
      const done = await eventually(() => getPod(s, name), phaseIs('Succeeded'), `pod ${name} done`);
      const ip = done.status.podIP;
      expect(ip).toBe(name === 'host' ? done.status.hostIP : ip);
      expect(ip).toMatch(name === 'host' ? /^172\.18\.0\.\d+$/ : /^10\.244\.1\.\d+$/);
      expect(await (await s.request('GET', `${ns}/pods/${name}/log`)).text()).toBe(`${hostname}\n${ip} \nenv ${ip}\n${ip}\t${hostname}\n`);
    }
  });

  it('an image whose tag is not published: ErrImagePull, then ImagePullBackOff; the pod stays Pending', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('bad', { containers: [{ name: 'app', image: 'nginx:1.999' }] }) });
    const notFound = 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.999": failed to resolve reference "docker.io/library/nginx:1.999": docker.io/library/nginx:1.999: not found';
    const first = await eventually(() => getPod(s, 'bad'), (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull', 'ErrImagePull');
    expect(first.status.phase).toBe('Pending');
    expect(first.status.containerStatuses[0]).toMatchObject({ state: { waiting: { reason: 'ErrImagePull', message: notFound } }, ready: false, restartCount: 0, started: false });
    expect(first.status.containerStatuses[0].containerID).toBeUndefined();
    expect(first.status.conditions.find((c: any) => c.type === 'ContainersReady')).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
    // The pod worker looks again 10s on: the back-off (10s) is over, so it pulls again and backs off 20s.
    s.clock.advance(10_000);
    await eventually(async () => (await eventsOf(s, 'bad')).filter((e) => e.reason === 'Pulling').map((e) => e.count ?? 1).reduce((a, b) => a + b, 0), (n) => n === 2, 'the second pull');
    s.clock.advance(10_000);
    const backOff = await eventually(() => getPod(s, 'bad'), (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 'ImagePullBackOff');
    expect(backOff.status.phase).toBe('Pending');
    expect(backOff.status.containerStatuses[0].state.waiting.message).toBe(`Back-off pulling image "nginx:1.999": ErrImagePull: ${notFound}`);
    const events = (await eventsOf(s, 'bad')).filter((e) => e.source?.component === 'kubelet').map((e) => [e.type, e.reason, e.message]);
    expect(events).toEqual(expect.arrayContaining([
      ['Normal', 'Pulling', 'Pulling image "nginx:1.999"'],
      ['Warning', 'Failed', `Failed to pull image "nginx:1.999": ${notFound}`],
      ['Warning', 'Failed', 'Error: ErrImagePull'],
      ['Normal', 'BackOff', 'Back-off pulling image "nginx:1.999"'],
      ['Warning', 'Failed', 'Error: ImagePullBackOff'],
    ]));
    expect(events.some(([, reason]) => reason === 'Created' || reason === 'Started')).toBe(false);
  });

  it('a pod deleted while its image cannot be had: the container that never ran cannot be located (137), the pod Failed', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('held', { containers: [{ name: 'app', image: 'nginx:1.999' }] }, { finalizers: ['example.com/hold'] }) });
    await eventually(() => getPod(s, 'held'), (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull', 'ErrImagePull');
    expect((await s.json('DELETE', `${ns}/pods/held`)).status).toBe(200);
    const final = await eventually(() => getPod(s, 'held'), (p) => p?.status?.phase === 'Failed', 'the final status');
    expect(final.status.containerStatuses[0].state).toEqual({ terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } });
    await s.json('PATCH', `${ns}/pods/held`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { finalizers: null } } });
  });

  it('an init container whose image cannot be had holds the pod in Init: InvalidImageName, Initialized False', async () => {
    const s = await cluster(1);
    await s.json('POST', `${ns}/pods`, { body: pod('init', { initContainers: [{ name: 'setup', image: 'busybox:' }], containers: [{ name: 'app', image: 'nginx:1.27' }] }) });
    const msg = 'Failed to apply default image tag "busybox:": couldn\'t parse image name "busybox:": invalid reference format';
    const p = await eventually(() => getPod(s, 'init'), (x) => x?.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'InvalidImageName', 'InvalidImageName');
    expect(p.status.phase).toBe('Pending');
    expect(p.status.initContainerStatuses[0].state.waiting.message).toBe(msg);
    expect(p.status.containerStatuses[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(p.status.conditions.find((c: any) => c.type === 'Initialized')).toMatchObject({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [setup]' });
    const events = await eventually(async () => (await eventsOf(s, 'init')).filter((e) => e.source?.component === 'kubelet').map((e) => [e.type, e.reason, e.message, e.involvedObject.fieldPath]), (l) => l.length === 2, 'the events');
    expect(events).toEqual([['Warning', 'InspectFailed', msg, 'spec.initContainers{setup}'], ['Warning', 'Failed', 'Error: InvalidImageName', 'spec.initContainers{setup}']]);
  });

  it('reports images as containerd names them', () => {
    expect(normalizedImage('nginx')).toBe('docker.io/library/nginx:latest');
    expect(normalizedImage('nginx:1.27')).toBe('docker.io/library/nginx:1.27');
    expect(normalizedImage('bitnami/redis:7')).toBe('docker.io/bitnami/redis:7');
    expect(normalizedImage('registry.k8s.io/pause:3.10')).toBe('registry.k8s.io/pause:3.10');
    expect(normalizedImage('localhost:5000/app')).toBe('localhost:5000/app:latest');
    expect(normalizedImage('busybox@sha256:abc')).toBe('docker.io/library/busybox@sha256:abc');
  });
});

describe('a deleted node', () => {
  it('its pods are failed and deleted by podgc after the quarantine, and their ReplicaSet places them on the nodes left', async () => {
    const s = await cluster(2);
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
    };
    expect((await s.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status).toBe(201);
    const podsOn = async () => ((await s.json('GET', `${ns}/pods?labelSelector=app%3Dweb`)).body.items as any[]).map((p) => `${p.spec.nodeName}:${p.status.phase}`).sort();
    await eventually(podsOn, (list) => list.join() === 'node-1:Running,node-1:Running,node-2:Running,node-2:Running', 'two running pods on each node');
    expect((await s.json('DELETE', '/api/v1/nodes/node-2')).status).toBe(200);
    // podgc misses the node in one round and deletes its pods 40s later; the kubelet of a deleted node does not register it again.
    for (let i = 0; i < 4; i++) {
      s.clock.advance(20_000);
      await new Promise((r) => setTimeout(r, 30));
    }
    await eventually(podsOn, (list) => list.join() === 'node-1:Running,node-1:Running,node-1:Running,node-1:Running', 'four running pods on node-1');
    expect((await s.json('GET', '/api/v1/nodes/node-2')).status).toBe(404);
  });
});
