/** The daemonset-controller, driven through HTTP as kubectl drives it, with Nodes made by hand and with simulated nodes. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const apps = '/apis/apps/v1/namespaces/default';
const core = '/api/v1/namespaces/default';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

function daemonSet(spec: Record<string, unknown> = {}, image = 'fluentd:v1') {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'logs' },
    spec: {
      selector: { matchLabels: { app: 'logs' } },
      template: { metadata: { labels: { app: 'logs' } }, spec: { containers: [{ name: 'fluentd', image }] } },
      ...spec,
    },
  };
}

const node = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec });

async function start(simulatedNodes = 0): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], ...(simulatedNodes ? { simulatedNodes } : {}) });
  if (simulatedNodes) await eventually(async () => (await t!.json('GET', '/api/v1/nodes')).body.items.length, (n) => n === simulatedNodes, 'the nodes');
  return t;
}

const listPods = async (s: TestServer) => ((await s.json('GET', `${core}/pods`)).body.items as any[]).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
const targetOf = (p: any) => p.spec.nodeName ?? p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];
const podNodes = async (s: TestServer) => (await listPods(s)).filter((p) => !p.metadata.deletionTimestamp).map(targetOf).sort();
const getDs = async (s: TestServer) => (await s.json('GET', `${apps}/daemonsets/logs`)).body;
const revisions = async (s: TestServer) => ((await s.json('GET', `${apps}/controllerrevisions`)).body.items as any[]).sort((a, b) => a.revision - b.revision);
const events = async (s: TestServer) =>
  ((await s.json('GET', `${core}/events?fieldSelector=involvedObject.kind%3DDaemonSet`)).body.items as any[])
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
    .map((e) => `${e.type} ${e.reason} ${e.message}`);
const settle = () => new Promise((r) => setTimeout(r, 30));

/** kubectl's DaemonSetStatusViewer (rollout status). */
function rolloutStatus(ds: any): string {
  const s = ds.status ?? {};
  if (ds.metadata.generation > (s.observedGeneration ?? 0)) return 'Waiting for daemon set spec update to be observed...';
  if ((s.updatedNumberScheduled ?? 0) < s.desiredNumberScheduled) return `Waiting for daemon set "${ds.metadata.name}" rollout to finish: ${s.updatedNumberScheduled ?? 0} out of ${s.desiredNumberScheduled} new pods have been updated...`;
  if ((s.numberAvailable ?? 0) < s.desiredNumberScheduled) return `Waiting for daemon set "${ds.metadata.name}" rollout to finish: ${s.numberAvailable ?? 0} of ${s.desiredNumberScheduled} updated pods are available...`;
  return `daemon set "${ds.metadata.name}" successfully rolled out`;
}

/** What a kubelet reports for a started pod: Running and Ready (for Nodes made by hand, which have no kubelet). */
async function makeReady(s: TestServer, name: string): Promise<void> {
  const at = s.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
  const res = await s.json('PATCH', `${core}/pods/${name}/status`, { body: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } }, headers: mergePatch });
  expect(res.status).toBe(200);
}

