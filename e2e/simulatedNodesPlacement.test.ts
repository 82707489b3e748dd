/** Real kubectl 1.32 against a Node host with --simulated-nodes=2: anti-affinity, and preemption by a higher-priority pod. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 2 } });
  await eventually(async () => (await t.kubectl(['get', 'nodes', '--no-headers'])).stdout.trim().split('\n').length, (n) => n === 2, 'two nodes');
  await eventually(async () => (await t.kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: spread
spec:
  replicas: 3
  selector:
    matchLabels: {app: spread}
  template:
    metadata:
      labels: {app: spread}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {app: spread}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: nginx
        image: nginx:1.27
`;

const priorities = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: critical}
value: 100000
---
apiVersion: v1
kind: Pod
metadata: {name: batch-1}
spec:
  priorityClassName: batch
  # sleep ignores SIGTERM as PID 1: a victim is killed when its grace period ends, and the preemptor waits for it.
  terminationGracePeriodSeconds: 2
  nodeSelector: {kubernetes.io/hostname: node-1}
  containers:
  - {name: work, image: busybox, command: [sleep, "3600"], resources: {requests: {cpu: "3"}}}
---
apiVersion: v1
kind: Pod
metadata: {name: batch-2}
spec:
  priorityClassName: batch
  terminationGracePeriodSeconds: 2
  nodeSelector: {kubernetes.io/hostname: node-2}
  containers:
  - {name: work, image: busybox, command: [sleep, "3600"], resources: {requests: {cpu: "3"}}}
`;

const critical = `apiVersion: v1
kind: Pod
metadata: {name: urgent}
spec:
  priorityClassName: critical
  containers:
  - {name: app, image: nginx, resources: {requests: {cpu: "2"}}}
`;

describe('--simulated-nodes placement', () => {
  it('kubectl shows the third replica of a Deployment with required anti-affinity on two nodes Pending, with the scheduler\'s reason', async () => {
    expect(await t.kubectlOk(['apply', '-f', '-'], deployment)).toContain('deployment.apps/spread created');
    const pods = await eventually(() => stdout(['get', 'pods', '-l', 'app=spread', '-o', 'wide', '--no-headers']), (o) => o.split('\n').length === 3 && (o.match(/Running/g) ?? []).length === 2 && o.includes('Pending'), 'two running, one pending');
    const lines = pods.split('\n');
    expect(lines.filter((l) => /\sRunning\s.*\snode-1\s/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /\sRunning\s.*\snode-2\s/.test(l))).toHaveLength(1);
    const pending = lines.find((l) => l.includes('Pending'))!;
    expect(pending).toMatch(/^spread-\S+\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>$/);
    const name = pending.split(/\s+/)[0]!;
    const described = await eventually(() => stdout(['describe', 'pod', name]), (o) => o.includes('FailedScheduling'), 'FailedScheduling');
    expect(described).toMatch(/PodScheduled\s+False/);
    expect(described).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available: 2 node\(s\) didn't match pod anti-affinity rules\. preemption: 0\/2 nodes are available: 2 No preemption victims found for incoming pod\./);
    expect(await t.kubectlOk(['delete', 'deployment', 'spread'])).toContain('deleted');
    await eventually(() => stdout(['get', 'pods', '-l', 'app=spread', '--no-headers']), (o) => o === '', 'the replicas gone');
  });

  it('kubectl shows a high-priority pod preempting a low-priority one: the victim gone with a Preempted event, the preemptor Running on its node', async () => {
    await t.kubectlOk(['apply', '-f', '-'], priorities);
    await eventually(() => stdout(['get', 'pods', 'batch-1', 'batch-2', '--no-headers']), (o) => (o.match(/Running/g) ?? []).length === 2, 'the batch pods running');
    const victimUid = await stdout(['get', 'pod', 'batch-1', '-o', 'jsonpath={.metadata.uid}']);
    expect(await t.kubectlOk(['apply', '-f', '-'], critical)).toContain('pod/urgent created');
    // Nominated to node-1 while its victim terminates.
    expect(await eventually(() => stdout(['get', 'pod', 'urgent', '-o', 'jsonpath={.status.nominatedNodeName}']), (o) => o !== '', 'the nomination')).toBe('node-1');
    const urgent = await eventually(() => stdout(['get', 'pod', 'urgent', '-o', 'wide', '--no-headers']), (o) => /\sRunning\s/.test(o), 'urgent running');
    expect(urgent).toMatch(/^urgent\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.1\.\d+\s+node-1\s+node-1\s+<none>$/);
    expect((await t.kubectl(['get', 'pod', 'batch-1'])).stderr).toContain('pods "batch-1" not found');
    expect(await stdout(['get', 'pod', 'batch-2', '--no-headers'])).toMatch(/^batch-2\s+1\/1\s+Running\s/);
    const uid = await stdout(['get', 'pod', 'urgent', '-o', 'jsonpath={.metadata.uid}']);
    const events = await eventually(() => stdout(['get', 'events', '--field-selector', `involvedObject.uid=${victimUid}`]), (o) => o.includes('Preempted'), 'the Preempted event');
    expect(events).toMatch(new RegExp(`Normal\\s+Preempted\\s+pod/batch-1\\s+Preempted by pod ${uid} on node node-1`));
    const described = await stdout(['describe', 'pod', 'urgent']);
    expect(described).toMatch(/Priority:\s+100000/);
    expect(described).toMatch(/Priority Class Name:\s+critical/);
    expect(described).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/2 nodes are available: 2 Insufficient cpu\./);
    expect(described).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/urgent to node-1/);
  });
});
