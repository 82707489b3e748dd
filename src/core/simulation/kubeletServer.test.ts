/** A simulated node's kubelet server, reached as kubectl reaches a kubelet: nodes/proxy through handle(). */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { FakeClock } from '../util/clock';
import { metricsProvider, runtimeReportsStats, serveKubelet } from './kubeletServer';
import type { KubeObject } from '../api/types';
import { sampleNode, statsSummary } from './kubeletStats';
import { authorizerFromModes } from '../auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../auth/authorizer/testing';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const proxy = '/api/v1/nodes/node-1/proxy';

/** One node running one pod `web` (cpu 100m used of a 200m request, memory 10% of its 128Mi request, a 256Mi limit), a minute after it started. */
async function cluster(options: Parameters<typeof newTestServer>[0] = {}): Promise<TestServer> {
  t = await newTestServer({ simulatedNodes: 1, ...options });
  const s = t;
  await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1')).status, (c) => c === 200, 'node-1');
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', annotations: { 'kubesim.io/cpu-usage': '100m' } },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '200m', memory: '128Mi' }, limits: { memory: '256Mi' } }, readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 10 } }],
      volumes: [{ name: 'scratch', emptyDir: {} }],
    },
  };
  expect((await s.json('POST', `${ns}/pods`, { body: pod })).status).toBe(201);
  await eventually(async () => (await s.json('GET', `${ns}/pods/web`)).body, (p) => p?.status?.phase === 'Running', 'web running');
  s.clock.advance(60_000);
  return s;
}

const text = async (s: TestServer, path: string) => {
  const r = await s.request('GET', path);
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
};

const noPressure = { total: 0, avg10: 0, avg60: 0, avg300: 0 };
const psi = { full: noPressure, some: noPressure };
const at = '2026-01-01T00:01:00Z';
const started = '2026-01-01T00:00:00Z';

