/** Real kubectl 1.32 against simulated nodes: `kubectl debug` gets its ephemeral container running, a sidecar counts in READY. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 1 } });
});
afterAll(async () => {
  await t?.stop();
});

const stdout = async (args: string[]) => (await t.kubectl(args)).stdout.trim();

describe('simulated kubelet: ephemeral and sidecar containers', () => {
  it('kubectl debug: the ephemeral container runs (status, describe); -i attaches to its shell, which runs what it reads and ends with its input', async () => {
    await eventually(() => stdout(['get', 'nodes', '--no-headers']), (o) => /^node-1\s+Ready\s/.test(o), 'the node');
    expect(await t.kubectlOk(['run', 'web', '--image=nginx:1.27'])).toContain('created');
    await eventually(() => stdout(['get', 'pod', 'web', '--no-headers']), (o) => /^web\s+1\/1\s+Running\s/.test(o), 'web running');

    const debug = await t.kubectlOk(['debug', 'web', '--image=busybox', '--container=debugger', '--', 'sleep', '3600']);
    expect(debug).toBe('');
    const statuses = await eventually(async () => JSON.parse((await stdout(['get', 'pod', 'web', '-o', 'jsonpath={.status.ephemeralContainerStatuses}'])) || '[]'), (l) => l.length === 1, 'the ephemeral container status');
    expect(statuses[0]).toMatchObject({ name: 'debugger', ready: false, restartCount: 0, image: 'docker.io/library/busybox:latest', lastState: {} });
    expect(Object.keys(statuses[0].state)).toEqual(['running']);
    const described = await eventually(() => stdout(['describe', 'pod', 'web']), (o) => o.includes('Started container debugger'), 'the debugger events');
    expect(described).toMatch(/Ephemeral Containers:\n\s+debugger:\n\s+Container ID:\s+containerd:\/\/[0-9a-f]{64}\n\s+Image:\s+busybox\n[\s\S]*?State:\s+Running\n\s+Started:/);
    expect(described).toMatch(/Normal\s+Pulling\s+\S+\s+kubelet\s+Pulling image "busybox"/);
    // READY still counts the pod's own container only.
    expect(await stdout(['get', 'pod', 'web', '--no-headers'])).toMatch(/^web\s+1\/1\s+Running\s/);

    // -i with a shell: kubectl waits for the container to run, attaches to its stdin; the shell runs what it reads and ends with it.
    const it = await run('timeout', ['60', 'kubectl', 'debug', 'web', '-i', '--image=busybox', '--container=debugger-it', '--', 'sh'], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, 'echo debugging $HOSTNAME\n');
    expect(it.code).toBe(0);
    expect(it.stdout).toContain('debugging web\n');
    expect(await stdout(['get', 'pod', 'web', '-o', 'jsonpath={.status.ephemeralContainerStatuses[1].name}'])).toBe('debugger-it');
    await eventually(() => stdout(['get', 'pod', 'web', '-o', 'jsonpath={.status.ephemeralContainerStatuses[1].state.terminated.exitCode}']), (c) => c === '0', 'the debug shell ended');
  });

  it('"Debugging with an ephemeral debug container": with --target the debug shell shares the target\'s process namespace and sees its /pause', async () => {
    expect(await t.kubectlOk(['run', 'ephemeral-demo', '--image=registry.k8s.io/pause:3.1', '--restart=Never'])).toContain('created');
    await eventually(() => stdout(['get', 'pod', 'ephemeral-demo', '--no-headers']), (o) => /^ephemeral-demo\s+1\/1\s+Running\s/.test(o), 'ephemeral-demo running');
    const debug = await run('timeout', ['60', 'kubectl', 'debug', '-i', 'ephemeral-demo', '--image=busybox:1.28', '--target=ephemeral-demo', '--container=debugger'], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, 'ps\n');
    expect(debug.code).toBe(0);
    expect(debug.stdout).toContain('PID   USER     TIME  COMMAND\n    1 root      0:00 /pause\n    7 root      0:00 sh\n    8 root      0:00 ps\n');
    // Without --target, the debug container has a namespace of its own.
    const apart = await run('timeout', ['60', 'kubectl', 'debug', '-i', 'ephemeral-demo', '--image=busybox:1.28', '--container=apart'], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, 'ps\n');
    expect(apart.stdout).toContain('PID   USER     TIME  COMMAND\n    1 root      0:00 sh\n');
    expect(apart.stdout).not.toContain('/pause');
  });

  it('kubectl debug node/: the debugging pod is on the host network, with the node\'s name and address, and the node\'s files at /host', async () => {
    await eventually(() => stdout(['get', 'nodes', '--no-headers']), (o) => /^node-1\s+Ready\s/.test(o), 'the node');
    const nodeIP = await stdout(['get', 'node', 'node-1', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}']);
    const debug = await t.kubectl(['debug', 'node/node-1', '-i', '--image=busybox:1.36', '--profile=general', '--', 'sh', '-c', 'hostname; hostname -i; ip route; cat /host/etc/hostname; ls /host']);
    expect(debug.code).toBe(0);
    const prefix = nodeIP.split('.').slice(0, 2).join('.');
    expect(debug.stdout).toMatch(/^Creating debugging pod node-debugger-node-1-\w{5} with container debugger on node node-1\.\n/);
    // The node's /lib and /run hold what kube-proxy's hostPath volumes mount (/lib/modules, /run/xtables.lock).
    expect(debug.stdout.slice(debug.stdout.indexOf('\n') + 1)).toBe(`node-1\n${nodeIP} \ndefault via ${prefix}.0.1 dev eth0 \n${prefix}.0.0/16 dev eth0 scope link  src ${nodeIP} \nnode-1\netc\nlib\nroot\nrun\ntmp\nvar\n`);
    const pod = JSON.parse(await stdout(['get', 'pods', '-o', 'json'])).items.find((p: { metadata: { name: string } }) => p.metadata.name.startsWith('node-debugger-node-1-'));
    expect(pod.spec.hostNetwork).toBe(true);
    expect(pod.status).toMatchObject({ hostIP: nodeIP, podIP: nodeIP, podIPs: [{ ip: nodeIP }] });
  });

  it('a pod with a sidecar shows 2/2 Running; a Job pod with one completes', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'side' }, spec: { initContainers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }], containers: [{ name: 'app', image: 'nginx:1.27' }] } },
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'work' }, spec: { template: { spec: { restartPolicy: 'Never', initContainers: [{ name: 'log', image: 'busybox', command: ['sleep', '3600'], restartPolicy: 'Always' }], containers: [{ name: 'main', image: 'busybox' }] } } } },
      ],
    });
    expect(await t.kubectlOk(['apply', '-f', '-'], manifest)).toContain('pod/side created');
    const side = await eventually(() => stdout(['get', 'pod', 'side', '--no-headers']), (o) => /Running/.test(o), 'side running');
    expect(side).toMatch(/^side\s+2\/2\s+Running\s+0\s/);
    expect(await stdout(['get', 'pod', 'side', '-o', 'jsonpath={.status.initContainerStatuses[0].started} {.status.initContainerStatuses[0].ready} {.status.initContainerStatuses[0].state.running.startedAt}'])).toMatch(/^true true \d{4}-/);
    expect((await t.kubectl(['wait', '--for=condition=complete', 'job/work', '--timeout=60s'])).code).toBe(0);
    expect(await stdout(['get', 'pods', '-l', 'job-name=work', '--no-headers'])).toMatch(/^work-\S+\s+0\/2\s+Completed\s+0\s/);
  });
});
