/** Deployment -> ReplicaSet -> Pod reconciliation, driven through HTTP as kubectl drives it. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const apps = '/apis/apps/v1/namespaces/default';
const pods = '/api/v1/namespaces/default/pods';
const mergePatch = { 'content-type': 'application/merge-patch+json' };

function deployment(name: string, replicas: number, image = 'nginx') {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } },
  };
}

const listPods = async (s: TestServer) => (await s.json('GET', pods)).body.items as any[];
const listRs = async (s: TestServer) => (await s.json('GET', `${apps}/replicasets`)).body.items as any[];

/** What kubectl rollout status prints for a Deployment (DeploymentStatusViewer). */
function rolloutStatus(d: any): string {
  if (d.metadata.generation > (d.status.observedGeneration ?? 0)) return 'Waiting for deployment spec update to be observed...';
  const cond = (d.status.conditions ?? []).find((c: any) => c.type === 'Progressing');
  if (cond?.reason === 'ProgressDeadlineExceeded') return `deployment "${d.metadata.name}" exceeded its progress deadline`;
  const s = d.status;
  if ((s.updatedReplicas ?? 0) < d.spec.replicas) return `${s.updatedReplicas ?? 0} out of ${d.spec.replicas} new replicas have been updated`;
  if ((s.replicas ?? 0) > (s.updatedReplicas ?? 0)) return `${s.replicas - s.updatedReplicas} old replicas are pending termination`;
  if ((s.availableReplicas ?? 0) < (s.updatedReplicas ?? 0)) return `${s.availableReplicas ?? 0} of ${s.updatedReplicas} updated replicas are available`;
  return 'successfully rolled out';
}

