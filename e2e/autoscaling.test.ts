/** Real kubectl 1.32 against a Node host with simulated nodes and a fake clock: kubectl top, and an HPA scaling a Deployment. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 2, fakeClock: new Date('2026-01-01T00:00:00Z') } });
});
afterAll(async () => {
  await t?.stop();
});

const out = async (args: string[]) => (await t.kubectl(args)).stdout.trim().split('\n').map((l) => l.trimEnd()).join('\n');

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations: {kubesim.io/cpu-usage: 80m, kubesim.io/memory-usage: 20Mi}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests: {cpu: 100m, memory: 64Mi}
`;

describe('metrics.k8s.io and the horizontal pod autoscaler', () => {
  it('kubectl top nodes and pods print the simulated usage; kubectl autoscale scales the Deployment up, kubectl get hpa shows cpu: 80%/50%', async () => {
    await eventually(() => out(['get', 'nodes', '--no-headers']), (o) => o.split('\n').length === 2, 'two nodes');
    expect(await t.kubectlOk(['apply', '-f', '-'], deployment)).toContain('deployment.apps/web created');
    expect((await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'])).code).toBe(0);
    const pod = (await out(['get', 'pods', '-l', 'app=web', '-o', 'name'])).replace('pod/', '');

    const top = (await out(['top', 'nodes'])).split('\n');
    expect(top[0]).toMatch(/^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)$/);
    // Each node: its overhead (100m, 512Mi), kube-proxy (1m, 4Mi) and one of the two coredns pods (10m, 7Mi);
    // the node running the pod adds its 80m and 20Mi.
    expect(top.slice(1).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/^node-\d\s+191m\s+4%\s+543Mi\s+3%$/), expect.stringMatching(/^node-\d\s+111m\s+2%\s+523Mi\s+3%$/)]));
    const pods = (await out(['top', 'pods'])).split('\n');
    expect(pods[0]).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)$/);
    expect(pods[1]).toMatch(new RegExp(`^${pod}\\s+80m\\s+20Mi$`));
    expect(await out(['top', 'pod', pod, '--containers'])).toMatch(new RegExp(`${pod}\\s+nginx\\s+80m\\s+20Mi`));

    // A metrics window after the pod became ready, its sample counts.
    await t.advanceClock('30s');
    expect(await t.kubectlOk(['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=5'])).toContain('horizontalpodautoscaler.autoscaling/web autoscaled');
    expect(await out(['get', 'hpa', 'web', '--no-headers'])).toMatch(/^web\s+Deployment\/web\s+cpu: <unknown>\/50%\s+1\s+5\s+0\s+\S+$/);
    await t.advanceClock('15s');
    const hpa = await eventually(() => out(['get', 'hpa']), (o) => /cpu: 80%\/50%/.test(o), 'the HPA metrics');
    expect(hpa.split('\n')[0]).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    expect(hpa.split('\n')[1]).toMatch(/^web\s+Deployment\/web\s+cpu: 80%\/50%\s+1\s+5\s+1\s+\S+$/);
    expect((await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'])).code).toBe(0);
    expect(await out(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).toBe('2');
    const described = await t.kubectlOk(['describe', 'hpa', 'web']);
    expect(described).toMatch(/Normal\s+SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+New size: 2; reason: cpu resource utilization \(percentage of request\) above target/);
    expect(described).toMatch(/AbleToScale\s+True\s+SucceededRescale\s+the HPA controller was able to update the target scale to 2/);
    // The next sync sees both replicas.
    await t.advanceClock('15s');
    await eventually(() => out(['get', 'hpa', 'web', '--no-headers']), (o) => /^web\s+Deployment\/web\s+cpu: 80%\/50%\s+1\s+5\s+2\s/.test(o), 'REPLICAS 2');
  });
});
