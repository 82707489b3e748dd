/** A container's files shared by its processes, and volumes shared by mount, on simulated nodes. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { upgradeSessionOf, type StreamResult } from '../http/upgrade';
import { runStreamSession } from '../testing/streamSession';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

async function cluster(): Promise<TestServer> {
  t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 });
  await eventually(async () => (await t!.json('GET', '/api/v1/nodes/node-1')).status, (s) => s === 200, 'the node');
  await eventually(async () => (await t!.json('GET', `${ns}/serviceaccounts/default`)).status, (s) => s === 200, 'the default service account');
  return t;
}

async function create(s: TestServer, body: Record<string, unknown>, path = 'pods'): Promise<void> {
  const r = await s.json('POST', `${ns}/${path}`, { body });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
}

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const running = (s: TestServer, name: string, restarts = 0) => eventually(() => getPod(s, name), (p) => p?.status?.containerStatuses?.every((c: any) => c.state?.running && c.restartCount === restarts), `${name} running (${restarts} restarts)`);

/** `kubectl exec` as kubectl does it (an upgraded POST), with the session run to its end. */
async function exec(s: TestServer, pod: string, command: string[], container?: string): Promise<StreamResult> {
  const q = new URLSearchParams();
  for (const c of command) q.append('command', c);
  if (container) q.set('container', container);
  const request = new Request(`http://127.0.0.1:8080${ns}/pods/${pod}/exec?${q}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
  const response = await s.server.handle(request);
  const session = upgradeSessionOf(request);
  if (!session) throw new Error(`exec answered ${response.status}: ${await response.text()}`);
  return runStreamSession(session, '');
}

const logs = async (s: TestServer, pod: string, container: string, previous = false) => (await s.request('GET', `${ns}/pods/${pod}/log?container=${container}${previous ? '&previous=true' : ''}`)).text();

/** Moves the fake clock in steps, letting the kubelet act at each. */
async function pass(s: TestServer, ms: number, step = 1_000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    s.clock.advance(Math.min(step, ms - done));
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("a container run's files", () => {
  it('are shared by its main process and every exec; a restart starts a new layer from the image while its emptyDir stays', async () => {
    const s = await cluster();
    await create(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'layers' },
      spec: {
        containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'echo "tmp: $(ls /tmp)"; echo "cache: $(ls /cache)"; while [ ! -f /tmp/stop ]; do sleep 1; done; echo "stop says $(cat /tmp/stop)"; exit 3'], volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }],
        volumes: [{ name: 'cache', emptyDir: {} }],
      },
    });
    await running(s, 'layers');
    expect((await exec(s, 'layers', ['sh', '-c', 'echo kept > /tmp/a; echo cached > /cache/c'])).status).toMatchObject({ status: 'Success' });
    // The next exec is a process of the same run: it sees what the last one wrote.
    expect((await exec(s, 'layers', ['cat', '/tmp/a', '/cache/c'])).stdout).toBe('kept\ncached\n');
    // The main process sees an exec's write too (its loop looks each second).
    await exec(s, 'layers', ['sh', '-c', 'echo now > /tmp/stop']);
    await pass(s, 2_000);
    const restarted = await eventually(() => getPod(s, 'layers'), (p) => p.status.containerStatuses[0].restartCount === 1, 'the restart');
    expect(restarted.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(await logs(s, 'layers', 'app', true)).toBe('tmp: \ncache: \nstop says now\n');
    await pass(s, 10_000);
    await running(s, 'layers', 1);
    // The new run: a fresh layer (no /tmp/a, no /tmp/stop), the pod's emptyDir as it was.
    await eventually(() => logs(s, 'layers', 'app'), (l) => l === 'tmp: \ncache: c\n', 'the new run\'s log');
    expect((await exec(s, 'layers', ['cat', '/tmp/a'])).stderr).toBe("cat: can't open '/tmp/a': No such file or directory\n");
    expect((await exec(s, 'layers', ['cat', '/cache/c'])).stdout).toBe('cached\n');
  });
});
