/** metrics.k8s.io/v1beta1 on simulated nodes, as kubectl top reads it through HTTP. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const metricsPath = '/apis/metrics.k8s.io/v1beta1';

const pod = (name: string, containers: Record<string, unknown>[], annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name }, ...(annotations ? { annotations } : {}) },
  spec: { containers },
});
const container = (name: string, cpu?: string, memory?: string) => ({
  name,
  image: 'nginx:1.27',
  ...(cpu || memory ? { resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } } : {}),
});

async function running(s: TestServer, name: string): Promise<void> {
  await eventually(async () => (await s.json('GET', `${ns}/pods/${name}`)).body, (p) => p?.status?.phase === 'Running', `${name} running`);
}

describe('metrics.k8s.io on simulated nodes', () => {
  it('[API-PATH-001] is discovered as metrics-server serves it, only with simulated nodes', async () => {
    const plain = await newTestServer();
    expect((await plain.json('GET', metricsPath)).status).toBe(404);
    expect((await plain.json('GET', '/apis')).body.groups.map((g: any) => g.name)).not.toContain('metrics.k8s.io');
    await plain.server.close();

    t = await newTestServer({ simulatedNodes: 1 });
    const groups = (await t.json('GET', '/apis')).body.groups;
    expect(groups.find((g: any) => g.name === 'metrics.k8s.io')).toEqual({ name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' } });
    const resources = (await t.json('GET', metricsPath)).body.resources;
    expect(resources.map((r: any) => [r.name, r.kind, r.namespaced, r.verbs])).toEqual([
      ['nodes', 'NodeMetrics', false, ['get', 'list']],
      ['pods', 'PodMetrics', true, ['get', 'list']],
    ]);
  });

  it('installs metrics-server\'s aggregated reader ClusterRole, so the view role may read metrics (kubectl top under RBAC)', async () => {
    t = await newTestServer({ simulatedNodes: 1, controllers: ['*'], rbacBootstrap: true });
    const role = await eventually(async () => t!.json('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:aggregated-metrics-reader'), (r) => r.status === 200, 'the reader role');
    expect(role.body.rules).toEqual([{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }]);
    expect(role.body.metadata.labels['rbac.authorization.k8s.io/aggregate-to-view']).toBe('true');
    const view = await eventually(async () => (await t!.json('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view')).body.rules as any[], (rules) => rules.some((r) => r.apiGroups?.includes('metrics.k8s.io')), 'view aggregating the metrics rule');
    expect(view).toContainEqual({ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] });
  });

  it('[API-PATH-001] serves PodMetrics split by requests or defaulted, and NodeMetrics summing the pods plus overhead', async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const s = t;
    await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1')).status, (c) => c === 200, 'node-1');
    expect((await s.json('POST', `${ns}/pods`, { body: pod('web', [container('app', '300m', '64Mi'), container('sidecar', '100m', '64Mi')], { 'kubesim.io/cpu-usage': '800m', 'kubesim.io/memory-usage': '100Mi' }) })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('idle', [container('app', '200m', '100Mi'), container('bare')]) })).status).toBe(201);
    // Before it runs, a pod has no metrics: metrics-server's NotFound names the pod metrics.
    const early = await s.json('GET', `${metricsPath}/namespaces/default/pods/web`);
    if (early.status === 404) expect(early.body).toMatchObject({ reason: 'NotFound', message: 'podmetrics.metrics.k8s.io "default/web" not found', details: { name: 'default/web', group: 'metrics.k8s.io', kind: 'podmetrics' } });
    await running(s, 'web');
    await running(s, 'idle');

    const web = await s.json('GET', `${metricsPath}/namespaces/default/pods/web`);
    expect(web.status).toBe(200);
    expect(web.body).toEqual({
      kind: 'PodMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'web', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'web' } },
      timestamp: '2026-01-01T00:00:00Z',
      window: '20s',
      containers: [
        { name: 'app', usage: { cpu: '600m', memory: '50Mi' } },
        { name: 'sidecar', usage: { cpu: '200m', memory: '50Mi' } },
      ],
    });
    const list = await s.json('GET', `${metricsPath}/namespaces/default/pods`);
    expect(list.body.kind).toBe('PodMetricsList');
    expect(list.body.metadata).toEqual({});
    // Without annotations: a tenth of each request, 1m and 4Mi for a container that requests nothing.
    expect(list.body.items.map((p: any) => [p.metadata.name, p.containers])).toEqual([
      ['idle', [{ name: 'app', usage: { cpu: '20m', memory: '10Mi' } }, { name: 'bare', usage: { cpu: '1m', memory: '4Mi' } }]],
      ['web', web.body.containers],
    ]);
    const selected = await s.json('GET', `${metricsPath}/pods?labelSelector=app%3Didle`);
    expect(selected.body.items.map((p: any) => p.metadata.name)).toEqual(['idle']);

    const node = await s.json('GET', `${metricsPath}/nodes/node-1`);
    expect(node.body).toEqual({
      kind: 'NodeMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'node-1', creationTimestamp: '2026-01-01T00:00:00Z', labels: expect.objectContaining({ 'kubernetes.io/hostname': 'node-1' }) },
      timestamp: '2026-01-01T00:00:00Z',
      window: '20s',
      // 800m + 21m + 100m overhead; 100Mi + 14Mi + 512Mi.
      usage: { cpu: '921m', memory: '626Mi' },
    });
    expect((await s.json('GET', `${metricsPath}/nodes`)).body.items.map((n: any) => n.metadata.name)).toEqual(['node-1']);
  });

  it('[API-PATH-001] answers get and list only, and NotFound for what has no metrics', async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const watch = await t.json('GET', `${metricsPath}/pods?watch=true`);
    expect(watch.status).toBe(405);
    expect(watch.body).toMatchObject({ reason: 'MethodNotAllowed', message: 'watch is not supported on resources of kind "pods.metrics.k8s.io"' });
    expect((await t.json('DELETE', `${metricsPath}/nodes/node-1`)).status).toBe(405);
    const missing = await t.json('GET', `${metricsPath}/namespaces/default/pods/none`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('pods "none" not found');
    expect((await t.json('GET', `${metricsPath}/nodes/node-9`)).body.message).toBe('nodes "node-9" not found');
    expect((await t.json('GET', `${metricsPath}/pods?labelSelector=a%3D%3D%3Db`)).status).toBe(400);
  });

  it('[API-ENC-021] answers no protobuf: a client accepting only protobuf gets 406, one also accepting JSON gets JSON', async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const protobuf = 'application/vnd.kubernetes.protobuf';
    const only = await t.request('GET', `${metricsPath}/nodes`, { headers: { accept: protobuf } });
    expect(only.status).toBe(406);
    const either = await t.request('GET', `${metricsPath}/nodes`, { headers: { accept: `${protobuf}, application/json` } });
    expect(either.status).toBe(200);
    expect(either.headers.get('content-type')).toBe('application/json');
    expect((await either.json()).kind).toBe('NodeMetricsList');
    // A built-in resource beside it is served in protobuf.
    const pods = await t.request('GET', '/api/v1/namespaces/default/pods', { headers: { accept: protobuf } });
    expect([pods.status, pods.headers.get('content-type')]).toEqual([200, protobuf]);
  });

  it("the docs' resource tasks: stress holds its --vm-bytes, vish/stress is throttled to its cpu limit, and a container allocating past its memory limit is OOMKilled into CrashLoopBackOff", async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const s = t;
    const stress = (name: string, memory: { requests: string; limits: string }, args: string[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: `${name}-ctr`, image: 'polinux/stress', resources: { requests: { memory: memory.requests }, limits: { memory: memory.limits } }, command: ['stress'], args }] } });
    expect((await s.json('POST', `${ns}/pods`, { body: stress('memory-demo', { requests: '100Mi', limits: '200Mi' }, ['--vm', '1', '--vm-bytes', '150M', '--vm-hang', '1']) })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: stress('memory-demo-2', { requests: '50Mi', limits: '100Mi' }, ['--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1']) })).status).toBe(201);
    const cpuDemo = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'cpu-demo' }, spec: { containers: [{ name: 'cpu-demo-ctr', image: 'vish/stress', resources: { limits: { cpu: '1' }, requests: { cpu: '0.5' } }, args: ['-cpus', '2'] }] } };
    expect((await s.json('POST', `${ns}/pods`, { body: cpuDemo })).status).toBe(201);
    await running(s, 'memory-demo');
    await running(s, 'cpu-demo');
    const usage = async (name: string) => (await eventually(async () => await s.json('GET', `${metricsPath}/namespaces/default/pods/${name}`), (r) => r.status === 200, `${name} metrics`)).body.containers[0].usage;
    expect(await usage('memory-demo')).toEqual({ cpu: '0', memory: '151Mi' });
    // Two cores asked for, one allowed: CFS throttles it to its limit.
    expect((await usage('cpu-demo')).cpu).toBe('1');
    const status = await eventually(async () => (await s.json('GET', `${ns}/pods/memory-demo-2`)).body.status, (st) => st?.containerStatuses?.[0]?.lastState?.terminated !== undefined, 'the OOM kill');
    expect(status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
    expect(status.containerStatuses[0].state.waiting?.reason ?? status.containerStatuses[0].state.terminated?.reason).toMatch(/^(CrashLoopBackOff|OOMKilled)$/);
  });
});