describe('daemonset-controller', () => {
  it('[API-VER-152] one pod per Node made by hand, with the daemon tolerations, node affinity, labels and owner; a ControllerRevision, status and Events', async () => {
    const s = await start();
    for (const n of ['a', 'b']) expect((await s.json('POST', '/api/v1/nodes', { body: node(n) })).status).toBe(201);
    const created = await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ template: { metadata: { labels: { app: 'logs' }, annotations: { note: 'x' } }, spec: { hostNetwork: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }, { key: 'dedicated', operator: 'Equal', value: 'logs', effect: 'NoSchedule' }], containers: [{ name: 'fluentd', image: 'fluentd:v1' }] } } }) });
    expect(created.status).toBe(201);
    // PrepareForCreate: templateGeneration 1, carried in apps/v1 by its annotation.
    expect(created.body.metadata.annotations).toEqual({ 'deprecated.daemonset.template.generation': '1' });
    expect(created.body.spec.templateGeneration).toBeUndefined();
    expect(created.body.status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    const ds = created.body;
    const pods = await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    const [rev] = await revisions(s);
    const hash = rev.metadata.labels['controller-revision-hash'];
    expect(rev.metadata.name).toBe(`logs-${hash}`);
    expect(rev.metadata.labels).toEqual({ app: 'logs', 'controller-revision-hash': hash });
    expect(rev.metadata.annotations).toEqual({ 'deprecated.daemonset.template.generation': '1' });
    expect(rev.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'logs', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(rev.revision).toBe(1);
    expect(rev.data).toEqual({ spec: { template: { ...ds.spec.template, $patch: 'replace' } } });
    expect(pods.map(targetOf).sort()).toEqual(['a', 'b']);
    const pod = pods.find((p) => targetOf(p) === 'a');
    expect(pod.metadata.generateName).toBe('logs-');
    expect(Object.entries(pod.metadata.labels)).toEqual([['app', 'logs'], ['controller-revision-hash', hash], ['pod-template-generation', '1']]);
    expect(pod.metadata.annotations).toEqual({ note: 'x' });
    expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'logs', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(pod.spec.affinity).toEqual({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }] } } });
    // The template's unschedulable toleration is replaced in place; the others are added after the template's own.
    expect(pod.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'dedicated', operator: 'Equal', value: 'logs', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect(pod.spec.nodeName).toBeUndefined();
    const status = (await eventually(() => getDs(s), (d) => d.status?.currentNumberScheduled === 2, 'status')).status;
    expect(status).toEqual({ currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 0, observedGeneration: 1, updatedNumberScheduled: 2, numberUnavailable: 2 });
    // Event names are random: compare the messages, not the order the names give them.
    expect((await events(s)).sort()).toEqual(pods.map((p) => `Normal SuccessfulCreate Created pod: ${p.metadata.name}`).sort());
    await makeReady(s, pod.metadata.name);
    const after = (await eventually(() => getDs(s), (d) => d.status?.numberReady === 1, 'one ready')).status;
    expect(after).toMatchObject({ numberReady: 1, numberAvailable: 1, numberUnavailable: 1 });
    await settle();
    expect((await listPods(s)).length).toBe(2);
  });

  it('a Node added gets a pod; a NoSchedule taint keeps the pod (misscheduled), NoExecute or an unmatched nodeSelector removes it', async () => {
    const s = await start();
    expect((await s.json('POST', '/api/v1/nodes', { body: node('a', { disk: 'ssd' }) })).status).toBe(201);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ template: { metadata: { labels: { app: 'logs' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'fluentd', image: 'fluentd:v1' }] } } }) })).status).toBe(201);
    await eventually(() => podNodes(s), (l) => l.join() === 'a', 'pod on a');
    // Not selected: no pod.
    expect((await s.json('POST', '/api/v1/nodes', { body: node('b') })).status).toBe(201);
    expect((await s.json('POST', '/api/v1/nodes', { body: node('c', { disk: 'ssd' }) })).status).toBe(201);
    await eventually(() => podNodes(s), (l) => l.join() === 'a,c', 'pods on a and c');
    await settle();
    expect(await podNodes(s)).toEqual(['a', 'c']);
    // A NoSchedule taint: the pod may stay, but the node no longer counts as desired.
    expect((await s.json('PATCH', '/api/v1/nodes/c', { body: { spec: { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] } }, headers: mergePatch })).status).toBe(200);
    const tainted = (await eventually(() => getDs(s), (d) => d.status?.desiredNumberScheduled === 1, 'desired 1')).status;
    expect(tainted).toMatchObject({ currentNumberScheduled: 1, numberMisscheduled: 1, desiredNumberScheduled: 1 });
    expect(await podNodes(s)).toEqual(['a', 'c']);
    // NoExecute: it goes.
    const onC = (await listPods(s)).find((p) => targetOf(p) === 'c');
    expect((await s.json('PATCH', '/api/v1/nodes/c', { body: { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } }, headers: mergePatch })).status).toBe(200);
    await eventually(() => podNodes(s), (l) => l.join() === 'a', 'the pod on c deleted');
    expect(await events(s)).toContain(`Normal SuccessfulDelete Deleted pod: ${onC.metadata.name}`);
    // The node's label changes: the nodeSelector no longer matches.
    expect((await s.json('PATCH', '/api/v1/nodes/a', { body: { metadata: { labels: { disk: 'hdd' } } }, headers: mergePatch })).status).toBe(200);
    await eventually(() => podNodes(s), (l) => l.length === 0, 'the pod on a deleted');
    const status = (await eventually(() => getDs(s), (d) => d.status?.desiredNumberScheduled === 0 && d.status?.currentNumberScheduled === 0, 'nothing desired')).status;
    expect(status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, observedGeneration: 1 });
  });

  it('a failed pod is deleted and made again, a second failure within the backoff waits for it; a pod meant for a deleted Node goes', async () => {
    const s = await start();
    expect((await s.json('POST', '/api/v1/nodes', { body: node('a') })).status).toBe(201);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet() })).status).toBe(201);
    const [first] = await eventually(() => listPods(s), (l) => l.length === 1, 'a pod');
    expect((await s.json('PATCH', `${core}/pods/${first.metadata.name}/status`, { body: { status: { phase: 'Failed' } }, headers: mergePatch })).status).toBe(200);
    const [second] = await eventually(() => listPods(s), (l) => l.length === 1 && l[0].metadata.name !== first.metadata.name, 'a new pod');
    expect(await events(s)).toEqual([
      `Normal SuccessfulCreate Created pod: ${first.metadata.name}`,
      `Warning FailedDaemonPod Found failed daemon pod default/${first.metadata.name} on node a, will try to kill it`,
      `Normal SuccessfulDelete Deleted pod: ${first.metadata.name}`,
      `Normal SuccessfulCreate Created pod: ${second.metadata.name}`,
    ]);
    // Failing again at once: within the 1s backoff it stays, and goes once the backoff has passed.
    expect((await s.json('PATCH', `${core}/pods/${second.metadata.name}/status`, { body: { status: { phase: 'Failed' } }, headers: mergePatch })).status).toBe(200);
    await settle();
    expect((await listPods(s)).map((p) => p.metadata.name)).toEqual([second.metadata.name]);
    s.clock.advance(1000);
    const [third] = await eventually(() => listPods(s), (l) => l.length === 1 && l[0].metadata.name !== second.metadata.name, 'a third pod');
    expect(third.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values).toEqual(['a']);
    // getUnscheduledPodsWithoutNode: the node goes, the unbound pod meant for it too.
    expect((await s.json('DELETE', '/api/v1/nodes/a')).status).toBe(200);
    await eventually(() => listPods(s), (l) => l.length === 0, 'the pod deleted');
  });

  it('[API-VER-155] RollingUpdate (the default) on simulated nodes: one pod per node bound by the scheduler, replaced one at a time within maxUnavailable', async () => {
    const s = await start(3);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet() })).status).toBe(201);
    const ds = await eventually(() => getDs(s), (d) => d.status?.numberAvailable === 3, 'three available');
    expect(ds.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(ds.status).toEqual({ currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, observedGeneration: 1, updatedNumberScheduled: 3, numberAvailable: 3 });
    expect(rolloutStatus(ds)).toBe('daemon set "logs" successfully rolled out');
    const pods = await listPods(s);
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    expect(pods.every((p) => p.status.phase === 'Running')).toBe(true);
    const oldNames = pods.map((p) => p.metadata.name);
    // A new image: templateGeneration 2, a second revision, the pods replaced.
    const patched = await s.json('PATCH', `${apps}/daemonsets/logs`, { body: { spec: { template: { spec: { containers: [{ name: 'fluentd', image: 'fluentd:v2' }] } } } }, headers: mergePatch });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.generation).toBe(2);
    expect(patched.body.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
    const seen = new Set<string>();
    let maxMissing = 0;
    const done = await eventually(async () => {
      const l = (await listPods(s)).filter((p) => !p.metadata.deletionTimestamp);
      maxMissing = Math.max(maxMissing, 3 - l.length);
      for (const p of l) seen.add(p.metadata.name);
      return getDs(s);
    }, (d) => d.status?.updatedNumberScheduled === 3 && d.status?.numberAvailable === 3 && d.status.observedGeneration === 2, 'rolled out');
    expect(rolloutStatus(done)).toBe('daemon set "logs" successfully rolled out');
    const now = await listPods(s);
    expect(now.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    expect(now.every((p) => p.spec.containers[0].image === 'fluentd:v2' && p.metadata.labels['pod-template-generation'] === '2')).toBe(true);
    expect(now.some((p) => oldNames.includes(p.metadata.name))).toBe(false);
    expect(maxMissing).toBeLessThanOrEqual(1);
    const revs = await revisions(s);
    expect(revs.map((r) => r.revision)).toEqual([1, 2]);
    expect(now.every((p) => p.metadata.labels['controller-revision-hash'] === revs[1].metadata.labels['controller-revision-hash'])).toBe(true);
    const evs = await events(s);
    expect(evs.filter((e) => e.startsWith('Normal SuccessfulDelete')).length).toBe(3);
    expect(evs.filter((e) => e.startsWith('Normal SuccessfulCreate')).length).toBe(6);
    // Back to v1: the first revision becomes revision 3, no new one.
    expect((await s.json('PATCH', `${apps}/daemonsets/logs`, { body: { spec: { template: { spec: { containers: [{ name: 'fluentd', image: 'fluentd:v1' }] } } } }, headers: mergePatch })).status).toBe(200);
    await eventually(() => getDs(s), (d) => d.status?.observedGeneration === 3 && d.status?.updatedNumberScheduled === 3 && d.status?.numberAvailable === 3, 'rolled back');
    const back = await revisions(s);
    expect(back.map((r) => [r.metadata.name, r.revision])).toEqual([[revs[1].metadata.name, 2], [revs[0].metadata.name, 3]]);
  });

  it('maxSurge: the new pod starts beside the old one, which goes once the new one is available', async () => {
    const s = await start(2);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }) })).status).toBe(201);
    await eventually(() => getDs(s), (d) => d.status?.numberAvailable === 2, 'two available');
    expect((await s.json('PATCH', `${apps}/daemonsets/logs`, { body: { spec: { template: { spec: { containers: [{ name: 'fluentd', image: 'fluentd:v2' }] } } } }, headers: mergePatch })).status).toBe(200);
    let minAvailable = 2;
    let maxPods = 0;
    await eventually(async () => {
      const l = (await listPods(s)).filter((p) => !p.metadata.deletionTimestamp);
      maxPods = Math.max(maxPods, l.length);
      const d = await getDs(s);
      if (d.status.observedGeneration === 2) minAvailable = Math.min(minAvailable, d.status.numberAvailable ?? 0);
      return d;
    }, (d) => d.status?.observedGeneration === 2 && d.status.updatedNumberScheduled === 2 && d.status.numberAvailable === 2 && d.status.currentNumberScheduled === 2, 'surged');
    await eventually(() => listPods(s), (l) => l.length === 2, 'old pods gone');
    expect(maxPods).toBeLessThanOrEqual(3);
    expect(minAvailable).toBe(2);
    expect((await listPods(s)).every((p) => p.spec.containers[0].image === 'fluentd:v2')).toBe(true);
  });

  it('a cordoned simulated node still runs its daemon pod: the scheduler binds it through the unschedulable toleration and the node affinity', async () => {
    const s = await start(2);
    expect((await s.json('PATCH', '/api/v1/nodes/node-1', { body: { spec: { unschedulable: true } }, headers: mergePatch })).status).toBe(200);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet() })).status).toBe(201);
    await eventually(() => getDs(s), (d) => d.status?.numberAvailable === 2, 'two available');
    const pods = await listPods(s);
    expect(pods.map((p) => [p.spec.nodeName, targetOf({ spec: { affinity: p.spec.affinity } })]).sort()).toEqual([['node-1', 'node-1'], ['node-2', 'node-2']]);
    // A plain pod is kept off the cordoned node.
    expect((await s.json('POST', `${core}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, containers: [{ name: 'a', image: 'busybox' }] } } })).status).toBe(201);
    const plain = await eventually(async () => (await s.json('GET', `${core}/pods/plain`)).body, (p) => p.status?.conditions?.some((c: any) => c.type === 'PodScheduled'), 'plain judged');
    expect(plain.spec.nodeName).toBeUndefined();
  });

  it('OnDelete: a new template replaces a pod only when it is deleted', async () => {
    const s = await start();
    for (const n of ['a', 'b']) expect((await s.json('POST', '/api/v1/nodes', { body: node(n) })).status).toBe(201);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ updateStrategy: { type: 'OnDelete' } }) })).status).toBe(201);
    const pods = await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    expect((await s.json('PATCH', `${apps}/daemonsets/logs`, { body: { spec: { template: { spec: { containers: [{ name: 'fluentd', image: 'fluentd:v2' }] } } } }, headers: mergePatch })).status).toBe(200);
    const ds = await eventually(() => getDs(s), (d) => d.status?.observedGeneration === 2, 'observed');
    expect(ds.status).toEqual({ currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 0, observedGeneration: 2, numberUnavailable: 2 });
    await settle();
    expect((await listPods(s)).map((p) => p.metadata.name)).toEqual(pods.map((p) => p.metadata.name));
    expect((await s.json('DELETE', `${core}/pods/${pods[0].metadata.name}`)).status).toBe(200);
    const now = await eventually(() => listPods(s), (l) => l.length === 2 && !l.some((p) => p.metadata.name === pods[0].metadata.name), 'replaced');
    const fresh = now.find((p) => p.metadata.name !== pods[1].metadata.name);
    expect(fresh.spec.containers[0].image).toBe('fluentd:v2');
    expect(fresh.metadata.labels['pod-template-generation']).toBe('2');
    await eventually(() => getDs(s), (d) => d.status?.updatedNumberScheduled === 1, 'one updated');
  });

  it('an orphan matching the selector is adopted (OnDelete keeps it at its old template); an extra pod on a node is deleted', async () => {
    const s = await start();
    expect((await s.json('POST', '/api/v1/nodes', { body: node('a') })).status).toBe(201);
    const orphan = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { app: 'logs' } }, spec: { nodeName: 'a', containers: [{ name: 'fluentd', image: 'fluentd:v1' }] } };
    expect((await s.json('POST', `${core}/pods`, { body: orphan })).status).toBe(201);
    const created = await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ updateStrategy: { type: 'OnDelete' } }) });
    const adopted = await eventually(async () => (await s.json('GET', `${core}/pods/orphan`)).body, (p) => p.metadata.ownerReferences?.length === 1, 'adopted');
    expect(adopted.metadata.ownerReferences[0]).toMatchObject({ kind: 'DaemonSet', uid: created.body.metadata.uid, controller: true });
    await settle();
    expect((await listPods(s)).map((p) => p.metadata.name)).toEqual(['orphan']);
    // A second pod on the node: all but the oldest go.
    expect((await s.json('POST', `${core}/pods`, { body: { ...orphan, metadata: { name: 'twin', labels: { app: 'logs' } } } })).status).toBe(201);
    await eventually(() => listPods(s), (l) => l.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name).join() === 'orphan', 'the twin deleted');
    expect(await events(s)).toContain('Normal SuccessfulDelete Deleted pod: twin');
  });

  it('revisionHistoryLimit: old revisions no pod uses are deleted, oldest first', async () => {
    const s = await start();
    expect((await s.json('POST', '/api/v1/nodes', { body: node('a') })).status).toBe(201);
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet({ revisionHistoryLimit: 1 }) })).status).toBe(201);
    for (const image of ['fluentd:v2', 'fluentd:v3']) {
      await eventually(() => listPods(s), (l) => l.length === 1, 'one pod');
      expect((await s.json('PATCH', `${apps}/daemonsets/logs`, { body: { spec: { template: { spec: { containers: [{ name: 'fluentd', image }] } } } }, headers: mergePatch })).status).toBe(200);
      // An unbound pod never becomes available: RollingUpdate replaces it at once.
      await eventually(() => listPods(s), (l) => l.length === 1 && l[0].spec.containers[0].image === image, image);
    }
    const revs = await eventually(() => revisions(s), (l) => l.length === 2, 'two revisions');
    expect(revs.map((r) => [r.revision, r.data.spec.template.spec.containers[0].image])).toEqual([[2, 'fluentd:v2'], [3, 'fluentd:v3']]);
  });

  it('a create refused by a ResourceQuota is a FailedCreate event, tried again with backoff until the quota has room', async () => {
    const s = await start();
    for (const n of ['a', 'b']) expect((await s.json('POST', '/api/v1/nodes', { body: node(n) })).status).toBe(201);
    expect((await s.json('POST', `${core}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '1' } } } })).status).toBe(201);
    await eventually(async () => (await s.json('GET', `${core}/resourcequotas/pods`)).body.status?.hard, (h) => h?.pods === '1', 'quota status');
    expect((await s.json('POST', `${apps}/daemonsets`, { body: daemonSet() })).status).toBe(201);
    const evs = await eventually(() => events(s), (l) => l.some((e) => e.startsWith('Warning FailedCreate')), 'FailedCreate');
    expect(evs.find((e) => e.startsWith('Warning FailedCreate'))).toMatch(/^Warning FailedCreate Error creating: pods "logs-\w+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1$/);
    expect((await listPods(s)).length).toBe(1);
    expect((await eventually(() => getDs(s), (d) => d.status?.currentNumberScheduled === 1, 'status')).status).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 1 });
    expect((await s.json('PATCH', `${core}/resourcequotas/pods`, { body: { spec: { hard: { pods: '2' } } }, headers: mergePatch })).status).toBe(200);
    await eventually(() => podNodes(s), (l) => l.join() === 'a,b', 'both pods', 3000);
  });

  it('is off with --controllers=*,-daemonset; with apps/v1 switched off it is skipped and the server still starts', async () => {
    t = await newTestServer({ controllers: ['*', '-daemonset'] });
    expect((await t.json('POST', '/api/v1/nodes', { body: node('a') })).status).toBe(201);
    expect((await t.json('POST', `${apps}/daemonsets`, { body: daemonSet() })).status).toBe(201);
    await settle();
    expect(await listPods(t)).toEqual([]);
    await t.server.close();
    t = await newTestServer({ controllers: ['daemonset-controller', 'replicationcontroller-controller'], runtimeConfig: 'apps/v1=false' });
    expect((await t.json('GET', '/apis/apps/v1')).status).toBe(404);
    expect((await t.json('GET', '/readyz')).status).toBe(200);
  });
});
