/** Real kubectl 1.32 against a Node host with --simulated-nodes=1: a container's files shared by its execs and by mount, and a liveness probe's kill on the real clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, withoutClientLogs, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { simulatedNodes: 1 } });
  await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
});
afterAll(async () => {
  await t?.stop();
});

const kubectl = async (args: string[], input = ''): Promise<RunResult> => withoutClientLogs(await run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input));

const pair = `apiVersion: v1
kind: Pod
metadata: {name: pair}
spec:
  containers:
  - {name: one, image: busybox, command: [sleep, "3600"], volumeMounts: [{name: shared, mountPath: /shared}]}
  - {name: two, image: busybox, command: [sleep, "3600"], volumeMounts: [{name: shared, mountPath: /data, readOnly: true}]}
  volumes: [{name: shared, emptyDir: {}}]
`;

const liveness = `apiVersion: v1
kind: Pod
metadata: {name: liveness}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: [sh, -c, "touch /tmp/healthy; sleep 2; rm /tmp/healthy; sleep 600"]
    livenessProbe: {exec: {command: [cat, /tmp/healthy]}, periodSeconds: 1, failureThreshold: 1}
`;

describe('files and probes of simulated containers', () => {
  it("an exec's files stay for the next; an emptyDir is every container's, read-only where mounted so", async () => {
    expect((await kubectl(['create', '-f', '-'], pair)).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'pod', 'pair', '-o', 'jsonpath={.status.phase}'])).stdout, (p) => p === 'Running', 'the pod running');
    expect((await kubectl(['exec', 'pair', '-c', 'one', '--', 'sh', '-c', 'echo mine > /tmp/f; echo ours > /shared/g'])).code).toBe(0);
    expect(await kubectl(['exec', 'pair', '-c', 'one', '--', 'cat', '/tmp/f'])).toMatchObject({ code: 0, stdout: 'mine\n' });
    expect(await kubectl(['exec', 'pair', '-c', 'two', '--', 'cat', '/data/g'])).toMatchObject({ code: 0, stdout: 'ours\n' });
    expect(await kubectl(['exec', 'pair', '-c', 'two', '--', 'cat', '/tmp/f'])).toMatchObject({ code: 1, stderr: "cat: can't open '/tmp/f': No such file or directory\ncommand terminated with exit code 1\n" });
    expect(await kubectl(['exec', 'pair', '-c', 'two', '--', 'touch', '/data/h'])).toMatchObject({ code: 1, stderr: 'touch: /data/h: Read-only file system\ncommand terminated with exit code 1\n' });
  });

  it('a failing liveness probe: Unhealthy, Killing, SIGKILL after the grace period (137), the restart', async () => {
    expect((await kubectl(['create', '-f', '-'], liveness)).code).toBe(0);
    const jsonpath = '{.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].lastState.terminated.reason}';
    await eventually(async () => (await kubectl(['get', 'pod', 'liveness', '-o', `jsonpath=${jsonpath}`])).stdout, (s) => s === '1 137 Error', 'the kill and restart', 300);
    const events = await kubectl(['get', 'events', '--field-selector', 'involvedObject.name=liveness', '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    expect(events.stdout).toContain("Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n");
    expect(events.stdout).toContain('Killing: Container app failed liveness probe, will be restarted\n');
  });
});
