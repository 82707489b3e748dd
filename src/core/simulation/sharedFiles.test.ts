/** A container's files shared by its processes, and volumes shared by mount, on simulated nodes. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../testing/client';
import { execIn, passTime, simulatedClusters } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';

const ns = '/api/v1/namespaces/default';

const cluster = simulatedClusters();

async function create(s: TestServer, body: Record<string, unknown>, path = 'pods'): Promise<void> {
  const r = await s.json('POST', `${ns}/${path}`, { body });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
}

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const running = (s: TestServer, name: string, restarts = 0) => eventually(() => getPod(s, name), (p) => p?.status?.containerStatuses?.every((c: any) => c.state?.running && c.restartCount === restarts), `${name} running (${restarts} restarts)`);

const exec = execIn;

const logs = async (s: TestServer, pod: string, container: string, previous = false) => (await s.request('GET', `${ns}/pods/${pod}/log?container=${container}${previous ? '&previous=true' : ''}`)).text();

const pass = passTime;

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
    // A process exec'd into the container lives as long as the container.
    const lingering = exec(s, 'layers', ['sh', '-c', 'while true; do sleep 1; done']);
    // The main process sees an exec's write too (its loop looks each second).
    await exec(s, 'layers', ['sh', '-c', 'echo now > /tmp/stop']);
    await pass(s, 2_000);
    const restarted = await eventually(() => getPod(s, 'layers'), (p) => p.status.containerStatuses[0].restartCount === 1, 'the restart');
    expect(restarted.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(await logs(s, 'layers', 'app', true)).toBe('tmp: \ncache: \nstop says now\n');
    expect((await lingering).status).toMatchObject({ reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '137' }] } });
    await pass(s, 10_000);
    await running(s, 'layers', 1);
    // The new run: a fresh layer (no /tmp/a, no /tmp/stop), the pod's emptyDir as it was.
    await eventually(() => logs(s, 'layers', 'app'), (l) => l === 'tmp: \ncache: c\n', 'the new run\'s log');
    expect((await exec(s, 'layers', ['cat', '/tmp/a'])).stderr).toBe("cat: can't open '/tmp/a': No such file or directory\n");
    expect((await exec(s, 'layers', ['cat', '/cache/c'])).stdout).toBe('cached\n');
  });
});

describe('volumes shared by mount', () => {
  it("an emptyDir is the pod's: every container mounting it sees the same files (subPath a directory of it); a configMap volume is read-only", async () => {
    const s = await cluster();
    await create(s, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } }, 'configmaps');
    await create(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pair' },
      spec: {
        containers: [
          // The reader first: the kubelet runs it before the writer, whose lines must be there by the reader's time all the same.
          { name: 'reader', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3.5; while true; do tail -n 1 /in/log; sleep 2; done'], volumeMounts: [{ name: 'shared', mountPath: '/in', readOnly: true }, { name: 'shared', mountPath: '/mine', subPath: 'reader' }] },
          { name: 'writer', image: 'busybox:1.36', command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo "line $i" >> /shared/log; sleep 1; done'], volumeMounts: [{ name: 'shared', mountPath: '/shared' }, { name: 'settings', mountPath: '/etc/settings' }] },
        ],
        volumes: [{ name: 'shared', emptyDir: {} }, { name: 'settings', configMap: { name: 'settings' } }],
      },
    });
    const pod = await running(s, 'pair');
    const startedAt = Date.parse(pod.status.containerStatuses[0].state.running.startedAt);
    expect(Date.parse(pod.status.containerStatuses[1].state.running.startedAt)).toBe(startedAt);
    await pass(s, 10_000);
    // The reader sees each line the writer wrote by its own time, in order: the writer's lines come each second from the start.
    await eventually(() => logs(s, 'pair', 'reader'), (l) => l === 'line 4\nline 6\nline 8\nline 10\n', "the reader's log");
    const now = s.clock.now().getTime();
    const lines = Math.floor((now - startedAt) / 1000) + 1;
    expect((await exec(s, 'pair', ['wc', '-l', '/in/log'], 'reader')).stdout).toBe(`${lines} /in/log\n`);
    // Mounted readOnly in the reader, writable in the writer.
    expect((await exec(s, 'pair', ['sh', '-c', 'echo x > /in/x'], 'reader')).stderr).toBe("sh: can't create /in/x: Read-only file system\n");
    // A subPath is a directory of the same volume.
    await exec(s, 'pair', ['sh', '-c', 'echo from-reader > /mine/note'], 'reader');
    expect((await exec(s, 'pair', ['cat', '/shared/reader/note'], 'writer')).stdout).toBe('from-reader\n');
    // A configMap volume is the kubelet's to write.
    const refused = await exec(s, 'pair', ['sh', '-c', 'echo slow > /etc/settings/mode'], 'writer');
    expect(refused.stderr).toBe("sh: can't create /etc/settings/mode: Read-only file system\n");
    expect((await exec(s, 'pair', ['cat', '/etc/settings/mode'], 'writer')).stdout).toBe('fast');
  });

  it("a claim's files are its PersistentVolume's: a new pod mounting it sees them; a hostPath's are the node's", async () => {
    const s = await cluster();
    await create(s, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, 'persistentvolumeclaims');
    const podOf = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'host', mountPath: '/host' }, { name: 'scratch', mountPath: '/scratch' }] }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }, { name: 'host', hostPath: { path: '/srv/shared', type: 'DirectoryOrCreate' } }, { name: 'scratch', emptyDir: {} }],
      },
    });
    await create(s, podOf('first'));
    await running(s, 'first');
    await exec(s, 'first', ['sh', '-c', 'echo kept > /data/f; echo node > /host/h; echo gone > /scratch/s']);
    expect((await s.json('DELETE', `${ns}/pods/first`)).status).toBe(200);
    // sleep as PID 1 ignores SIGTERM: killed once the 30s grace period is over.
    s.clock.advance(30_000);
    await eventually(async () => (await s.json('GET', `${ns}/pods/first`)).status, (st) => st === 404, 'the first pod gone');
    await create(s, podOf('second'));
    await running(s, 'second');
    expect((await exec(s, 'second', ['cat', '/data/f', '/host/h'])).stdout).toBe('kept\nnode\n');
    // An emptyDir went with its pod.
    expect((await exec(s, 'second', ['ls', '/scratch'])).stdout).toBe('');
  });

  it("every hostPath is a directory of its node's files: a pod mounting the node's root, as kubectl debug node does, sees what another wrote, and the node's own files", async () => {
    const s = await cluster();
    const podOf = (name: string, path: string, mountPath: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'], volumeMounts: [{ name: 'host', mountPath }] }], volumes: [{ name: 'host', hostPath: { path, type: 'DirectoryOrCreate' } }] },
    });
    await create(s, podOf('writer', '/srv/app/data', '/data'));
    await running(s, 'writer');
    await exec(s, 'writer', ['sh', '-c', 'echo hi > /data/f']);
    await create(s, podOf('debugger', '/', '/host'));
    await create(s, podOf('parent', '/srv', '/srv'));
    await running(s, 'debugger');
    await running(s, 'parent');
    const node = (await getPod(s, 'debugger')).spec.nodeName;
    expect((await exec(s, 'debugger', ['cat', '/host/srv/app/data/f', '/host/etc/hostname'])).stdout).toBe(`hi\n${node}\n`);
    expect((await exec(s, 'debugger', ['cat', '/host/etc/os-release'])).stdout).toContain('PRETTY_NAME="kubesim simulated node"\n');
    // Written through one mount, read through another.
    await exec(s, 'parent', ['sh', '-c', 'echo there > /srv/app/data/g']);
    expect((await exec(s, 'writer', ['ls', '/data'])).stdout).toBe('f\ng\n');
  });

  it('a reader following a file another container appends to gets each line when it polls after the write, in order (tail -F)', async () => {
    const s = await cluster();
    const tailer = { name: 'tail', image: 'busybox:1.36', command: ['tail', '-F', '/var/log/app/out.log'], volumeMounts: [{ name: 'logs', mountPath: '/var/log/app' }] };
    const app = { name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'while true; do date | tee -a /logs/out.log; sleep 1; done'], volumeMounts: [{ name: 'logs', mountPath: '/logs' }] };
    const podOf = (name: string, containers: unknown[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers, volumes: [{ name: 'logs', emptyDir: {} }] } });
    // The kubelet starts containers in order: the writer first, or the follower first.
    await create(s, podOf('writer-first', [app, tailer]));
    await create(s, podOf('tail-first', [tailer, app]));
    await running(s, 'writer-first');
    await running(s, 'tail-first');
    await pass(s, 6_000);
    const stamped = async (pod: string, c: string) => (await s.request('GET', `${ns}/pods/${pod}/log?container=${c}&timestamps=true`)).text();
    const written = await stamped('writer-first', 'app');
    expect(written.split('\n').length).toBeGreaterThan(6);
    // Started after the writer, the follower polls just after each write: each line at the instant it was written.
    await eventually(() => stamped('writer-first', 'tail'), (l) => l === written, "the follower's log");
    // Started before it, it finds no file at first, then polls just before each write: each line a second late.
    const stamp = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    const lines = (await stamped('tail-first', 'app')).trimEnd().split('\n').map((l) => [Date.parse(l.slice(0, 20)), l.slice(21)] as const);
    const start = lines[0]![0];
    const late = [`${stamp(start)} tail: can't open '/var/log/app/out.log': No such file or directory`, `${stamp(start + 1000)} tail: /var/log/app/out.log has appeared; following end of new file`, ...lines.map(([at, text]) => `${stamp(at + 1000)} ${text}`)];
    await eventually(async () => (await stamped('tail-first', 'tail')).trimEnd().split('\n').slice(0, late.length), (l) => JSON.stringify(l) === JSON.stringify(late.slice(0, l.length)) && l.length >= late.length - 1, "the early follower's log");
  });

  it("serves what another container wrote: the docs' two-containers Pod, nginx's document root an emptyDir the debian container writes", async () => {
    const s = await cluster();
    await create(s, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'two-containers' },
      spec: {
        restartPolicy: 'Never',
        volumes: [{ name: 'shared-data', emptyDir: {} }],
        containers: [
          { name: 'nginx-container', image: 'nginx', volumeMounts: [{ name: 'shared-data', mountPath: '/usr/share/nginx/html' }] },
          { name: 'debian-container', image: 'debian', volumeMounts: [{ name: 'shared-data', mountPath: '/pod-data' }], command: ['/bin/sh'], args: ['-c', 'echo Hello from the debian container > /pod-data/index.html'] },
        ],
      },
    });
    const pod = await eventually(() => getPod(s, 'two-containers'), (p) => p?.status?.containerStatuses?.find((c: any) => c.name === 'debian-container')?.state?.terminated?.reason === 'Completed', 'the debian container done');
    expect(pod.status.phase).toBe('Running');
    // The nginx image has no curl (the docs install it): the API server's proxy to the pod asks nginx instead.
    const page = await s.request('GET', `${ns}/pods/two-containers/proxy/`);
    expect([page.status, await page.text()]).toEqual([200, 'Hello from the debian container\n']);
    expect((await s.request('GET', `${ns}/pods/two-containers/proxy/nope.html`)).status).toBe(404);
  });
});
