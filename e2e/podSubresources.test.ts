/** Real kubectl 1.32 on the pod subresources of a cluster with no scheduler and no kubelet: manual scheduling, logs, exec, debug. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: nginx
    image: nginx:1.27
`;

const binding = (name: string, node: string) => `apiVersion: v1
kind: Binding
metadata:
  name: ${name}
target:
  apiVersion: v1
  kind: Node
  name: ${node}
`;

describe('kubectl and the pod subresources', () => {
  it('kubectl logs of an unscheduled pod prints nothing and succeeds; kubectl exec prints kube-apiserver\'s error', async () => {
    expect((await t.kubectl(['create', '-f', '-'], pod('pending'))).code).toBe(0);
    const logs = await t.kubectl(['logs', 'pending']);
    expect(logs).toMatchObject({ code: 0, stdout: '' });
    const exec = await t.kubectl(['exec', 'pending', '--', 'ls']);
    expect(exec.code).toBe(1);
    expect(exec.stderr.trim()).toBe('Error from server (BadRequest): pod pending does not have a host assigned');
    const attach = await t.kubectl(['attach', 'pending']);
    expect(attach.code).toBe(1);
  });

  it('manual scheduling: a Binding sets the node kubectl get pods -o wide shows, a second one is refused', async () => {
    expect((await t.kubectl(['create', '-f', '-'], pod('web'))).code).toBe(0);
    const created = await t.kubectl(['create', '-f', '-'], binding('web', 'node-1'));
    expect(created.code, created.stderr).toBe(0);
    const wide = await t.kubectl(['get', 'pod', 'web', '-o', 'wide', '--no-headers']);
    expect(wide.stdout).toMatch(/^web\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-1\s+<none>\s+<none>\s*$/);
    const scheduled = await t.kubectl(['get', 'pod', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}']);
    expect(scheduled.stdout).toBe('True');
    const again = await t.kubectl(['create', '-f', '-'], binding('web', 'node-2'));
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe('Error from server (Conflict): error when creating "STDIN": Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"');
    // The subresource through --raw, as the scheduler posts it.
    expect((await t.kubectl(['create', '-f', '-'], pod('raw'))).code).toBe(0);
    const raw = await t.kubectl(['create', '--raw', '/api/v1/namespaces/default/pods/raw/binding', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'raw' }, target: { kind: 'Node', name: 'node-2' } }));
    expect(JSON.parse(raw.stdout)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await t.kubectl(['get', 'pod', 'raw', '-o', 'jsonpath={.spec.nodeName}'])).stdout).toBe('node-2');
  });

  it('a pod bound to a node that does not exist: logs and exec name the missing node', async () => {
    const logs = await t.kubectl(['logs', 'web']);
    expect(logs.code).toBe(1);
    expect(logs.stderr.trim()).toBe('Error from server (NotFound): nodes "node-1" not found');
    const exec = await t.kubectl(['exec', 'web', '--', 'ls']);
    expect(exec.stderr.trim()).toBe('Error from server (NotFound): nodes "node-1" not found');
  });

  it('a node that exists with no kubelet behind its address: the dial kube-apiserver makes fails', async () => {
    const node = `apiVersion: v1
kind: Node
metadata:
  name: node-2
status:
  addresses:
  - type: InternalIP
    address: 10.0.0.7
`;
    expect((await t.kubectl(['create', '-f', '-'], node)).code).toBe(0);
    const logs = await t.kubectl(['logs', 'raw']);
    expect(logs.code).toBe(1);
    expect(logs.stderr.trim()).toBe('Error from server: Get "https://10.0.0.7:10250/containerLogs/default/raw/nginx": dial tcp 10.0.0.7:10250: connect: connection refused');
    // The WebSocket attempt is answered before any upgrade; kubectl falls back to SPDY and prints that answer.
    const exec = await t.kubectl(['exec', 'raw', '--', 'ls']);
    expect(exec.code).toBe(1);
    expect(exec.stderr.trim()).toBe('Error from server: error dialing backend: dial tcp 10.0.0.7:10250: connect: connection refused');
  });

  it('kubectl debug adds an ephemeral container visible in kubectl get pod -o yaml', async () => {
    expect((await t.kubectl(['create', '-f', '-'], pod('target'))).code).toBe(0);
    const debug = await t.kubectl(['debug', 'target', '--image=busybox:1.36']);
    expect(debug.code, debug.stderr).toBe(0);
    const name = /^Defaulting debug container name to (debugger-[a-z0-9]{5})\.$/m.exec(debug.stdout)?.[1];
    expect(name).toBeDefined();
    const yaml = await t.kubectl(['get', 'pod', 'target', '-o', 'yaml']);
    expect(yaml.stdout).toContain(`  ephemeralContainers:\n  - image: busybox:1.36\n    imagePullPolicy: IfNotPresent\n    name: ${name}\n`);
    const managed = await t.kubectl(['get', 'pod', 'target', '-o', 'yaml', '--show-managed-fields']);
    expect(managed.stdout).toMatch(/manager: kubectl\n    operation: Update\n    subresource: ephemeralcontainers\n/);
    // The debug container is one more container kubectl logs can name.
    const logs = await t.kubectl(['logs', 'target', '-c', name!]);
    expect(logs).toMatchObject({ code: 0, stdout: '' });
  });
});
