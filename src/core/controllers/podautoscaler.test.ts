/** The horizontal pod autoscaler on simulated nodes, driven through HTTP on the server's fake clock. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const apps = '/apis/apps/v1/namespaces/default';
const hpaPath = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';

const deployment = (replicas: number, cpuUsage: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { 'kubesim.io/cpu-usage': cpuUsage } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } }] },
    },
  },
});

const hpa = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    ...extra,
  },
});

async function cluster(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: 2 });
  const s = t;
  await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
  await eventually(async () => (await s.json('GET', '/api/v1/nodes')).body.items?.length, (n) => n === 2, 'the nodes');
  return s;
}

/** Pods of the Deployment that are Running and Ready. */
async function readyPods(s: TestServer, n: number): Promise<void> {
  await eventually(
    async () => (await s.json('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as any[],
    (items) => items.filter((p) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length === n && items.length === n,
    `${n} ready pods`,
  );
}

const getHpa = async (s: TestServer): Promise<any> => (await s.json('GET', `${hpaPath}/web`)).body;
const events = async (s: TestServer): Promise<[string, string, string][]> =>
  ((await s.json('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DHorizontalPodAutoscaler')).body.items as any[]).map((e) => [e.type, e.reason, e.message]);

describe('horizontal-pod-autoscaler-controller', () => {
  it('[API-PATH-008] scales a Deployment up through its scale when cpu utilization is above target, with kube\'s status, conditions and event', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${apps}/deployments`, { body: deployment(1, '80m') })).status).toBe(201);
    await readyPods(s, 1);
    // The pod's sample counts once a metrics window has passed since it became ready.
    s.clock.advance(30_000);
    const created = await s.json('POST', hpaPath, { body: hpa() });
    expect(created.status).toBe(201);
    // Nothing happens before the first sync period is over.
    await new Promise((r) => setTimeout(r, 50));
    expect((await getHpa(s)).metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    s.clock.advance(15_000);
    const scaled = await eventually(() => getHpa(s), (h) => h.status?.desiredReplicas === 2, 'the HPA scaling to 2');
    expect(scaled.metadata.resourceVersion).not.toBe(created.body.metadata.resourceVersion);
    expect(scaled.status).toEqual({
      lastScaleTime: '2026-01-01T00:00:45Z',
      currentReplicas: 1,
      desiredReplicas: 2,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 80, averageValue: '80m' } } }],
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 2' },
        { type: 'ScalingActive', status: 'True', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' },
        { type: 'ScalingLimited', status: 'False', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
      ],
    });
    expect((await s.json('GET', `${apps}/deployments/web/scale`)).body.spec.replicas).toBe(2);
    expect(await eventually(() => events(s), (e) => e.length === 1, 'the rescale event')).toEqual([['Normal', 'SuccessfulRescale', 'New size: 2; reason: cpu resource utilization (percentage of request) above target']]);
    // kubectl get hpa's TARGETS column reads the status.
    const table = await s.json('GET', `${hpaPath}/web`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.rows[0].cells.slice(0, 6)).toEqual(['web', 'Deployment/web', 'cpu: 80%/50%', '1', 5, 1]);
  });

  it('scales down only after the 300s stabilization window, and reports ScaleDownStabilized meanwhile', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${apps}/deployments`, { body: deployment(3, '20m') })).status).toBe(201);
    await readyPods(s, 3);
    s.clock.advance(30_000);
    await s.json('POST', hpaPath, { body: hpa() });
    s.clock.advance(15_000);
    // 20% of request against 50%: 3 -> 2 recommended, but the first recommendation (3) is in the window.
    const held = await eventually(() => getHpa(s), (h) => h.status?.conditions?.[0]?.reason === 'ScaleDownStabilized', 'the stabilized HPA');
    expect(held.status.currentReplicas).toBe(3);
    expect(held.status.desiredReplicas).toBe(3);
    expect(held.status.lastScaleTime).toBeUndefined();
    expect(held.status.conditions[0]).toEqual({ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    const rv = held.metadata.resourceVersion;
    // Another sync with nothing new writes nothing.
    s.clock.advance(15_000);
    await new Promise((r) => setTimeout(r, 50));
    expect((await getHpa(s)).metadata.resourceVersion).toBe(rv);
    // Five minutes after the first recommendation (at 00:00:45) it leaves the window.
    for (let i = 0; i < 20; i++) {
      s.clock.advance(15_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    const down = await eventually(() => getHpa(s), (h) => h.status?.desiredReplicas === 2, 'the HPA scaling down');
    expect(down.status.conditions[0].reason).toBe('SucceededRescale');
    expect((await events(s)).map((e) => e[2])).toContain('New size: 2; reason: All metrics below target');
  });

  it('reports a missing target and missing metrics with kube\'s reasons and messages', async () => {
    const s = await cluster();
    await s.json('POST', hpaPath, { body: hpa() });
    s.clock.advance(15_000);
    const failed = await eventually(() => getHpa(s), (h) => h.status?.conditions?.length === 1, 'the FailedGetScale condition');
    expect(failed.status.conditions).toEqual([{ type: 'AbleToScale', status: 'False', lastTransitionTime: '2026-01-01T00:00:15Z', reason: 'FailedGetScale', message: 'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found' }]);
    expect(await eventually(() => events(s), (e) => e.length === 1, 'the event')).toEqual([['Warning', 'FailedGetScale', 'deployments.apps "web" not found']]);

    // A target whose pods have no request for the metric's resource.
    const d = deployment(1, '80m');
    d.spec.template.spec.containers[0]!.resources = { requests: {} } as never;
    expect((await s.json('POST', `${apps}/deployments`, { body: d })).status).toBe(201);
    await readyPods(s, 1);
    s.clock.advance(30_000);
    const invalid = await eventually(() => getHpa(s), (h) => h.status?.conditions?.some((c: any) => c.type === 'ScalingActive'), 'ScalingActive');
    const podName = (await s.json('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items[0].metadata.name;
    expect(invalid.status.currentMetrics).toEqual([{ type: '' }]);
    expect(invalid.status.currentReplicas).toBe(1);
    expect(invalid.status.conditions[1]).toEqual({ type: 'ScalingActive', status: 'False', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod ${podName}` });
    const all = await eventually(() => events(s), (e) => e.length === 3, 'the metric events');
    expect(all.slice(1)).toEqual([
      ['Warning', 'FailedGetResourceMetric', `failed to get cpu utilization: missing request for cpu in container app of Pod ${podName}`],
      ['Warning', 'FailedComputeMetricsReplicas', `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container app of Pod ${podName}`],
    ]);
  });

  it('with spec.behavior, limits scale-up by its policies and records the scale events', async () => {
    const s = await cluster();
    expect((await s.json('POST', `${apps}/deployments`, { body: deployment(1, '500m') })).status).toBe(201);
    await readyPods(s, 1);
    s.clock.advance(30_000);
    // 500% of request against 50%: 10 wanted; one pod per 15s allowed; max 5.
    await s.json('POST', hpaPath, { body: hpa({ behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 15 }] } } }) });
    s.clock.advance(15_000);
    const limited = await eventually(() => getHpa(s), (h) => h.status?.desiredReplicas === 2, 'the limited scale-up');
    expect(limited.status.conditions[2]).toEqual({ type: 'ScalingLimited', status: 'True', lastTransitionTime: '2026-01-01T00:00:45Z', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    expect((await s.json('GET', `${apps}/deployments/web/scale`)).body.spec.replicas).toBe(2);
    // The next period allows one more.
    s.clock.advance(15_000);
    await eventually(() => getHpa(s), (h) => h.status?.desiredReplicas === 3, 'the next step');
    expect((await events(s)).map((e) => e[2])).toEqual(['New size: 2; reason: cpu resource utilization (percentage of request) above target', 'New size: 3; reason: cpu resource utilization (percentage of request) above target']);
  });

  it('scales on a memory AverageValue target, whose samples count at once (readiness only gates cpu)', async () => {
    const s = await cluster();
    const d = deployment(1, '10m');
    (d.spec.template.metadata.annotations as Record<string, string>)['kubesim.io/memory-usage'] = '200Mi';
    expect((await s.json('POST', `${apps}/deployments`, { body: d })).status).toBe(201);
    await readyPods(s, 1);
    await s.json('POST', hpaPath, { body: hpa({ metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }] }) });
    s.clock.advance(15_000);
    const scaled = await eventually(() => getHpa(s), (h) => h.status?.desiredReplicas === 2, 'the memory scale-up');
    expect(scaled.status.currentMetrics).toEqual([{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '209715200' } } }]);
    expect(scaled.status.conditions[1].message).toBe('the HPA was able to successfully calculate a replica count from memory resource');
    expect(await eventually(() => events(s), (e) => e.length === 1, 'the event')).toEqual([['Normal', 'SuccessfulRescale', 'New size: 2; reason: memory resource above target']]);
    const table = await s.json('GET', `${hpaPath}/web`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.body.rows[0].cells[2]).toBe('memory: 209715200/100Mi');
  });
});