describe('deployment-controller and replicaset-controller', () => {
  it('a Deployment gets a ReplicaSet named by its pod-template-hash, which gets unbound Pending pods', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: deployment('web', 3) });
    const rs = (await eventually(() => listRs(s), (l) => l.length === 1, 'a ReplicaSet'))[0];
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: expect.any(String), controller: true, blockOwnerDeletion: true }]);
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    const created = await eventually(() => listPods(s), (l) => l.length === 3, 'three pods');
    for (const p of created) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(p.status.phase).toBe('Pending');
      expect(p.spec.nodeName).toBeUndefined();
      expect(p.metadata.ownerReferences[0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata.name, controller: true });
    }
    const d = await eventually(async () => (await s.json('GET', `${apps}/deployments/web`)).body, (x) => x.status.updatedReplicas === 3, 'deployment status');
    expect(d.metadata.annotations['deployment.kubernetes.io/revision']).toBe('1');
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, unavailableReplicas: 3 });
    expect(d.status.availableReplicas).toBeUndefined();
    const available = d.status.conditions.find((c: any) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    expect(d.status.conditions.find((c: any) => c.type === 'Progressing')).toMatchObject({ status: 'True' });
    // No kubelet: rollout status waits for availability, as on a cluster without nodes.
    expect(rolloutStatus(d)).toBe('0 of 3 updated replicas are available');
  });

  it('scale through the scale subresource adds and removes pods; ready pods make the rollout complete', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: deployment('web', 2) });
    await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    const scaled = await s.json('PATCH', `${apps}/deployments/web/scale`, { body: { spec: { replicas: 4 } }, headers: mergePatch });
    expect(scaled.status).toBe(200);
    await eventually(() => listPods(s), (l) => l.length === 4, 'four pods');
    await s.json('PATCH', `${apps}/deployments/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    const left = await eventually(() => listPods(s), (l) => l.length === 1, 'one pod');
    expect((await listRs(s))[0].spec.replicas).toBe(1);
    // A Ready condition written into the pod's status (what a kubelet would report) makes it available.
    const ready = { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } };
    expect((await s.json('PATCH', `${pods}/${left[0].metadata.name}/status`, { body: ready, headers: mergePatch })).status).toBe(200);
    const d = await eventually(async () => (await s.json('GET', `${apps}/deployments/web`)).body, (x) => x.status.availableReplicas === 1 && x.status.conditions.some((c: any) => c.reason === 'NewReplicaSetAvailable'), 'a complete rollout');
    expect(rolloutStatus(d)).toBe('successfully rolled out');
    expect(d.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ]);
    expect(d.status.conditions[1].message).toBe(`ReplicaSet "${(await listRs(s))[0].metadata.name}" has successfully progressed.`);
  });

  it('the controllers record Events kubectl describe lists: ScalingReplicaSet on the Deployment, SuccessfulCreate and SuccessfulDelete on the ReplicaSet; a repeat raises the count', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    const events = async (kind: string, name: string) =>
      (await s.json('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3D${kind},involvedObject.name%3D${name}`)).body.items as any[];
    const d = (await s.json('POST', `${apps}/deployments`, { body: deployment('web', 3) })).body;
    await eventually(() => listPods(s), (l) => l.length === 3, 'three pods');
    const rs = (await listRs(s))[0];
    const scaling = await eventually(() => events('Deployment', 'web'), (l) => l.length === 1, 'the scaling event');
    expect(scaling[0]).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { kind: 'Deployment', namespace: 'default', name: 'web', uid: d.metadata.uid, apiVersion: 'apps/v1' },
      reason: 'ScalingReplicaSet',
      message: `Scaled up replica set ${rs.metadata.name} from 0 to 3`,
      source: { component: 'deployment-controller' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:00Z',
      count: 1,
      type: 'Normal',
      reportingComponent: 'deployment-controller',
      reportingInstance: '',
    });
    expect(scaling[0].metadata.name).toMatch(/^web\.[0-9a-f]+$/);
    const created = await eventually(() => events('ReplicaSet', rs.metadata.name), (l) => l.length === 3, 'three SuccessfulCreate events');
    const podNames = (await listPods(s)).map((p) => p.metadata.name).sort();
    expect(created.map((e) => [e.type, e.reason, e.source.component])).toEqual(Array(3).fill(['Normal', 'SuccessfulCreate', 'replicaset-controller']));
    expect(created.map((e) => e.message).sort()).toEqual(podNames.map((n) => `Created pod: ${n}`));
    // Down to 1: the Deployment scales its ReplicaSet down, which deletes two pods.
    await s.json('PATCH', `${apps}/deployments/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    await eventually(() => events('ReplicaSet', rs.metadata.name), (l) => l.filter((e) => e.reason === 'SuccessfulDelete').length === 2, 'two SuccessfulDelete events');
    // Up to 3 and down to 1 again: the same two scaling events once more raise their counts.
    await eventually(() => events('Deployment', 'web'), (l) => l.length === 2, 'the scale-down event');
    await s.json('PATCH', `${apps}/deployments/web/scale`, { body: { spec: { replicas: 3 } }, headers: mergePatch });
    await eventually(() => listPods(s), (l) => l.length === 3, 'three pods again');
    await s.json('PATCH', `${apps}/deployments/web/scale`, { body: { spec: { replicas: 1 } }, headers: mergePatch });
    const twice = await eventually(() => events('Deployment', 'web'), (l) => l.length === 3 && l.some((e) => e.count === 2), 'a repeated scaling event');
    expect(twice.map((e) => [e.message, e.count])).toEqual([
      [`Scaled up replica set ${rs.metadata.name} from 0 to 3`, 1],
      [`Scaled down replica set ${rs.metadata.name} from 3 to 1`, 2],
      [`Scaled up replica set ${rs.metadata.name} from 1 to 3`, 1],
    ]);
  });

  it('events are correlated as client-go does: the tenth distinct message of a reason is combined, and past 25 writes one per five minutes gets through', async () => {
    t = await newTestServer({ controllers: ['*', '-deployment-controller'] });
    const s = t;
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'big' }, spec: { replicas: 30, selector: { matchLabels: { app: 'big' } }, template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
    expect((await s.json('POST', `${apps}/replicasets`, { body: rs })).status).toBe(201);
    const events = async () => (await s.json('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dbig')).body.items as any[];
    await eventually(() => listPods(s), (l) => l.length === 30, 'thirty pods');
    // Nine events of their own, then one combined Event; the 26th to 30th writes were filtered (the bucket holds 25).
    const written = await eventually(events, (l) => l.length === 10 && l[9].count === 16, 'the correlated events');
    expect(written.slice(0, 9).map((e) => [e.reason, e.count, e.reportingComponent])).toEqual(Array(9).fill(['SuccessfulCreate', 1, 'replicaset-controller']));
    const combined = written[9];
    expect(combined.message).toMatch(/^\(combined from similar events\): Created pod: big-[a-z0-9]{5}$/);
    expect(combined.reportingComponent).toBeUndefined();
    // Five minutes later the bucket has one token again: the next event (a delete) is written.
    s.clock.advance(300_000);
    await s.json('PATCH', `${apps}/replicasets/big`, { body: { spec: { replicas: 29 } }, headers: mergePatch });
    const after = await eventually(events, (l) => l.some((e) => e.reason === 'SuccessfulDelete'), 'the delete event');
    expect(after.filter((e) => e.reason === 'SuccessfulDelete')).toHaveLength(1);
    expect(after.find((e) => e.reason === 'SuccessfulDelete').lastTimestamp).toBe('2026-01-01T00:05:00Z');
  });

  it('a new template makes a second ReplicaSet (revision 2) and rolls within maxSurge', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: deployment('web', 4) });
    await eventually(() => listPods(s), (l) => l.length === 4, 'four pods');
    await s.json('PATCH', `${apps}/deployments/web`, { body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    // The rollout goes on while this test looks (unavailable old pods are scaled down within maxUnavailable), so any
    // moment with the second ReplicaSet will do: at every one, maxSurge 25% of 4 caps the pods at 5.
    const sets = await eventually(() => listRs(s), (l) => l.length === 2 && l.some((r) => r.spec.replicas >= 1 && r.metadata.annotations['deployment.kubernetes.io/revision'] === '2'), 'the second ReplicaSet');
    const total = sets.reduce((n, r) => n + r.spec.replicas, 0);
    expect(total).toBeLessThanOrEqual(5);
    const d = (await s.json('GET', `${apps}/deployments/web`)).body;
    expect(d.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
  });

  it('the Deployment\'s annotations reach its newest ReplicaSet (change-cause for rollout history); a ReplicaSet rolled back to keeps its old revisions in revision-history', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    const byRevision = (l: any[], r: string) => l.find((x) => x.metadata.annotations['deployment.kubernetes.io/revision'] === r);
    await s.json('POST', `${apps}/deployments`, { body: { ...deployment('web', 1), metadata: { name: 'web', annotations: { 'kubernetes.io/change-cause': 'first', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } } });
    const first = await eventually(() => listRs(s), (l) => l.length === 1, 'the first ReplicaSet');
    expect(first[0].metadata.annotations).toEqual({ 'kubernetes.io/change-cause': 'first', 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '1', 'deployment.kubernetes.io/max-replicas': '2' });
    // Annotating the Deployment later (kubectl annotate ... kubernetes.io/change-cause=...) updates the ReplicaSet of its template.
    await s.json('PATCH', `${apps}/deployments/web`, { body: { metadata: { annotations: { 'kubernetes.io/change-cause': 'annotated', team: 'a' } } }, headers: mergePatch });
    await eventually(() => listRs(s), (l) => l[0].metadata.annotations['kubernetes.io/change-cause'] === 'annotated' && l[0].metadata.annotations['team'] === 'a', 'the copied annotations');
    await s.json('PATCH', `${apps}/deployments/web`, { body: { metadata: { annotations: { 'kubernetes.io/change-cause': 'nginx:2' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    const two = await eventually(() => listRs(s), (l) => l.length === 2 && !!byRevision(l, '2'), 'revision 2');
    expect(byRevision(two, '2').metadata.annotations['kubernetes.io/change-cause']).toBe('nginx:2');
    // The old ReplicaSet is not the Deployment's template any more: it keeps what it had.
    expect(byRevision(two, '1').metadata.annotations['kubernetes.io/change-cause']).toBe('annotated');
    // Back to the first template (what kubectl rollout undo patches): that ReplicaSet becomes revision 3 and remembers 1.
    await s.json('PATCH', `${apps}/deployments/web`, { body: { metadata: { annotations: { 'kubernetes.io/change-cause': 'undo' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    const three = await eventually(() => listRs(s), (l) => !!byRevision(l, '3'), 'revision 3');
    expect(byRevision(three, '3').metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision-history': '1', 'kubernetes.io/change-cause': 'undo' });
    expect(byRevision(three, '3').metadata.name).toBe(first[0].metadata.name);
    const d = await eventually(async () => (await s.json('GET', `${apps}/deployments/web`)).body, (x) => x.metadata.annotations['deployment.kubernetes.io/revision'] === '3', 'the Deployment at revision 3');
    expect(d.metadata.annotations['deployment.kubernetes.io/revision-history']).toBeUndefined();
  });

  it('a paused Deployment still scales but makes no new ReplicaSet; Progressing says paused, then resumed', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: deployment('p', 1) });
    await eventually(() => listPods(s), (l) => l.length === 1, 'one pod');
    await s.json('PATCH', `${apps}/deployments/p`, { body: { spec: { paused: true, replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    const d = await eventually(async () => (await s.json('GET', `${apps}/deployments/p`)).body, (x) => x.status.conditions.some((c: any) => c.reason === 'DeploymentPaused'), 'the paused condition');
    expect(d.status.conditions.find((c: any) => c.type === 'Progressing')).toMatchObject({ status: 'Unknown', message: 'Deployment is paused' });
    expect(await listRs(s)).toHaveLength(1);
    await s.json('PATCH', `${apps}/deployments/p`, { body: { spec: { paused: null } }, headers: mergePatch });
    await eventually(() => listRs(s), (l) => l.length === 2, 'the new ReplicaSet after resuming');
  });

  it('a Deployment whose pods never become available exceeds its progress deadline on the server clock', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: { ...deployment('slow', 1), spec: { ...deployment('slow', 1).spec, progressDeadlineSeconds: 60 } } });
    await eventually(async () => (await s.json('GET', `${apps}/deployments/slow`)).body, (x) => x.status.updatedReplicas === 1, 'the rollout to start');
    s.clock.advance(30_000);
    await new Promise((r) => setTimeout(r, 20));
    expect((await s.json('GET', `${apps}/deployments/slow`)).body.status.conditions.find((c: any) => c.type === 'Progressing').status).toBe('True');
    // Each look moves the clock past the deadline again, whenever the controller scheduled its check.
    const d = await eventually(async () => {
      s.clock.advance(62_000);
      await new Promise((r) => setTimeout(r, 5));
      return (await s.json('GET', `${apps}/deployments/slow`)).body;
    }, (x) => x.status.conditions.some((c: any) => c.reason === 'ProgressDeadlineExceeded'), 'the deadline');
    const p = d.status.conditions.find((c: any) => c.type === 'Progressing');
    expect(p).toMatchObject({ status: 'False', message: expect.stringMatching(/^ReplicaSet "slow-[a-z0-9]+" has timed out progressing\.$/) });
    expect(rolloutStatus(d)).toBe('deployment "slow" exceeded its progress deadline');
  });

  it('[API-DEL-007] deleting a ReplicaSet with orphanDependents keeps its pods, which lose the owner reference', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/replicasets`, { body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 2, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } } });
    await eventually(() => listPods(s), (l) => l.length === 2, 'two pods');
    const d = await s.json('DELETE', `${apps}/replicasets/rs`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true } });
    expect(d.status).toBe(200);
    await eventually(async () => (await s.json('GET', `${apps}/replicasets/rs`)).status, (x) => x === 404, 'the ReplicaSet to go');
    const left = await eventually(() => listPods(s), (l) => l.every((p) => !p.metadata.ownerReferences), 'orphaned pods');
    expect(left).toHaveLength(2);
  });

  it('a ReplicaSet adopts a matching orphan pod (then has one too many) and releases a pod whose labels stop matching', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    await s.json('POST', `${apps}/replicasets`, { body: rs });
    const [first] = await eventually(() => listPods(s), (l) => l.length === 1, 'a pod');
    s.clock.advance(1000);
    await s.json('POST', pods, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } });
    const left = await eventually(() => listPods(s), (l) => l.length === 1 && l[0].metadata.ownerReferences?.[0]?.name === 'rs', 'the adoption and the scale-down');
    // The newest of the two goes first.
    expect(left[0].metadata.name).toBe(first.metadata.name);
    await s.json('PATCH', `${pods}/${first.metadata.name}`, { body: { metadata: { labels: { a: 'other' } } }, headers: mergePatch });
    const after = await eventually(() => listPods(s), (l) => l.length === 2 && l.some((p) => p.metadata.name === first.metadata.name && !p.metadata.ownerReferences), 'the release and a replacement');
    expect(after.filter((p) => p.metadata.ownerReferences?.[0]?.name === 'rs')).toHaveLength(1);
  });

  it('a ready pod counts as available once minReadySeconds have passed on the server clock', async () => {
    t = await newTestServer({ controllers: ['*'] });
    const s = t;
    await s.json('POST', `${apps}/replicasets`, { body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'slow' }, spec: { replicas: 1, minReadySeconds: 10, selector: { matchLabels: { a: 's' } }, template: { metadata: { labels: { a: 's' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } } });
    const [p] = await eventually(() => listPods(s), (l) => l.length === 1, 'a pod');
    await s.json('PATCH', `${pods}/${p.metadata.name}/status`, { body: { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, headers: mergePatch });
    const ready = await eventually(async () => (await s.json('GET', `${apps}/replicasets/slow`)).body.status, (st) => st.readyReplicas === 1, 'readiness');
    expect(ready.availableReplicas).toBeUndefined();
    s.clock.advance(11_000);
    await eventually(async () => (await s.json('GET', `${apps}/replicasets/slow`)).body.status, (st) => st.availableReplicas === 1, 'availability');
  });

  it('with --controllers=*,-deployment-controller a Deployment stays without ReplicaSets (the raw API)', async () => {
    t = await newTestServer({ controllers: ['*', '-deployment-controller'] });
    const s = t;
    await s.json('POST', `${apps}/deployments`, { body: deployment('web', 1) });
    await new Promise((r) => setTimeout(r, 30));
    expect(await listRs(s)).toEqual([]);
    // The ReplicaSet controller still runs.
    await s.json('POST', `${apps}/replicasets`, { body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } } });
    await eventually(() => listPods(s), (l) => l.length === 1, 'a pod');
  });
});

