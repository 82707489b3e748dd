/** The scheduler's placement rules on simulated nodes: inter-pod affinity, topology spread and preemption, driven through HTTP. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer, type WatchEvent } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const merge = { 'content-type': 'application/merge-patch+json' };

async function cluster(nodes = 2): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: nodes });
  await eventually(async () => (await t!.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).body.items?.length, (n) => n === nodes, 'the node leases');
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  return t;
}

const pod = (name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
});
const cpu = (amount: string) => ({ containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: amount } } }] });
const onNode = (node: string) => ({ nodeSelector: { 'kubernetes.io/hostname': node } });
const antiAffinity = (labels: Record<string, string>, topologyKey = 'kubernetes.io/hostname') => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey }] } });

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const create = async (s: TestServer, body: unknown, path = `${ns}/pods`) => expect((await s.json('POST', path, { body })).status).toBe(201);
const running = (s: TestServer, name: string) => eventually(() => getPod(s, name), (p) => p?.status?.phase === 'Running', `${name} running`);
const unschedulable = async (s: TestServer, name: string): Promise<string> =>
  (await eventually(() => getPod(s, name), (p) => p?.status?.conditions?.some((c: any) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'), `${name} unschedulable`)).status.conditions.find((c: any) => c.type === 'PodScheduled').message;
const eventsOf = async (s: TestServer, name: string): Promise<any[]> => (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).body.items;
const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}) => create(t!, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra }, '/apis/scheduling.k8s.io/v1/priorityclasses');
const label = (s: TestServer, node: string, labels: Record<string, string | null>) => s.json('PATCH', `/api/v1/nodes/${node}`, { body: { metadata: { labels } }, headers: merge });

describe('InterPodAffinity', () => {
  it('required anti-affinity spreads a Deployment one pod a node; the replica no node takes stays Pending with the reason and a FailedScheduling event', async () => {
    const s = await cluster(2);
    const template = { metadata: { labels: { app: 'web' } }, spec: { affinity: antiAffinity({ app: 'web' }), containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
    await create(s, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template } }, '/apis/apps/v1/namespaces/default/deployments');
    const pods = await eventually(async () => (await s.json('GET', `${ns}/pods?labelSelector=app%3Dweb`)).body.items as any[], (l) => l.length === 3 && l.filter((p) => p.status?.phase === 'Running').length === 2 && l.some((p) => p.status?.conditions?.[0]?.reason === 'Unschedulable'), 'two running, one unschedulable');
    expect(new Set(pods.filter((p) => p.spec.nodeName).map((p) => p.spec.nodeName))).toEqual(new Set(['node-1', 'node-2']));
    const pending = pods.find((p) => !p.spec.nodeName);
    const message = "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
    expect(pending.status).toEqual({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Unschedulable', message }], qosClass: 'BestEffort' });
    const events = await eventually(() => eventsOf(s, pending.metadata.name), (l) => l.some((e) => e.reason === 'FailedScheduling'), 'FailedScheduling');
    expect(events.find((e) => e.reason === 'FailedScheduling')).toMatchObject({ type: 'Warning', message, source: { component: 'default-scheduler' } });
  });

  it("an existing pod's anti-affinity keeps matching pods off its node; required affinity waits for its target, except for the first pod of a group", async () => {
    const s = await cluster(2);
    await create(s, pod('loner', { ...onNode('node-1'), affinity: antiAffinity({ app: 'noisy' }) }));
    await running(s, 'loner');
    await create(s, pod('noisy', onNode('node-1'), { app: 'noisy' }));
    expect(await unschedulable(s, 'noisy')).toBe("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.");

    const withCache = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    await create(s, pod('app', { affinity: withCache }));
    expect(await unschedulable(s, 'app')).toBe("0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    // Its target bound: the waiting pod is tried again and goes where the target is.
    await create(s, pod('cache', onNode('node-2'), { app: 'cache' }));
    expect((await running(s, 'app')).spec.nodeName).toBe('node-2');
    // A pod with affinity to its own label is the first of its group: it is placed although nothing matches yet.
    await create(s, pod('first', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group: 'g' } }, topologyKey: 'kubernetes.io/hostname' }] } } }, { group: 'g' }));
    await running(s, 'first');
  });

  it('namespaceSelector and matchLabelKeys decide which pods a term counts', async () => {
    const s = await cluster(2);
    await create(s, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other', labels: { team: 'blue' } } }, '/api/v1/namespaces');
    await create(s, pod('blue', onNode('node-1'), { app: 'db' }), '/api/v1/namespaces/other/pods');
    // The pod's own namespace has no app=db pod: a term without namespaces ignores the other namespace.
    await create(s, pod('local', { affinity: antiAffinity({ app: 'db' }) }));
    // namespaceSelector team=blue sees it: node-1 is out.
    const term = { labelSelector: { matchLabels: { app: 'db' } }, namespaceSelector: { matchLabels: { team: 'blue' } }, topologyKey: 'kubernetes.io/hostname' };
    await create(s, pod('selective', { ...onNode('node-1'), affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }));
    expect(await unschedulable(s, 'selective')).toBe("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.");
    expect((await running(s, 'local')).spec.nodeName).toBeDefined();
    // matchLabelKeys: only pods of the same version repel each other.
    const versioned = (name: string, version: string) => pod(name, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'api' } }, matchLabelKeys: ['version'], topologyKey: 'topology.kubernetes.io/zone' }] } } }, { app: 'api', version });
    await label(s, 'node-1', { 'topology.kubernetes.io/zone': 'a' });
    await label(s, 'node-2', { 'topology.kubernetes.io/zone': 'a' });
    await create(s, versioned('v1-a', '1'));
    await running(s, 'v1-a');
    await create(s, versioned('v2-a', '2'));
    await running(s, 'v2-a');
    await create(s, versioned('v1-b', '1'));
    expect(await unschedulable(s, 'v1-b')).toMatch(/^0\/2 nodes are available: 2 node\(s\) didn't match pod anti-affinity rules\./);
  });

  it('preferred affinity outweighs the resource scores: a pod joins its preferred peer on the busier node', async () => {
    const s = await cluster(2);
    await create(s, pod('peer', { ...onNode('node-2'), ...cpu('1') }, { app: 'peer' }));
    await running(s, 'peer');
    await create(s, pod('follower', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'peer' } }, topologyKey: 'kubernetes.io/hostname' } }] } } }));
    expect((await running(s, 'follower')).spec.nodeName).toBe('node-2');
    await create(s, pod('avoider', { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'peer' } }, topologyKey: 'kubernetes.io/hostname' } }] } } }));
    expect((await running(s, 'avoider')).spec.nodeName).toBe('node-1');
  });
});

describe('PodTopologySpread', () => {
  const spread = (extra: Record<string, unknown> = {}) => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } }, ...extra }] });

  it('keeps the skew within maxSkew, counting only domains its policies include; a node without the key does not fit', async () => {
    const s = await cluster(2);
    for (const name of ['s1', 's2', 's3']) {
      await create(s, pod(name, spread(), { app: 's' }));
      await running(s, name);
    }
    const placed = await Promise.all(['s1', 's2', 's3'].map(async (n) => (await getPod(s, n)).spec.nodeName));
    expect(placed.filter((n) => n === 'node-1')).toHaveLength(2);
    // node-2 tainted: s4 may not go there, and node-1 would be 3 against 1.
    expect((await s.json('PATCH', '/api/v1/nodes/node-2', { body: { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } }, headers: merge })).status).toBe(200);
    await create(s, pod('s4', spread(), { app: 's' }));
    expect(await unschedulable(s, 's4')).toBe("0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {dedicated: x}. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.");
    // nodeTaintsPolicy Honor leaves the tainted node out of the domains: node-1 is the only one, so no skew.
    await create(s, pod('s5', spread({ nodeTaintsPolicy: 'Honor' }), { app: 's' }));
    expect((await running(s, 's5')).spec.nodeName).toBe('node-1');

    await create(s, pod('zoned', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'z' } } }] }, { app: 'z' }));
    expect(await unschedulable(s, 'zoned')).toBe('0/2 nodes are available: 1 node(s) didn\'t match pod topology spread constraints (missing required label), 1 node(s) had untolerated taint {dedicated: x}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
    // Labelling the node with a zone is a node change: the pod is tried again.
    expect((await label(s, 'node-1', { 'topology.kubernetes.io/zone': 'a' })).status).toBe(200);
    expect((await running(s, 'zoned')).spec.nodeName).toBe('node-1');
  });

  it('minDomains: with fewer domains than asked, the global minimum is 0', async () => {
    const s = await cluster(2);
    const constraint = spread({ minDomains: 3 });
    for (const name of ['m1', 'm2']) {
      await create(s, pod(name, constraint, { app: 's' }));
      await running(s, name);
    }
    await create(s, pod('m3', constraint, { app: 's' }));
    expect(await unschedulable(s, 'm3')).toBe("0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.");
  });

  it('a ScheduleAnyway constraint only scores: it outweighs the resource scores, sending the pod to the node with fewer matching pods', async () => {
    const s = await cluster(2);
    await create(s, pod('load', { ...onNode('node-2'), ...cpu('2') }));
    for (const name of ['a1', 'a2']) await create(s, pod(name, onNode('node-1'), { app: 'sa' }));
    await running(s, 'a2');
    await create(s, pod('plain', {}, { app: 'sa' }));
    // Without a constraint the emptier node-1 wins.
    expect((await running(s, 'plain')).spec.nodeName).toBe('node-1');
    await create(s, pod('spreading', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'sa' } } }] }, { app: 'sa' }));
    expect((await running(s, 'spreading')).spec.nodeName).toBe('node-2');
  });

  it('the system default constraints spread a ReplicaSet across zones a lesson labels', async () => {
    const s = await cluster(3);
    await label(s, 'node-1', { 'topology.kubernetes.io/zone': 'a' });
    await label(s, 'node-2', { 'topology.kubernetes.io/zone': 'a' });
    await label(s, 'node-3', { 'topology.kubernetes.io/zone': 'b' });
    // A ReplicaSet's pods: the zone constraint (ScheduleAnyway) prefers zone b for the second pod.
    const template = { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
    await create(s, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 2, selector: { matchLabels: { app: 'rs' } }, template } }, '/apis/apps/v1/namespaces/default/replicasets');
    const pods = await eventually(async () => (await s.json('GET', `${ns}/pods?labelSelector=app%3Drs`)).body.items as any[], (l) => l.length === 2 && l.every((p) => p.status?.phase === 'Running'), 'both replicas running');
    const zones = pods.map((p) => (p.spec.nodeName === 'node-3' ? 'b' : 'a'));
    expect(zones.sort()).toEqual(['a', 'b']);
  });
});

describe('DefaultPreemption', () => {
  it('[API-OTHER-001] a higher-priority pod preempts the lower one on the node it picks: DisruptionTarget, the delete, a Preempted event, nominatedNodeName, then the pod runs there', async () => {
    const s = await cluster(2);
    await priorityClass('low', 100);
    await priorityClass('high', 1000);
    await create(s, pod('low-1', { ...onNode('node-1'), ...cpu('3'), priorityClassName: 'low' }));
    await create(s, pod('low-2', { ...onNode('node-2'), ...cpu('3'), priorityClassName: 'low' }));
    const low1 = await running(s, 'low-1');
    await running(s, 'low-2');
    const watch = await s.watch(`${ns}/pods?watch=true&fieldSelector=metadata.name%3Dlow-1&resourceVersion=${low1.metadata.resourceVersion}`);
    await create(s, pod('high', { ...cpu('2'), priorityClassName: 'high' }));
    const high = await running(s, 'high');
    // Both nodes had one victim of the same priority: ties go to the first node.
    expect(high.spec.nodeName).toBe('node-1');
    expect(high.spec.priority).toBe(1000);
    expect(high.status.nominatedNodeName).toBe('node-1');
    const seen: WatchEvent[] = [];
    for (let e = await watch.next(); e; e = e.type === 'DELETED' ? undefined : await watch.next()) seen.push(e);
    watch.close();
    const disrupted = seen.find((e) => (e.object as any).status?.conditions?.some((c: any) => c.type === 'DisruptionTarget'))!;
    expect((disrupted.object as any).status.conditions.find((c: any) => c.type === 'DisruptionTarget')).toEqual({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'PreemptionByScheduler', message: 'default-scheduler: preempting to accommodate a higher priority pod' });
    expect(seen.some((e) => e.type === 'MODIFIED' && (e.object as any).metadata.deletionTimestamp)).toBe(true);
    const rvs = seen.map((e) => Number((e.object as any).metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    expect(rvs[0]).toBeGreaterThan(Number(low1.metadata.resourceVersion));
    const victimEvents = await eventually(() => eventsOf(s, 'low-1'), (l) => l.some((e) => e.reason === 'Preempted'), 'the Preempted event');
    expect(victimEvents.find((e) => e.reason === 'Preempted')).toMatchObject({ type: 'Normal', message: `Preempted by pod ${high.metadata.uid} on node node-1`, source: { component: 'default-scheduler' }, involvedObject: { name: 'low-1', uid: low1.metadata.uid } });
    const highEvents = await eventsOf(s, 'high');
    expect(highEvents.map((e) => [e.reason, e.message])).toEqual([
      ['FailedScheduling', '0/2 nodes are available: 2 Insufficient cpu.'],
      ['Scheduled', 'Successfully assigned default/high to node-1'],
      ...highEvents.slice(2).map((e) => [e.reason, e.message]),
    ]);
    expect((await getPod(s, 'low-2')).status.phase).toBe('Running');
  });

  it('prefers the node whose victims no PodDisruptionBudget protects; preemptionPolicy Never and equal priority never preempt', async () => {
    const s = await cluster(2);
    await priorityClass('low', 100);
    await priorityClass('high', 1000);
    await priorityClass('polite', 1000, { preemptionPolicy: 'Never' });
    await create(s, pod('guarded', { ...onNode('node-1'), ...cpu('3'), priorityClassName: 'low' }, { app: 'guarded' }));
    await create(s, pod('free', { ...onNode('node-2'), ...cpu('3'), priorityClassName: 'low' }, { app: 'free' }));
    await running(s, 'guarded');
    await running(s, 'free');
    await create(s, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } }, '/apis/policy/v1/namespaces/default/poddisruptionbudgets');
    await eventually(async () => (await s.json('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guard')).body.status, (st) => st?.expectedPods === 1 && st.disruptionsAllowed === 0, 'the budget');

    await create(s, pod('polite', { ...cpu('3'), priorityClassName: 'polite' }));
    expect(await unschedulable(s, 'polite')).toBe('0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
    await create(s, pod('peer', { ...cpu('3'), priorityClassName: 'low' }));
    expect(await unschedulable(s, 'peer')).toBe('0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.');

    await create(s, pod('high', { ...cpu('2'), priorityClassName: 'high' }));
    expect((await running(s, 'high')).spec.nodeName).toBe('node-2');
    await eventually(async () => (await s.json('GET', `${ns}/pods/free`)).status, (st) => st === 404, 'free preempted');
    expect((await getPod(s, 'guarded')).status.phase).toBe('Running');
    // The pods that may not preempt still wait; none was given the room.
    expect((await getPod(s, 'polite')).spec.nodeName).toBeUndefined();
    expect((await getPod(s, 'polite')).status.nominatedNodeName).toBeUndefined();
    expect((await getPod(s, 'peer')).spec.nodeName).toBeUndefined();
  });

  it("while its victim terminates, the preemptor's nomination holds the room against lower pods, and it does not preempt again", async () => {
    const s = await cluster(1);
    await priorityClass('low', 100);
    await priorityClass('high', 1000);
    await create(s, pod('filler', { ...cpu('3'), priorityClassName: 'low' }));
    await running(s, 'filler');
    // The kubelet stopped: the victim stays Terminating, as on a node slow to stop it.
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': 'stopped' } } }, headers: merge })).status).toBe(200);
    await create(s, pod('high', { ...cpu('2'), priorityClassName: 'high' }));
    const nominated = await eventually(() => getPod(s, 'high'), (p) => p.status?.nominatedNodeName === 'node-1', 'high nominated');
    expect(nominated.status.conditions).toEqual([{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' }]);
    const victim = await getPod(s, 'filler');
    expect(victim.metadata.deletionTimestamp).toBeDefined();
    expect(victim.status.conditions.find((c: any) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'PreemptionByScheduler' });
    // One CPU is free beside the terminating victim, but the nominated pod's two are counted in.
    await create(s, pod('small', { ...cpu('1'), priorityClassName: 'low' }));
    expect(await unschedulable(s, 'small')).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
    // A node change tries the preemptor again: its victim is still going, so it does not preempt more.
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { labels: { tier: 'a' } } }, headers: merge })).status).toBe(200);
    await eventually(() => getPod(s, 'high'), (p) => p.status.conditions[0].message === '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node..', 'not eligible');
    expect((await getPod(s, 'high')).status.nominatedNodeName).toBe('node-1');
    // The kubelet back: it ends the victim, and the room goes to the preemptor (and the small pod fits beside it).
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': null } } }, headers: merge })).status).toBe(200);
    s.clock.advance(10_000);
    expect((await running(s, 'high')).spec.nodeName).toBe('node-1');
    await running(s, 'small');
    expect((await s.json('GET', `${ns}/events?fieldSelector=reason%3DPreempted`)).body.items).toHaveLength(1);
  });

  it('a parked pod whose own spec changes is tried again at once: a toleration added', async () => {
    const s = await cluster(1);
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { spec: { taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] } }, headers: merge })).status).toBe(200);
    await create(s, pod('trainer'));
    expect(await unschedulable(s, 'trainer')).toBe('0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: ml}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
    const tolerations = [...(await getPod(s, 'trainer')).spec.tolerations, { key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }];
    expect((await s.json('PATCH', `${ns}/pods/trainer`, { body: { spec: { tolerations } }, headers: merge })).status).toBe(200);
    expect((await running(s, 'trainer')).spec.nodeName).toBe('node-1');
  });

  it('removing lower pods that would not make room is no preemption: the message counts what would still be missing', async () => {
    const s = await cluster(1);
    await priorityClass('low', 100);
    await priorityClass('high', 1000);
    await create(s, pod('small', { ...cpu('1'), priorityClassName: 'low' }));
    await running(s, 'small');
    await create(s, pod('huge', { ...cpu('8'), priorityClassName: 'high' }));
    expect(await unschedulable(s, 'huge')).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.');
    expect((await getPod(s, 'small')).status.phase).toBe('Running');
  });
});

describe('the scheduling queue', () => {
  it('moves parked pods higher priority first, so freed room goes to the more important waiting pod', async () => {
    const s = await cluster(1);
    await priorityClass('lo', 100, { preemptionPolicy: 'Never' });
    await priorityClass('hi', 1000, { preemptionPolicy: 'Never' });
    // The node's 4 cpus less kubeadm's two coredns pods (100m each): 3.8 free, 0.8 beside the blocker.
    await create(s, pod('blocker', cpu('3')));
    await running(s, 'blocker');
    await create(s, pod('lo-pod', { ...cpu('3'), priorityClassName: 'lo' }));
    await unschedulable(s, 'lo-pod');
    await create(s, pod('hi-pod', { ...cpu('3'), priorityClassName: 'hi' }));
    expect(await unschedulable(s, 'hi-pod')).toBe('0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
    expect((await s.json('DELETE', `${ns}/pods/blocker`)).status).toBe(200);
    expect((await running(s, 'hi-pod')).spec.nodeName).toBe('node-1');
    expect((await getPod(s, 'lo-pod')).spec.nodeName).toBeUndefined();
  });

  it('tries a pod parked for more than five minutes again (flushUnschedulablePodsLeftover): the FailedScheduling event counts up', async () => {
    const s = await cluster(1);
    await create(s, pod('nowhere', { nodeSelector: { disktype: 'ssd' } }));
    await unschedulable(s, 'nowhere');
    const first = await eventually(() => eventsOf(s, 'nowhere'), (l) => l.some((e) => e.reason === 'FailedScheduling'), 'FailedScheduling');
    expect(first.find((e) => e.reason === 'FailedScheduling').count).toBe(1);
    s.clock.advance(240_000);
    await new Promise((r) => setTimeout(r, 30));
    expect((await eventsOf(s, 'nowhere')).find((e) => e.reason === 'FailedScheduling').count).toBe(1);
    s.clock.advance(90_000);
    const again = await eventually(() => eventsOf(s, 'nowhere'), (l) => l.find((e) => e.reason === 'FailedScheduling')?.count === 2, 'the second attempt');
    expect(again.find((e) => e.reason === 'FailedScheduling')).toMatchObject({ lastTimestamp: '2026-01-01T00:05:30Z', message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." });
  });
});