describe('the simulated kubelet through nodes/proxy', () => {
  it('[AC-METRICS-012][AC-METRICS-013][AC-METRICS-034] /stats/summary: node and pod stats from the simulated usage, with PSI at every level', async () => {
    const s = await cluster();
    const r = await s.json('GET', `${proxy}/stats/summary`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const { node, pods } = r.body;
    expect(Object.keys(node)).toEqual(['nodeName', 'systemContainers', 'startTime', 'cpu', 'memory', 'io', 'network', 'fs', 'runtime', 'rlimit', 'swap']);
    expect(node.nodeName).toBe('node-1');
    expect(node.systemContainers.map((c: any) => c.name)).toEqual(['kubelet', 'runtime', 'pods']);
    // The overhead (100m) plus the pod's 100m, for the minute since the node and the container started.
    expect(node.cpu).toEqual({ time: at, usageNanoCores: 200_000_000, usageCoreNanoSeconds: 12_000_000_000, psi });
    expect(node.memory.workingSetBytes).toBe(512 * 1024 * 1024 + 13_421_772);
    expect(node.memory.availableBytes).toBe(16 * 1024 ** 3 - node.memory.workingSetBytes);
    expect(node.memory.psi).toEqual(psi);
    expect(node.io).toEqual({ time: at, psi });
    expect(node.fs.capacityBytes).toBe(100 * 1024 ** 3);
    expect(node.fs.availableBytes + node.fs.usedBytes).toBe(node.fs.capacityBytes);
    expect(Object.keys(node.runtime)).toEqual(['imageFs', 'containerFs']);
    expect(node.runtime.imageFs.capacityBytes).toBe(100 * 1024 ** 3);
    expect(node.rlimit).toEqual({ time: at, maxpid: 4194304, curproc: 121 });
    expect(node.swap).toEqual({ time: at, swapAvailableBytes: 0, swapUsageBytes: 0 });
    expect(node.network).toMatchObject({ time: at, name: 'eth0', rxErrors: 0, txErrors: 0 });

    expect(pods).toHaveLength(1);
    const [pod] = pods;
    const uid = (await s.json('GET', `${ns}/pods/web`)).body.metadata.uid;
    expect(Object.keys(pod)).toEqual(['podRef', 'startTime', 'containers', 'cpu', 'memory', 'io', 'network', 'volume', 'ephemeral-storage', 'process_stats', 'swap']);
    expect(pod.podRef).toEqual({ name: 'web', namespace: 'default', uid });
    expect(pod.startTime).toBe(started);
    expect(pod.cpu).toEqual({ time: at, usageNanoCores: 100_000_000, usageCoreNanoSeconds: 6_000_000_000, psi });
    expect(pod.process_stats).toEqual({ process_count: 1 });
    expect(pod.volume.map((v: any) => v.name)).toEqual(['scratch', expect.stringMatching(/^kube-api-access-/)]);
    expect(pod['ephemeral-storage'].usedBytes).toBe(48 * 1024 + 4096 + 4096);
    const [c] = pod.containers;
    expect(Object.keys(c)).toEqual(['name', 'startTime', 'cpu', 'memory', 'io', 'rootfs', 'logs', 'swap']);
    expect(c.cpu).toEqual(pod.cpu);
    expect(c.memory).toEqual({ time: at, availableBytes: 256 * 1024 * 1024 - 13_421_772, usageBytes: 13_421_772 + 1_677_721, workingSetBytes: 13_421_772, rssBytes: 11_744_050, pageFaults: 3276, majorPageFaults: 0, psi });
    expect(c.io).toEqual({ time: at, psi });
  });

  it('[AC-METRICS-012] the summary agrees with metrics.k8s.io (kubectl top); only_cpu_and_memory=true leaves the rest out', async () => {
    const s = await cluster();
    const { node, pods } = (await s.json('GET', `${proxy}/stats/summary?only_cpu_and_memory=true`)).body;
    expect(Object.keys(node)).toEqual(['nodeName', 'systemContainers', 'startTime', 'cpu', 'memory', 'swap']);
    expect(Object.keys(pods[0])).toEqual(['podRef', 'startTime', 'containers', 'cpu', 'memory', 'swap']);
    const top = (await s.json('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web')).body;
    expect(pods[0].containers[0].cpu.usageNanoCores).toBe(100_000_000);
    expect(top.containers[0].usage).toEqual({ cpu: '100m', memory: String(pods[0].containers[0].memory.workingSetBytes) });
  });

  it('[AC-METRICS-016] /metrics/resource: the resource metrics collector, with [STABLE] markers and sample timestamps', async () => {
    const s = await cluster();
    const r = await text(s, `${proxy}/metrics/resource`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const ts = Date.parse(at);
    const lines = r.body.split('\n');
    for (const line of [
      '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
      '# TYPE node_cpu_usage_seconds_total counter',
      `node_cpu_usage_seconds_total 12 ${ts}`,
      '# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes',
      `node_memory_working_set_bytes 5.50292684e+08 ${ts}`,
      `pod_cpu_usage_seconds_total{namespace="default",pod="web"} 6 ${ts}`,
      `pod_memory_working_set_bytes{namespace="default",pod="web"} 1.3421772e+07 ${ts}`,
      `container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 6 ${ts}`,
      `container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 1.3421772e+07 ${ts}`,
      '# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds',
      'container_start_time_seconds{container="app",namespace="default",pod="web"} 1.7672256e+09',
      '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
      'resource_scrape_error 0',
    ]) expect(lines).toContain(line);
    // scrape_error, deprecated in 1.29, is hidden by now.
    expect(r.body).not.toMatch(/^scrape_error/m);
  });

  it('[AC-METRICS-015] /metrics/cadvisor: container_* series for the root, the pod and the container cgroups, with cAdvisor\'s labels', async () => {
    const s = await cluster();
    const r = await text(s, `${proxy}/metrics/cadvisor`);
    expect(r.status).toBe(200);
    const pod = (await s.json('GET', `${ns}/pods/web`)).body;
    const id = pod.status.containerStatuses[0].containerID.replace('containerd://', '');
    const cgroup = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${pod.metadata.uid.replace(/-/g, '_')}.slice`;
    const labels = `container="app",id="${cgroup}/cri-containerd-${id}.scope",image="docker.io/library/nginx:1.27",name="${id}",namespace="default",pod="web"`;
    const ts = Date.parse(at);
    const lines = r.body.split('\n');
    for (const line of [
      '# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds.',
      `container_cpu_usage_seconds_total{container="",cpu="total",id="/",image="",name="",namespace="",pod=""} 12 ${ts}`,
      `container_cpu_usage_seconds_total{container="",cpu="total",id="${cgroup}",image="",name="",namespace="default",pod="web"} 6 ${ts}`,
      `container_cpu_usage_seconds_total{container="app",cpu="total",id="${cgroup}/cri-containerd-${id}.scope",image="docker.io/library/nginx:1.27",name="${id}",namespace="default",pod="web"} 6 ${ts}`,
      `container_memory_working_set_bytes{${labels}} 1.3421772e+07 ${ts}`,
      `container_start_time_seconds{${labels}} 1.7672256e+09`,
      `container_spec_memory_limit_bytes{${labels}} 2.68435456e+08`,
      `container_spec_cpu_shares{${labels}} 204`,
      `container_pressure_cpu_waiting_seconds_total{${labels}} 0 ${ts}`,
      'container_scrape_error 0',
      '# TYPE machine_cpu_cores gauge',
    ]) expect(lines).toContain(line);
  });

  it('[AC-METRICS-030][AC-METRICS-025] /metrics: nodeagent_metrics_provider is cadvisor by default', async () => {
    const s = await cluster();
    const r = await text(s, `${proxy}/metrics`);
    expect(r.status).toBe(200);
    expect(r.body.split('\n')).toEqual(expect.arrayContaining(['nodeagent_metrics_provider{provider="cadvisor"} 1', 'kubelet_node_name{node="node-1"} 1', 'kubelet_running_pods 1']));
  });

  it('[AC-METRICS-026][AC-METRICS-031][AC-METRICS-027][AC-METRICS-028][AC-METRICS-029] with PodAndContainerStatsFromCRI on, the simulated containerd 2.0 cannot report stats: cadvisor still provides, content unchanged', async () => {
    const s = await cluster({ featureGates: { PodAndContainerStatsFromCRI: true } });
    expect((await text(s, `${proxy}/metrics`)).body).toContain('nodeagent_metrics_provider{provider="cadvisor"} 1\n');
    const { node, pods } = (await s.json('GET', `${proxy}/stats/summary`)).body;
    expect(node.fs.capacityBytes).toBe(100 * 1024 ** 3);
    expect(node.runtime.imageFs.usedBytes).toBeGreaterThan(0);
    expect(pods[0].containers.map((c: any) => c.name)).toEqual(['app']);
    expect((await text(s, `${proxy}/metrics/cadvisor`)).body).toMatch(/^container_cpu_usage_seconds_total\{container="app"/m);
    expect((await s.json('GET', `${proxy}/configz`)).body.kubeletconfig.featureGates).toEqual({ PodAndContainerStatsFromCRI: true });
  });

  it('[AC-METRICS-025][AC-METRICS-026] the runtime provides the stats with the gate on and containerd 2.2+ or CRI-O 1.31+', async () => {
    expect(['containerd://2.2.0', 'containerd://2.3.1', 'cri-o://1.31.0', 'containerd://2.0.0', 'containerd://1.7.18', 'cri-o://1.30.4', 'docker://27.0.1'].map(runtimeReportsStats)).toEqual([true, true, true, false, false, false, false]);
    const node = (runtime: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { nodeInfo: { containerRuntimeVersion: runtime } } }) as KubeObject;
    expect(metricsProvider(node('containerd://2.2.0'), { PodAndContainerStatsFromCRI: true })).toBe('cri');
    expect(metricsProvider(node('containerd://2.2.0'), { PodAndContainerStatsFromCRI: false })).toBe('cadvisor');
    expect(metricsProvider(node('containerd://2.0.0'), { PodAndContainerStatsFromCRI: true })).toBe('cadvisor');
    const r = await serveKubelet({ node: node('containerd://2.2.0'), listPods: async () => [], clock: new FakeClock('2026-01-01T00:00:00Z'), gates: { PodAndContainerStatsFromCRI: true } }, 'GET', '/metrics', new URLSearchParams());
    expect(await r.text()).toContain('nodeagent_metrics_provider{provider="cri"} 1\n');
  });

  it('[AC-OTHER-004] /configz, /healthz, /pods and /metrics/probes; an unknown path is the kubelet\'s 404, a write its 405', async () => {
    const s = await cluster();
    const configz = await s.json('GET', `${proxy}/configz`);
    expect(configz.status).toBe(200);
    expect(Object.keys(configz.body)).toEqual(['kubeletconfig']);
    expect(configz.body.kubeletconfig).toMatchObject({ port: 10250, maxPods: 110, nodeLeaseDurationSeconds: 40, nodeStatusReportFrequency: '5m0s', cgroupDriver: 'systemd', authorization: { mode: 'Webhook' } });
    expect(configz.body.kubeletconfig.featureGates).toBeUndefined();
    expect(await text(s, `${proxy}/healthz`)).toEqual({ status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
    const pods = (await s.json('GET', `${proxy}/pods`)).body;
    expect([pods.kind, pods.apiVersion, pods.metadata]).toEqual(['PodList', 'v1', {}]);
    expect(pods.items.map((p: any) => [p.metadata.name, p.spec.nodeName, p.status.phase, p.kind])).toEqual([['web', 'node-1', 'Running', undefined]]);
    const probes = (await text(s, `${proxy}/metrics/probes`)).body;
    const uid = pods.items[0].metadata.uid;
    expect(probes).toContain(`prober_probe_total{container="app",namespace="default",pod="web",pod_uid="${uid}",probe_type="Readiness",result="successful"} 7\n`);
    expect(await text(s, `${proxy}/no/such/path`)).toEqual({ status: 404, type: 'text/plain; charset=utf-8', body: '404 page not found\n' });
    expect((await s.request('POST', `${proxy}/stats/summary`)).status).toBe(405);
    // The kubelet port named explicitly is the same kubelet.
    expect((await s.request('GET', '/api/v1/nodes/https:node-1:10250/proxy/healthz')).status).toBe(200);
  });

  it('/metrics/probes counts what each probe found: failed until the file exists, then successful; an exec that cannot start is thrown away, uncounted and never a kill; the counts go with the pod', async () => {
    const s = await cluster();
    const probe = (command: string[], extra: Record<string, unknown> = {}) => ({ exec: { command }, periodSeconds: 5, ...extra });
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probed' },
      spec: {
        containers: [{
          name: 'app',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'sleep 12; touch /tmp/ready; sleep 3600'],
          readinessProbe: probe(['test', '-f', '/tmp/ready']),
          livenessProbe: probe(['no-such-tool'], { failureThreshold: 1 }),
        }],
      },
    };
    expect((await s.json('POST', `${ns}/pods`, { body: pod })).status).toBe(201);
    const running = await eventually(async () => (await s.json('GET', `${ns}/pods/probed`)).body, (p) => !!p?.status?.containerStatuses?.[0]?.state?.running, 'probed running');
    const uid = running.metadata.uid;
    // Probes at 0, 5, 10 (no file yet), 15 and 20s (the file is there).
    for (let i = 0; i < 20; i++) {
      s.clock.advance(1_000);
      await new Promise((r) => setTimeout(r, 5));
    }
    const line = (type: string, result: string) => `prober_probe_total{container="app",namespace="default",pod="probed",pod_uid="${uid}",probe_type="${type}",result="${result}"}`;
    const counts = async () => {
      const text = (await s.request('GET', `${proxy}/metrics/probes`)).text();
      return Object.fromEntries((await text).split('\n').filter((l) => l.includes('pod="probed"')).map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
    };
    const seen = await eventually(counts, (c) => c[line('Readiness', 'successful')] === 2, 'the probe at 20s');
    expect(seen).toEqual({ [line('Readiness', 'failed')]: 3, [line('Readiness', 'successful')]: 2 });
    expect((await s.json('GET', `${ns}/pods/probed`)).body.status.containerStatuses[0]).toMatchObject({ ready: true, restartCount: 0, state: { running: {} } });
    const events = (await s.json('GET', `${ns}/events?fieldSelector=involvedObject.name%3Dprobed%2Creason%3DUnhealthy`)).body.items;
    // Each errored exec names its own exec id, so its events are not one.
    const tally: Record<string, number> = {};
    for (const e of events) {
      const key = e.message.replace(/exec "\w+": .*$/s, 'exec "…": …');
      tally[key] = (tally[key] ?? 0) + e.count;
    }
    expect(tally).toEqual({ 'Liveness probe errored: rpc error: code = Unknown desc = failed to exec in container: failed to start exec "…": …': 5, 'Readiness probe failed: ': 3 });
    expect((await s.json('DELETE', `${ns}/pods/probed`)).status).toBe(200);
    s.clock.advance(30_000);
    await eventually(async () => (await s.json('GET', `${ns}/pods/probed`)).status, (c) => c === 404, 'probed deleted');
    expect(await counts()).toEqual({});
  });

  it('a stopped kubelet, another port of the node and a node that is not simulated are dialed and fail as before', async () => {
    const s = await cluster();
    const other = await s.json('GET', '/api/v1/nodes/node-1:10255/proxy/metrics');
    expect([other.status, other.body.message]).toEqual([400, 'lookup node-1: no such host']);
    await s.json('PATCH', '/api/v1/nodes/node-1', { body: { metadata: { annotations: { 'kubesim.io/kubelet': 'stopped' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const stopped = await s.json('GET', `${proxy}/stats/summary`);
    expect([stopped.status, stopped.body.message]).toEqual([400, 'lookup node-1: no such host']);
    await s.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } } });
    const real = await s.json('GET', '/api/v1/nodes/real/proxy/stats/summary');
    expect([real.status, real.body.message]).toEqual([503, 'error trying to reach service: dial tcp 10.0.0.7:10250: connect: connection refused']);
  });

  it('[AC-METRICS-034] a container using more cpu than its limit shows cpu pressure (some), up to its pod and in cAdvisor\'s waiting seconds', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', creationTimestamp: started }, status: { capacity: { cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi' } } } as KubeObject;
    const running = { running: { startedAt: started } };
    const pod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'hot', namespace: 'default', uid: 'u-1', annotations: { 'kubesim.io/cpu-usage': '200m' } },
      spec: { nodeName: 'n', containers: [{ name: 'c', image: 'busybox', resources: { limits: { cpu: '100m' } } }] },
      status: { phase: 'Running', startTime: started, containerStatuses: [{ name: 'c', state: running, containerID: 'containerd://abc' }] },
    } as KubeObject;
    const summary = statsSummary(sampleNode(node, [pod], new Date(at))) as any;
    const some = { total: 30_000_000, avg10: 50, avg60: 50, avg300: 50 };
    expect(summary.pods[0].containers[0].cpu.psi).toEqual({ full: noPressure, some });
    expect(summary.pods[0].cpu.psi.some.avg10).toBe(50);
    expect(summary.node.cpu.psi).toEqual(psi);
  });

  it('[AC-METRICS-013] authorized as get on nodes/proxy, as any nodes/proxy request', async () => {
    t = await newTestServer({ simulatedNodes: 1, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) });
    const s = t;
    const admin = asUser('root', 'system:masters');
    const dev = asUser('dev');
    await eventually(async () => (await s.json('GET', '/api/v1/nodes/node-1', { headers: admin })).status, (c) => c === 200, 'node-1');
    const denied = await s.json('GET', `${proxy}/stats/summary`, { headers: dev });
    expect([denied.status, denied.body.message]).toEqual([403, 'nodes "node-1" is forbidden: User "dev" cannot get resource "nodes/proxy" in API group "" at the cluster scope']);
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'node-stats' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }] };
    expect((await s.json('POST', `${rbac}/clusterroles`, { body: role, headers: admin })).status).toBe(201);
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'node-stats' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-stats' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }] };
    expect((await s.json('POST', `${rbac}/clusterrolebindings`, { body: binding, headers: admin })).status).toBe(201);
    const allowed = await eventually(async () => s.json('GET', `${proxy}/stats/summary`, { headers: dev }), (r) => r.status === 200, 'allowed');
    expect(allowed.body.node.nodeName).toBe('node-1');
  });
});
