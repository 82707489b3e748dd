/** Real kubectl 1.32 against a Node host started with --simulated-nodes=3: a DaemonSet runs one pod per node; a ReplicationController scales. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 3 } });
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

const daemonSet = (image: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: logs
spec:
  selector:
    matchLabels:
      app: logs
  template:
    metadata:
      labels:
        app: logs
    spec:
      containers:
      - name: fluentd
        image: ${image}
`;

const replicationController = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`;

describe('daemonset-controller and replicationcontroller-controller under kubectl', () => {
  it('kubectl apply a DaemonSet: rollout status, get ds columns, one pod per node in get pods -o wide; a new image rolls out', async () => {
    await eventually(() => stdout(['get', 'nodes', '--no-headers']), (out) => out.split('\n').length === 3, 'three nodes');
    const applied = await t.kubectl(['apply', '-f', '-'], daemonSet('fluentd:v1'));
    expect(applied).toMatchObject({ code: 0, stdout: 'daemonset.apps/logs created\n' });
    const rollout = await t.kubectl(['rollout', 'status', 'ds/logs', '--timeout=60s']);
    expect(rollout.code).toBe(0);
    expect(rollout.stdout).toContain('daemon set "logs" successfully rolled out');
    const ds = (await stdout(['get', 'ds', 'logs'])).split('\n');
    expect(ds[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE$/);
    expect(ds[1]).toMatch(/^logs\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\S+$/);
    const pods = (await stdout(['get', 'pods', '-l', 'app=logs', '-o', 'wide', '--no-headers'])).split('\n');
    expect(pods).toHaveLength(3);
    for (const line of pods) expect(line).toMatch(/^logs-\S+\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.(\d)\.\d+\s+node-\1\s+<none>\s+<none>$/);
    expect(pods.map((l) => l.split(/\s+/)[6]).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    const described = await t.kubectl(['describe', 'ds', 'logs']);
    expect(described.stdout).toMatch(/Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed/);
    expect(described.stdout).toMatch(/Normal\s+SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: logs-\S+/);

    expect((await t.kubectl(['apply', '-f', '-'], daemonSet('fluentd:v2'))).code).toBe(0);
    const again = await t.kubectl(['rollout', 'status', 'ds/logs', '--timeout=60s']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('daemon set "logs" successfully rolled out');
    const images = await stdout(['get', 'pods', '-l', 'app=logs', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image} {.spec.nodeName}{"\\n"}{end}']);
    expect(images.split('\n').filter((l) => !l.startsWith('fluentd:v1')).sort()).toEqual(['fluentd:v2 node-1', 'fluentd:v2 node-2', 'fluentd:v2 node-3']);
    const history = await stdout(['rollout', 'history', 'ds/logs']);
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    // rollout undo patches the template back from revision 1, which becomes revision 3.
    expect(await t.kubectl(['rollout', 'undo', 'ds/logs'])).toMatchObject({ code: 0, stdout: 'daemonset.apps/logs rolled back\n' });
    expect((await t.kubectl(['rollout', 'status', 'ds/logs', '--timeout=60s'])).code).toBe(0);
    expect(await stdout(['get', 'ds', 'logs', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).toBe('fluentd:v1');
    expect(await stdout(['rollout', 'history', 'ds/logs'])).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
    // Deleted, its pods and revisions go with it (the garbage collector, background propagation).
    expect(await t.kubectl(['delete', 'ds', 'logs'])).toMatchObject({ code: 0, stdout: 'daemonset.apps "logs" deleted\n' });
    await eventually(() => stdout(['get', 'pods,controllerrevisions', '-l', 'app=logs', '-o', 'name']), (out) => out === '', 'pods and revisions gone');
  });

  it('a ReplicationController: kubectl get rc READY, kubectl scale rc', async () => {
    expect(await t.kubectl(['create', '-f', '-'], replicationController)).toMatchObject({ code: 0, stdout: 'replicationcontroller/web created\n' });
    const ready = await eventually(() => stdout(['get', 'rc', 'web']), (out) => /web\s+2\s+2\s+2\s/.test(out), 'two ready');
    expect(ready.split('\n')[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
    expect(await t.kubectl(['scale', 'rc', 'web', '--replicas=4'])).toMatchObject({ code: 0, stdout: 'replicationcontroller/web scaled\n' });
    await eventually(() => stdout(['get', 'rc', 'web', '--no-headers']), (out) => /^web\s+4\s+4\s+4\s/.test(out), 'four ready');
    const pods = (await stdout(['get', 'pods', '-l', 'app=web', '--no-headers'])).split('\n');
    expect(pods).toHaveLength(4);
    for (const line of pods) expect(line).toMatch(/^web-\S+\s+1\/1\s+Running\s+0\s/);
    expect((await t.kubectl(['scale', 'rc', 'web', '--replicas=1'])).code).toBe(0);
    await eventually(() => stdout(['get', 'rc', 'web', '--no-headers']), (out) => /^web\s+1\s+1\s+1\s/.test(out), 'one ready');
    await eventually(() => stdout(['get', 'pods', '-l', 'app=web', '--no-headers']), (out) => out.split('\n').length === 1, 'one pod left');
  });

  it('the Python client (python3-kubernetes) creates a DaemonSet and reads its status, every count decoded', async () => {
    const script = `
import json, sys, time
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
apps = client.AppsV1Api()
body = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": "busybox", "command": ["sleep", "3600"]}]}}}}
created = apps.create_namespaced_daemon_set("default", body)
first = created.status
for _ in range(500):
    ds = apps.read_namespaced_daemon_set_status("agent", "default")
    if ds.status.number_available == 3 and ds.status.observed_generation == 1:
        break
    time.sleep(0.02)
s = ds.status
print(json.dumps({"created": [first.current_number_scheduled, first.desired_number_scheduled, first.number_misscheduled, first.number_ready],
                  "status": [s.current_number_scheduled, s.desired_number_scheduled, s.number_misscheduled, s.number_ready, s.updated_number_scheduled, s.number_available, s.number_unavailable]}))
`;
    const r = await run('/usr/bin/python3', ['-c', script, t.host.kubeconfigPath], { HOME: t.home });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ created: [0, 0, 0, 0], status: [3, 3, 0, 3, 3, 3, null] });
  });
});
