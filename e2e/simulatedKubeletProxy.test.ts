/** Real kubectl 1.32 reading a simulated node's kubelet through nodes/proxy, on a Node host started with --simulated-nodes=1. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 1 } });
  await eventually(async () => (await t.kubectl(['get', 'node', 'node-1'])).code, (c) => c === 0, 'node-1');
  expect((await t.kubectl(['run', 'web', '--image=nginx:1.27', '--annotations=kubesim.io/cpu-usage=250m', '--annotations=kubesim.io/memory-usage=64Mi'])).code).toBe(0);
  await eventually(async () => (await t.kubectl(['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', 'web running');
});
afterAll(async () => {
  await t?.stop();
});

const raw = async (path: string) => t.kubectl(['get', '--raw', `/api/v1/nodes/node-1/proxy${path}`]);

describe('kubectl get --raw through nodes/proxy to a simulated kubelet', () => {
  it('[AC-METRICS-012][AC-METRICS-013][AC-METRICS-034] /stats/summary: the node and the pod, their usage as kubectl top shows it, PSI included', async () => {
    const r = await raw('/stats/summary');
    expect(r.code).toBe(0);
    const { node, pods } = JSON.parse(r.stdout);
    expect(node.nodeName).toBe('node-1');
    expect(node.fs.capacityBytes).toBe(100 * 1024 ** 3);
    expect(node.runtime.imageFs.usedBytes).toBeGreaterThan(0);
    expect(Object.keys(node.cpu.psi)).toEqual(['full', 'some']);
    const web = pods.find((p: any) => p.podRef.name === 'web');
    expect(web.podRef.namespace).toBe('default');
    expect(web.cpu.usageNanoCores).toBe(250_000_000);
    expect(web.containers[0]).toMatchObject({ name: 'web', cpu: { usageNanoCores: 250_000_000 }, memory: { workingSetBytes: 64 * 1024 * 1024 } });
    expect(Object.keys(web.containers[0].memory.psi.some)).toEqual(['total', 'avg10', 'avg60', 'avg300']);
    const top = await eventually(async () => (await t.kubectl(['top', 'pod', 'web', '--no-headers'])).stdout.trim(), (out) => out.startsWith('web'), 'kubectl top');
    expect(top).toMatch(/^web\s+250m\s+64Mi$/);
  });

  it('[AC-METRICS-016][AC-METRICS-015][AC-METRICS-030] /metrics/resource, /metrics/cadvisor and /metrics', async () => {
    const resource = await raw('/metrics/resource');
    expect(resource.code).toBe(0);
    expect(resource.stdout).toContain('# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n');
    expect(resource.stdout).toMatch(/^container_memory_working_set_bytes\{container="web",namespace="default",pod="web"\} 6\.7108864e\+07 \d+$/m);
    expect(resource.stdout).toMatch(/^pod_cpu_usage_seconds_total\{namespace="default",pod="web"\} [\d.e+]+ \d+$/m);
    const cadvisor = await raw('/metrics/cadvisor');
    expect(cadvisor.code).toBe(0);
    expect(cadvisor.stdout).toMatch(/^container_cpu_usage_seconds_total\{container="web",cpu="total",id="\/kubepods\.slice\/\S+\.scope",image="docker\.io\/library\/nginx:1\.27",name="[0-9a-f]{64}",namespace="default",pod="web"\} /m);
    const own = await raw('/metrics');
    expect(own.stdout).toContain('nodeagent_metrics_provider{provider="cadvisor"} 1\n');
  });

  it('[AC-OTHER-004] /configz, /healthz; an unknown path is the kubelet\'s 404', async () => {
    const configz = await raw('/configz');
    expect(configz.code).toBe(0);
    expect(JSON.parse(configz.stdout).kubeletconfig).toMatchObject({ port: 10250, maxPods: 110, cgroupDriver: 'systemd' });
    expect(await raw('/healthz')).toMatchObject({ code: 0, stdout: 'ok' });
    const missing = await raw('/no/such/path');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('the server could not find the requested resource');
  });
});
