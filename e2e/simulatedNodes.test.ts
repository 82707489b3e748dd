/** Real kubectl 1.32 against a Node host started with --simulated-nodes=2: workloads run as on a small cluster. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

describe('--simulated-nodes', () => {
  it('kubectl get nodes shows the Ready nodes; a Deployment rolls out, its pods Running with IPs on them', async () => {
    const nodes = await eventually(() => stdout(['get', 'nodes', '-o', 'wide']), (out) => out.split('\n').length === 3, 'two nodes');
    const lines = nodes.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/);
    expect(lines[1]).toMatch(/^node-1\s+Ready\s+<none>\s+\S+\s+v1\.\d+\.\d+\s+172\.18\.0\.2\s+<none>\s+kubesim simulated node\s+\S+\s+containerd:\/\/2\.0\.0$/);
    expect(lines[2]).toMatch(/^node-2\s+Ready\s/);

    expect((await t.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2'])).code).toBe(0);
    const rollout = await t.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(rollout.code).toBe(0);
    expect(rollout.stdout).toContain('deployment "web" successfully rolled out');
    const pods = (await stdout(['get', 'pods', '-l', 'app=web', '-o', 'wide'])).split('\n');
    expect(pods).toHaveLength(3);
    for (const line of pods.slice(1)) expect(line).toMatch(/^web-\S+\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.(\d)\.\d+\s+node-\1\s+<none>\s+<none>$/);
    const name = pods[1]!.split(/\s+/)[0]!;
    const described = await eventually(async () => (await t.kubectl(['describe', 'pod', name])).stdout, (out) => out.includes('Started'), 'the kubelet events');
    expect(described).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web-\S+ to node-\d/);
    expect(described).toMatch(/Normal\s+Pulled\s+\S+\s+kubelet\s+Container image "nginx:1\.27" already present on machine/);
    expect(described).toMatch(/Normal\s+Started\s+\S+\s+kubelet\s+Started container nginx/);
    // kubectl logs reaches the pod: nginx's entrypoint and start-up lines.
    const logs = await t.kubectl(['logs', name]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('/docker-entrypoint.sh: Configuration complete; ready for start up\n');
    expect(logs.stdout).toMatch(/\[notice\] 1#1: nginx\/1\.27\.3\n/);
    // kubectl delete returns once the kubelet has stopped the pod.
    expect((await t.kubectl(['delete', 'pod', name, '--timeout=30s'])).code).toBe(0);
    expect((await t.kubectl(['get', 'pod', name])).stderr).toContain(`pods "${name}" not found`);
  });

  it('kubectl delete of a pod whose sleep ignores SIGTERM: Terminating until the grace period ends, then gone with exit 137', async () => {
    expect((await t.kubectl(['run', 'stubborn', '--image=busybox:1.36', '--restart=Never', '--', 'sleep', '3600'])).code).toBe(0);
    expect((await t.kubectl(['wait', '--for=condition=Ready', 'pod/stubborn', '--timeout=30s'])).code).toBe(0);
    expect((await t.kubectl(['delete', 'pod', 'stubborn', '--grace-period=3', '--wait=false'])).code).toBe(0);
    expect(await stdout(['get', 'pod', 'stubborn', '--no-headers'])).toMatch(/^stubborn\s+1\/1\s+Terminating\s+0\s+\S+$/);
    // Watched until its DELETED event (the watch itself runs on to its timeout): the kubelet's final status says how the container ended.
    const seen = await t.kubectl(['get', 'pod', 'stubborn', '-w', '--output-watch-events', '--request-timeout=10s', '-o', 'jsonpath={.type} {.object.status.containerStatuses[0].state.terminated.exitCode}{"\\n"}']);
    const events = seen.stdout.trim().split('\n');
    expect(events).toContain('MODIFIED 137');
    expect(events.at(-1)).toBe('DELETED 137');
    expect((await t.kubectl(['get', 'pod', 'stubborn'])).stderr).toContain('pods "stubborn" not found');
  });

  it('kubectl shows a crash loop and an unschedulable pod as on a cluster', async () => {
    expect((await t.kubectl(['run', 'crash', '--image=busybox', '--annotations=kubesim.io/exit-code=1'])).code).toBe(0);
    const crash = await eventually(() => stdout(['get', 'pod', 'crash', '--no-headers']), (out) => out.includes('CrashLoopBackOff'), 'the crash loop');
    expect(crash).toMatch(/^crash\s+0\/1\s+CrashLoopBackOff\s+1 \(\S+ ago\)\s+\S+$/);

    expect((await t.kubectl(['run', 'huge', '--image=busybox', '--overrides={"spec":{"containers":[{"name":"huge","image":"busybox","resources":{"requests":{"memory":"64Gi"}}}]}}'])).code).toBe(0);
    const described = await eventually(async () => (await t.kubectl(['describe', 'pod', 'huge'])).stdout, (out) => out.includes('FailedScheduling'), 'FailedScheduling');
    expect(described).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available: 2 Insufficient memory\. preemption: 0\/2 nodes are available: 2 No preemption victims found for incoming pod\./);
    expect(await stdout(['get', 'pod', 'huge', '--no-headers'])).toMatch(/^huge\s+0\/1\s+Pending\s+0\s/);
  });
});

describe('--simulated-nodes with --fake-clock: a node going down', () => {
  it('kubectl shows the node NotReady with its unreachable taints, then its pods evicted and replaced, and all well again once its kubelet is back', async () => {
    const h = await startTestHost({ flags: { simulatedNodes: 2, fakeClock: new Date('2026-01-01T00:00:00Z') } });
    try {
      const out = async (args: string[]) => (await h.kubectl(args)).stdout.trim();
      await eventually(() => out(['get', 'nodes', '--no-headers']), (o) => o.split('\n').length === 2, 'two nodes');
      expect(await h.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=2'])).toContain('created');
      expect((await h.kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s'])).code).toBe(0);
      expect(await h.kubectlOk(['annotate', 'node', 'node-1', 'kubesim.io/kubelet=stopped'])).toContain('annotated');
      await h.advanceClock('60s');
      const nodes = await eventually(() => out(['get', 'nodes', '--no-headers']), (o) => /^node-1\s+NotReady/m.test(o), 'node-1 NotReady');
      expect(nodes).toMatch(/^node-2\s+Ready\s/m);
      const described = await eventually(() => out(['describe', 'node', 'node-1']), (o) => o.includes('node.kubernetes.io/unreachable:NoExecute'), 'the taints');
      expect(described).toMatch(/Taints:\s+node\.kubernetes\.io\/unreachable:NoExecute\n\s+node\.kubernetes\.io\/unreachable:NoSchedule/);
      expect(described).toMatch(/Ready\s+Unknown\s.*NodeStatusUnknown\s+Kubelet stopped posting node status\./);
      // After the pods' 300s toleration of unreachable, the taint eviction controller deletes them; replacements run on node-2.
      await h.advanceClock('300s');
      const pods = await eventually(() => out(['get', 'pods', '-l', 'app=web', '-o', 'wide', '--no-headers']), (o) => o.split('\n').filter((l) => /Running\s.*node-2/.test(l)).length === 2, 'both replicas on node-2');
      expect(pods).not.toMatch(/Running\s+\S+\s+\S+\s+\S+\s+node-1/);
      expect(await h.kubectlOk(['annotate', 'node', 'node-1', 'kubesim.io/kubelet-'])).toContain('annotated');
      await h.advanceClock('10s');
      await eventually(() => out(['get', 'nodes', '--no-headers']), (o) => /^node-1\s+Ready\s/m.test(o), 'node-1 Ready again');
      await eventually(() => out(['get', 'pods', '-l', 'app=web', '--no-headers']), (o) => o.split('\n').length === 2 && !o.includes('Terminating'), 'the evicted pods gone');
    } finally {
      await h.stop();
    }
  });
});
