/**
 * Real kubectl 1.32 against the Node host: a Service's Endpoints and
 * EndpointSlices filled by their controllers, as `kubectl get endpoints`,
 * `kubectl describe svc` and `kubectl get endpointslices` show them. There
 * is no kubelet: the test reports the pods' IPs and readiness itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

async function report(pod: string, ip: string, ready: boolean): Promise<void> {
  const status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  const r = await t.kubectl(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
  expect(r.code, r.stderr).toBe(0);
}

describe('kubectl and a Service\'s endpoints', () => {
  it('the kubernetes Service lists the API server: get endpoints, get endpointslices and describe svc show its advertise address', async () => {
    const flags = { flags: { advertiseAddress: '192.168.49.2', securePort: 7443 } };
    const host = await startTestHost(flags);
    try {
      const ep = await host.kubectl(['get', 'endpoints', 'kubernetes']);
      expect(ep.stdout.split('\n')[1]).toMatch(/^kubernetes\s+192\.168\.49\.2:7443\s+\S+$/);
      const slice = await host.kubectl(['get', 'endpointslices', 'kubernetes']);
      expect(slice.stdout.split('\n')[1]).toMatch(/^kubernetes\s+IPv4\s+7443\s+192\.168\.49\.2\s+\S+$/);
      const described = await host.kubectl(['describe', 'svc', 'kubernetes']);
      expect(described.stdout).toMatch(/\nTargetPort:\s+7443\/TCP\nEndpoints:\s+192\.168\.49\.2:7443\n/);
    } finally {
      await host.stop();
    }
  });

  it('kubectl expose, then get endpoints, describe svc and get endpointslices follow the pods as they report IPs and readiness', async () => {
    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2', '--port=80'])).code).toBe(0);
    const exposed = await t.kubectl(['expose', 'deployment', 'web', '--port=8080', '--target-port=80']);
    expect(exposed.stdout.trim(), exposed.stderr).toBe('service/web exposed');
    const pods = (await eventually(() => stdout(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}']), (out) => out.split(' ').filter(Boolean).length === 2, 'two pods')).split(' ');

    // No pod has an IP: the Endpoints exists, empty; the placeholder slice has no endpoints.
    const none = await eventually(() => t.kubectl(['get', 'endpoints', 'web']), (r) => r.code === 0, 'the Endpoints');
    expect(none.stdout.split('\n')[0]).toMatch(/^NAME\s+ENDPOINTS\s+AGE$/);
    expect(none.stdout.split('\n')[1]).toMatch(/^web\s+<none>\s+\S+$/);
    expect((await t.kubectl(['describe', 'svc', 'web'])).stdout).toMatch(/\nEndpoints:\s+\n/);
    const placeholder = await eventually(() => t.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']), (r) => r.stdout.includes('web-'), 'the placeholder slice');
    expect(placeholder.stdout.split('\n')[0]).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    expect(placeholder.stdout.split('\n')[1]).toMatch(/^web-[a-z0-9]{5}\s+IPv4\s+<unset>\s+<unset>\s+\S+$/);

    await report(pods[0]!, '10.244.0.11', true);
    await report(pods[1]!, '10.244.0.12', false);
    const one = await eventually(() => stdout(['get', 'endpoints', 'web']), (out) => out.includes('10.244.0.11'), 'the ready pod listed');
    expect(one.split('\n')[1]).toMatch(/^web\s+10\.244\.0\.11:80\s+\S+$/);
    // The pod that is not ready is listed apart.
    expect(await stdout(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].notReadyAddresses[0].ip} {.subsets[0].notReadyAddresses[0].targetRef.name}'])).toBe(`10.244.0.12 ${pods[1]}`);

    await report(pods[1]!, '10.244.0.12', true);
    const both = await eventually(() => stdout(['get', 'endpoints', 'web']), (out) => out.includes('10.244.0.12'), 'both pods listed');
    expect(both.split('\n')[1]).toMatch(/^web\s+10\.244\.0\.11:80,10\.244\.0\.12:80\s+\S+$/);
    const described = (await t.kubectl(['describe', 'svc', 'web'])).stdout;
    expect(described).toMatch(/\nEndpoints:\s+10\.244\.0\.11:80,10\.244\.0\.12:80\n/);
    expect(described).toMatch(/\nSelector:\s+app=web\n/);

    const slices = await eventually(() => stdout(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']), (out) => out.includes('10.244.0.12'), 'the slice filled');
    expect(slices.split('\n')).toHaveLength(2);
    expect(slices.split('\n')[1]).toMatch(/^web-[a-z0-9]{5}\s+IPv4\s+80\s+10\.244\.0\.1[12],10\.244\.0\.1[12]\s+\S+$/);
    // The placeholder was filled in place, not replaced.
    expect(slices.split('\n')[1]!.split(/\s+/)[0]).toBe(placeholder.stdout.split('\n')[1]!.split(/\s+/)[0]);

    // Scaling down removes a pod: its address leaves both.
    expect((await t.kubectl(['scale', 'deployment', 'web', '--replicas=1'])).code).toBe(0);
    const left = await eventually(() => stdout(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}']), (out) => out !== '' && !out.includes(' '), 'one address left');
    await eventually(() => stdout(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}']), (out) => out === left, 'the slice follows');

    // Deleting the Service deletes its Endpoints and (through the garbage collector) its slices.
    expect((await t.kubectl(['delete', 'svc', 'web'])).code).toBe(0);
    await eventually(() => t.kubectl(['get', 'endpoints', 'web']), (r) => r.code !== 0, 'the Endpoints deleted');
    expect((await t.kubectl(['get', 'endpoints', 'web'])).stderr.trim().split('\n').at(-1)).toBe('Error from server (NotFound): endpoints "web" not found');
    await eventually(() => stdout(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'name']), (out) => out === '', 'the slices collected');
  });

  it('--max-endpoints-per-slice=1: each ready pod in a slice of its own', async () => {
    const small = await startTestHost({ flags: { maxEndpointsPerSlice: 1 } });
    try {
      const run = async (args: string[]) => (await small.kubectl(args)).stdout.trim();
      expect((await small.kubectl(['create', 'deployment', 'api', '--image=nginx:1.27', '--replicas=2', '--port=80'])).code).toBe(0);
      expect((await small.kubectl(['expose', 'deployment', 'api', '--port=80'])).code).toBe(0);
      const pods = (await eventually(() => run(['get', 'pods', '-l', 'app=api', '-o', 'jsonpath={.items[*].metadata.name}']), (out) => out.split(' ').filter(Boolean).length === 2, 'two pods')).split(' ');
      for (const [i, name] of pods.entries()) {
        const status = { phase: 'Running', podIP: `10.244.1.${i + 1}`, podIPs: [{ ip: `10.244.1.${i + 1}` }], conditions: [{ type: 'Ready', status: 'True' }] };
        expect((await small.kubectl(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })])).code).toBe(0);
      }
      const listed = await eventually(() => run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=api']), (out) => out.includes('10.244.1.1') && out.includes('10.244.1.2'), 'two slices');
      const rows = listed.split('\n').slice(1).map((row) => row.split(/\s+/).slice(1, 4).join(' ')).sort();
      expect(rows).toEqual(['IPv4 80 10.244.1.1', 'IPv4 80 10.244.1.2']);
    } finally {
      await small.stop();
    }
  });

  it('with simulated nodes the kubelets report the pods and the endpoints follow by themselves', async () => {
    const sim = await startTestHost({ flags: { simulatedNodes: 2 } });
    try {
      const run = async (args: string[]) => (await sim.kubectl(args)).stdout.trim();
      expect((await sim.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'])).code).toBe(0);
      expect((await sim.kubectl(['expose', 'deployment', 'web', '--port=8080', '--target-port=80'])).code).toBe(0);
      const ips = (await eventually(() => run(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[?(@.status.podIP)].status.podIP}']), (out) => out.split(' ').filter(Boolean).length === 3, 'three pods with IPs')).split(' ');
      const line = await eventually(() => run(['get', 'endpoints', 'web']), (out) => ips.every((ip) => out.includes(`${ip}:80`)), 'the three addresses');
      expect(line.split('\n')[1]).toMatch(/^web\s+(10\.244\.\d+\.\d+:80,){2}10\.244\.\d+\.\d+:80\s+\S+$/);
      expect((await sim.kubectl(['describe', 'svc', 'web'])).stdout).toMatch(/\nEndpoints:\s+(10\.244\.\d+\.\d+:80,){2}10\.244\.\d+\.\d+:80\n/);
      // The slices name the nodes the scheduler chose.
      const nodes = await eventually(() => run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].nodeName}']), (out) => out.split(' ').filter(Boolean).length === 3, 'three endpoints with nodes');
      for (const n of nodes.split(' ')) expect(n).toMatch(/^node-[12]$/);
      expect((await sim.kubectl(['scale', 'deployment', 'web', '--replicas=1'])).code).toBe(0);
      await eventually(() => run(['get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}']), (out) => out !== '' && !out.includes(' '), 'one address left');
      await eventually(() => run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}']), (out) => out !== '' && !out.includes(' '), 'one endpoint left');
    } finally {
      await sim.stop();
    }
  });
});
