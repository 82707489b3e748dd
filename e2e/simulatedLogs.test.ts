/**
 * Real kubectl 1.32 against a Node host with --simulated-nodes=1: containers
 * run their commands, `kubectl logs` shows what they wrote (follow,
 * timestamps, tail, previous) and `kubectl run -i` attaches to a shell's
 * stdin over WebSockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { run, startTestHost, type RunResult, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ tls: true, flags: { simulatedNodes: 1 } });
  await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default'])).code, (c) => c === 0, 'the default service account');
});
afterAll(async () => {
  await t?.stop();
});

/** kubectl under a timeout, so a stream that never ends fails the test instead of hanging it. */
const kubectl = (args: string[], input = ''): Promise<RunResult> => run('timeout', ['30', 'kubectl', ...args], { HOME: t.home, KUBECONFIG: t.host.kubeconfigPath }, input);
const phase = async (pod: string) => (await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.status.phase}'])).stdout;

describe('containers run their commands, and kubectl logs shows what they wrote', () => {
  it('follows a counting loop to its end; the pod completes; timestamps and tail', async () => {
    const script = 'i=0; while [ $i -lt 3 ]; do echo "line $i"; i=$((i+1)); sleep 1; done';
    expect((await kubectl(['run', 'counter', '--image=busybox:1.36', '--restart=Never', '--', 'sh', '-c', script])).code).toBe(0);
    await eventually(() => phase('counter'), (p) => p === 'Running' || p === 'Succeeded', 'the pod running');
    // -f ends when the container does.
    expect(await kubectl(['logs', '-f', 'counter'])).toMatchObject({ code: 0, stdout: 'line 0\nline 1\nline 2\n' });
    await eventually(() => phase('counter'), (p) => p === 'Succeeded', 'the pod succeeded');
    expect((await kubectl(['get', 'pod', 'counter', '--no-headers'])).stdout).toMatch(/^counter\s+0\/1\s+Completed\s+0\s/);
    const stamped = (await kubectl(['logs', 'counter', '--timestamps'])).stdout.trimEnd().split('\n');
    expect(stamped).toHaveLength(3);
    for (const [i, line] of stamped.entries()) expect(line).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z line ${i}$`));
    expect(Date.parse(stamped[2]!.split(' ')[0]!) - Date.parse(stamped[0]!.split(' ')[0]!)).toBeGreaterThanOrEqual(2000);
    expect(await kubectl(['logs', 'counter', '--tail=1'])).toMatchObject({ code: 0, stdout: 'line 2\n' });
    expect(await kubectl(['logs', 'counter', '--limit-bytes=9'])).toMatchObject({ code: 0, stdout: 'line 0\nli' });
  });

  it('a crashing container: CrashLoopBackOff, its last run\'s log, --previous, and the kubelet\'s error for a container not yet started', async () => {
    expect((await kubectl(['run', 'crash', '--image=busybox:1.36', '--', 'sh', '-c', 'echo boom >&2; exit 3'])).code).toBe(0);
    await eventually(async () => (await kubectl(['get', 'pod', 'crash', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.reason}'])).stdout, (r) => r === 'CrashLoopBackOff', 'the back-off');
    const last = await kubectl(['get', 'pod', 'crash', '-o', 'jsonpath={.status.containerStatuses[0].lastState.terminated.reason} {.status.containerStatuses[0].lastState.terminated.exitCode}']);
    expect(last.stdout).toBe('Error 3');
    expect(await kubectl(['logs', 'crash'])).toMatchObject({ code: 0, stdout: 'boom\n' });
    expect(await kubectl(['logs', 'crash', '--previous'])).toMatchObject({ code: 0, stdout: 'boom\n' });
    expect(await kubectl(['logs', 'counter', '--previous'])).toMatchObject({ code: 1, stderr: 'Error from server (BadRequest): previous terminated container "counter" in pod "counter" not found\n' });
  });

  it('a known image runs its own Cmd: kubectl logs of nginx shows its entrypoint\'s and its start-up lines', async () => {
    expect((await kubectl(['run', 'web', '--image=nginx:1.27'])).code).toBe(0);
    await eventually(() => phase('web'), (p) => p === 'Running', 'the pod running');
    const logs = await eventually(async () => (await kubectl(['logs', 'web'])).stdout, (o) => o.includes('start worker process'), 'the start-up lines');
    const lines = logs.trimEnd().split('\n');
    expect(lines.slice(0, 9)).toEqual([
      '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
      '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
      '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
      '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
      '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
      '/docker-entrypoint.sh: Configuration complete; ready for start up',
    ]);
    expect(lines[9]).toMatch(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[notice\] 1#1: using the "epoll" event method$/);
    expect(lines[10]).toMatch(/ \[notice\] 1#1: nginx\/1\.27\.3$/);
  });

  it('a command not on the image\'s PATH: StartError, exit code 128, and kubectl describe shows runc\'s words', async () => {
    expect((await kubectl(['run', 'typo', '--image=busybox:1.36', '--restart=Never', '--', 'slep', '10'])).code).toBe(0);
    await eventually(() => phase('typo'), (p) => p === 'Failed', 'the pod failed');
    const state = await kubectl(['get', 'pod', 'typo', '-o', 'jsonpath={.status.containerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode}']);
    expect(state.stdout).toBe('StartError 128');
    const describe = (await kubectl(['describe', 'pod', 'typo'])).stdout;
    expect(describe).toContain('exec: "slep": executable file not found in $PATH');
    expect(describe).toMatch(/Reason:\s+StartError/);
    expect(describe).toMatch(/Exit Code:\s+128/);
  });

  it('an image tag that is not published: ErrImagePull, then ImagePullBackOff, and the pod stays Pending', async () => {
    expect((await kubectl(['run', 'bad', '--image=nginx:1.999'])).code).toBe(0);
    const row = await eventually(async () => (await kubectl(['get', 'pod', 'bad', '--no-headers'])).stdout, (o) => /\s(ErrImagePull|ImagePullBackOff)\s/.test(o), 'the pull error');
    expect(row).toMatch(/^bad\s+0\/1\s+(ErrImagePull|ImagePullBackOff)\s+0\s/);
    expect(await phase('bad')).toBe('Pending');
    const describe = (await kubectl(['describe', 'pod', 'bad'])).stdout;
    expect(describe).toContain('Failed to pull image "nginx:1.999": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.999": failed to resolve reference "docker.io/library/nginx:1.999": docker.io/library/nginx:1.999: not found');
    expect(describe).toContain('Error: ErrImagePull');
  });

  it('kubectl run -i --rm attaches to the shell\'s stdin: it runs what is typed, ends with the input, and the pod is deleted', async () => {
    const r = await kubectl(['run', 'talk', '-i', '--rm', '--restart=Never', '--image=busybox:1.36', '--', 'sh'], 'echo hi from $HOSTNAME\necho bye\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('hi from talk\nbye\n');
    expect(r.stdout).toContain('pod "talk" deleted');
  });
});