describe('root-ca-certificate-publisher-controller', () => {
  it('publishes kube-root-ca.crt in every namespace and puts it back when deleted or edited', async () => {
    t = await newTestServer({ controllers: ['*'], authentication: { serviceAccounts: { rootCA: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } } });
    const s = t;
    await s.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } });
    const path = '/api/v1/namespaces/team/configmaps/kube-root-ca.crt';
    const cm = await eventually(() => s.json('GET', path), (r) => r.status === 200, 'the ConfigMap');
    expect(cm.body.data).toEqual({ 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
    expect(cm.body.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
    expect((await s.json('GET', '/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt')).status).toBe(200);
    await s.json('DELETE', path);
    await eventually(() => s.json('GET', path), (r) => r.status === 200, 'the ConfigMap to come back');
    await s.json('PATCH', path, { body: { data: { 'ca.crt': 'edited' } }, headers: mergePatch });
    await eventually(() => s.json('GET', path), (r) => r.body.data['ca.crt'].startsWith('-----BEGIN'), 'the CA to be restored');
  });

  it('is off with --controllers=*,-root-ca-certificate-publisher-controller', async () => {
    t = await newTestServer({ controllers: ['*', '-root-ca-cert-publisher'] });
    await new Promise((r) => setTimeout(r, 20));
    expect((await t.json('GET', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).status).toBe(404);
    expect((await t.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status).toBe(200);
  });
});
