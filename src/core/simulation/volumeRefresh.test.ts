/** ConfigMap, Secret, downwardAPI and projected volumes following their sources at the kubelet's pod resync, on simulated nodes. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../testing/client';
import { execIn, passTime, simulatedClusters } from '../testing/simulatedCluster';
import { eventually } from '../testing/eventually';
import type { KubeObject } from '../api/types';
import { FileStore } from './fileStore';
import type { FsEntry } from './containerView';
import { followedVolumes, refreshVolumes } from './volumeRefresh';
import { atomicLayout, timestampDir } from './atomicWriter';
import { strftime } from './containerTools';
import { resolveLinks } from './containerFiles';

const ns = '/api/v1/namespaces/default';

const cluster = simulatedClusters();

async function send(s: TestServer, method: string, path: string, body: Record<string, unknown>, expected: number, contentType?: string): Promise<void> {
  const r = await s.json(method, `${ns}/${path}`, { body, ...(contentType ? { headers: { 'content-type': contentType } } : {}) });
  if (r.status !== expected) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
}

const getPod = async (s: TestServer, name: string): Promise<any> => (await s.json('GET', `${ns}/pods/${name}`)).body;
const running = (s: TestServer, name: string) => eventually(() => getPod(s, name), (p) => p?.status?.containerStatuses?.every((c: any) => c.state?.running), `${name} running`);

const exec = execIn;

const pass = passTime;

const b64 = (v: string) => btoa(v);

/** What the pod's container sees of its volumes and environment. */
const look = ['sh', '-c', 'cat /etc/settings/mode; echo; ls /etc/settings; cat /etc/mode; echo; echo "env $MODE"; cat /etc/creds/password; echo; ls /etc/late; cat /etc/all/mode; echo; cat /etc/all/password; echo'];

describe('volumes following their sources', () => {
  it('swap in a ConfigMap\'s and a Secret\'s new files at the pod\'s resync, a minute after its last sync; a subPath mount and the environment keep the old', async () => {
    const s = await cluster();
    await send(s, 'POST', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast', old: 'gone' } }, 201);
    await send(s, 'POST', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: b64('one') } }, 201);
    const t0 = s.clock.now().getTime();
    await send(s, 'POST', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'app' },
      spec: {
        containers: [{
          name: 'app',
          image: 'busybox:1.36',
          command: ['sleep', '3600'],
          env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }],
          volumeMounts: [
            { name: 'settings', mountPath: '/etc/settings' },
            { name: 'settings', mountPath: '/etc/mode', subPath: 'mode' },
            { name: 'creds', mountPath: '/etc/creds' },
            { name: 'late', mountPath: '/etc/late' },
            { name: 'all', mountPath: '/etc/all' },
          ],
        }],
        volumes: [
          { name: 'settings', configMap: { name: 'settings' } },
          { name: 'creds', secret: { secretName: 'creds' } },
          { name: 'late', configMap: { name: 'late', optional: true } },
          { name: 'all', projected: { sources: [{ configMap: { name: 'settings', items: [{ key: 'mode', path: 'mode' }] } }, { secret: { name: 'creds' } }] } },
        ],
      },
    }, 201);
    await running(s, 'app');
    expect((await exec(s, 'app', look)).stdout).toBe('fast\nmode\nold\nfast\nenv fast\none\nfast\none\n');

    // Edited at the pod's first sync's time: the key `old` removed, `extra` added; the optional ConfigMap appears.
    await send(s, 'PUT', 'configmaps/settings', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'slow', extra: 'new' } }, 200);
    await send(s, 'PUT', 'secrets/creds', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: b64('two') } }, 200);
    await send(s, 'POST', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' }, data: { greeting: 'hi' } }, 201);
    // Until the resync the volumes are as they were.
    await pass(s, 59_000);
    expect((await exec(s, 'app', look)).stdout).toBe('fast\nmode\nold\nfast\nenv fast\none\nfast\none\n');
    // The resync, a minute after the pod's first sync (at t0): the files are swapped in at its time.
    await pass(s, 1_000);
    expect(s.clock.now().getTime()).toBe(t0 + 60_000);
    // After it: the new keys (`old` gone), the new Secret, the optional ConfigMap; the subPath file and $MODE as they were.
    await eventually(async () => (await exec(s, 'app', look)).stdout, (o) => o.startsWith('slow'), 'the swap');
    expect((await exec(s, 'app', look)).stdout).toBe('slow\nextra\nmode\nfast\nenv fast\ntwo\ngreeting\nslow\ntwo\n');
    // The volume is still read-only to the container.
    expect((await exec(s, 'app', ['sh', '-c', 'echo x > /etc/settings/mode'])).stderr).toBe("sh: can't create /etc/settings/mode: Read-only file system\n");
  });

  it('lays a volume out as the kubelet\'s atomic writer does: ..data a symlink to a timestamped directory, each key a symlink through it, all re-pointed at the resync', async () => {
    const s = await cluster();
    await send(s, 'POST', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { 'app.properties': 'color=blue\n', mode: 'fast' } }, 201);
    await send(s, 'POST', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: b64('one') } }, 201);
    await send(s, 'POST', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'atomic' },
      spec: {
        containers: [{
          name: 'app',
          image: 'busybox:1.36',
          command: ['sleep', '3600'],
          volumeMounts: [{ name: 'config', mountPath: '/etc/config' }, { name: 'config', mountPath: '/etc/mode', subPath: 'mode' }, { name: 'creds', mountPath: '/etc/creds' }],
        }],
        volumes: [{ name: 'config', configMap: { name: 'app' } }, { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } }],
      },
    }, 201);
    await running(s, 'atomic');
    const pod = await getPod(s, 'atomic');
    const started = Date.parse(pod.status.containerStatuses[0].state.running.startedAt);
    const dir = (at: number) => timestampDir(at, `pod/${pod.metadata.uid}/config`);
    const sh = async (script: string) => (await exec(s, 'atomic', ['sh', '-c', script])).stdout;
    const date = () => strftime('%b %e %H:%M', s.clock.now().getTime());
    // Created at the container's first mount: `..` + the UTC time, then os.MkdirTemp's random number.
    const first = dir(started);
    expect(first).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/);
    expect(await sh('ls -la /etc/config')).toBe([
      'total 12',
      `drwxrwxrwx    2 root     root          4096 ${date()} .`,
      `drwxr-xr-x    2 root     root          4096 ${date()} ..`,
      `drwxr-xr-x    2 root     root          4096 ${date()} ${first}`,
      `lrwxrwxrwx    1 root     root      ${String(first.length).padStart(8)} ${date()} ..data -> ${first}`,
      `lrwxrwxrwx    1 root     root            21 ${date()} app.properties -> ..data/app.properties`,
      `lrwxrwxrwx    1 root     root            11 ${date()} mode -> ..data/mode`,
      '',
    ].join('\n'));
    // Without -a the dot entries are hidden; the files themselves are in the timestamped directory, with the volume's modes.
    expect(await sh('ls /etc/config; readlink /etc/config/..data; readlink /etc/config/mode; readlink -f /etc/config/mode; cat /etc/config/mode; echo')).toBe(`app.properties\nmode\n${first}\n..data/mode\n/etc/config/${first}/mode\nfast\n`);
    expect(await sh('ls -lL /etc/creds; ls -l /etc/creds/..data/ | cut -c1-10; cat /etc/creds/..data/password; echo')).toBe(`total 4\n-r--------    1 root     root             3 ${date()} password\ntotal 4\n-r--------\none\n`);
    // The root of a secret's volume is tmpfs's (sticky, world-writable); a subPath mount is the file itself.
    expect(await sh('ls -la /etc/creds | sed -n 2p; ls -l /etc/mode')).toBe(`drwxrwxrwt    2 root     root          4096 ${date()} .\n-rw-r--r--    1 root     root             4 ${date()} /etc/mode\n`);
    // find lists the symlinks without following them; tar archives them as symlinks (what kubectl cp gets); cp follows one it is given.
    expect(await sh('find /etc/config; find /etc/config -type l')).toBe([
      '/etc/config', `/etc/config/${first}`, `/etc/config/${first}/app.properties`, `/etc/config/${first}/mode`, '/etc/config/..data', '/etc/config/app.properties', '/etc/config/mode',
      '/etc/config/..data', '/etc/config/app.properties', '/etc/config/mode', '',
    ].join('\n'));
    expect(await sh('tar cf - -C /etc/config . | tar tvf - | grep -- " -> "; cp /etc/config/mode /tmp/mode; ls -l /tmp/mode')).toBe([
      `lrwxrwxrwx root/root         0 ${strftime('%Y-%m-%d %H:%M:%S', s.clock.now().getTime())} ./..data -> ${first}`,
      `lrwxrwxrwx root/root         0 ${strftime('%Y-%m-%d %H:%M:%S', s.clock.now().getTime())} ./app.properties -> ..data/app.properties`,
      `lrwxrwxrwx root/root         0 ${strftime('%Y-%m-%d %H:%M:%S', s.clock.now().getTime())} ./mode -> ..data/mode`,
      `-rw-r--r--    1 root     root             4 ${date()} /tmp/mode`,
      '',
    ].join('\n'));
    expect((await exec(s, 'atomic', ['sh', '-c', 'echo x > /etc/config/mode; rm /etc/config/..data'])).stderr).toBe("sh: can't create /etc/config/mode: Read-only file system\nrm: can't remove '/etc/config/..data': Read-only file system\n");

    // An edit: at the resync the payload goes into a new directory, ..data points to it, the old one and the removed key's symlink are gone.
    const synced = started + 60_000;
    await send(s, 'PUT', 'configmaps/app', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { mode: 'slow', extra: 'new' } }, 200);
    await pass(s, synced - s.clock.now().getTime());
    await eventually(() => sh('cat /etc/config/mode'), (o) => o === 'slow', 'the swap');
    const second = dir(synced);
    expect(second).not.toBe(first);
    expect(await sh('ls -la /etc/config')).toBe([
      'total 12',
      `drwxrwxrwx    2 root     root          4096 ${date()} .`,
      `drwxr-xr-x    2 root     root          4096 ${date()} ..`,
      `drwxr-xr-x    2 root     root          4096 ${date()} ${second}`,
      `lrwxrwxrwx    1 root     root      ${String(second.length).padStart(8)} ${date()} ..data -> ${second}`,
      `lrwxrwxrwx    1 root     root            12 ${date()} extra -> ..data/extra`,
      `lrwxrwxrwx    1 root     root            11 ${date()} mode -> ..data/mode`,
      '',
    ].join('\n'));
    expect(await sh(`readlink /etc/config/..data; cat /etc/config/extra; echo; cat /etc/mode; echo; ls /etc/config/${first}`)).toBe(`${second}\nnew\nfast\n`);
  });

  it('a downwardAPI volume follows the pod\'s labels at once (the pod\'s update is a sync of its own); an env fieldRef does not', async () => {
    const s = await cluster();
    await send(s, 'POST', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'labelled', labels: { app: 'demo', tier: 'web' } },
      spec: {
        containers: [{
          name: 'app',
          image: 'busybox:1.36',
          command: ['sleep', '3600'],
          env: [{ name: 'TIER', valueFrom: { fieldRef: { fieldPath: "metadata.labels['tier']" } } }],
          volumeMounts: [{ name: 'info', mountPath: '/etc/podinfo' }],
        }],
        volumes: [{ name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }],
      },
    }, 201);
    await running(s, 'labelled');
    const show = ['sh', '-c', 'cat /etc/podinfo/labels; echo; cat /etc/podinfo/name; echo; echo "tier $TIER"'];
    expect((await exec(s, 'labelled', show)).stdout).toBe('app="demo"\ntier="web"\nlabelled\ntier web\n');
    await pass(s, 10_000);
    await send(s, 'PATCH', 'pods/labelled', { metadata: { labels: { tier: 'api', version: 'v2' } } }, 200, 'application/merge-patch+json');
    // The pod's update is synced at once: no resync to wait for.
    await eventually(async () => (await exec(s, 'labelled', show)).stdout, (o) => o.includes('version'), 'the new labels');
    expect((await exec(s, 'labelled', show)).stdout).toBe('app="demo"\ntier="api"\nversion="v2"\nlabelled\ntier web\n');
  });

  it('a container restarted after an edit starts with the new files: its exit is a sync of the pod', async () => {
    const s = await cluster();
    await send(s, 'POST', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } }, 201);
    await send(s, 'POST', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'restarts' },
      spec: {
        containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'cat /etc/settings/mode; echo; sleep 5; exit 1'], volumeMounts: [{ name: 'settings', mountPath: '/etc/settings' }] }],
        volumes: [{ name: 'settings', configMap: { name: 'settings' } }],
      },
    }, 201);
    await running(s, 'restarts');
    await send(s, 'PUT', 'configmaps/settings', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'slow' } }, 200);
    // Exit at 5s and, the first time, a restart at once: well before the resync at 60s.
    await pass(s, 6_000);
    await eventually(() => getPod(s, 'restarts'), (p) => p.status.containerStatuses[0].restartCount === 1 && !!p.status.containerStatuses[0].state.running, 'the restart');
    const log = async (previous: boolean) => (await s.request('GET', `${ns}/pods/restarts/log?container=app${previous ? '&previous=true' : ''}`)).text();
    expect(await eventually(() => log(false), (l) => l !== '', 'the second run\'s log')).toBe('slow\n');
    expect(await log(true)).toBe('fast\n');
  });

  it('nginx serves the edited ConfigMap mounted as its web root after the resync', async () => {
    const s = await cluster();
    await send(s, 'POST', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'site' }, data: { 'index.html': '<h1>v1</h1>\n' } }, 201);
    await send(s, 'POST', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], volumeMounts: [{ name: 'site', mountPath: '/usr/share/nginx/html' }] }],
        volumes: [{ name: 'site', configMap: { name: 'site' } }],
      },
    }, 201);
    await running(s, 'web');
    const page = async () => (await s.request('GET', `${ns}/pods/web/proxy/`)).text();
    expect(await page()).toBe('<h1>v1</h1>\n');
    await send(s, 'PUT', 'configmaps/site', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'site' }, data: { 'index.html': '<h1>v2</h1>\n' } }, 200);
    await pass(s, 30_000);
    expect(await page()).toBe('<h1>v1</h1>\n');
    await pass(s, 29_000);
    expect(await page()).toBe('<h1>v1</h1>\n');
    await pass(s, 1_000);
    expect(await eventually(page, (p) => p !== '<h1>v1</h1>\n', 'the new page')).toBe('<h1>v2</h1>\n');
  });
});

describe('the kubelet\'s swap of a volume\'s files', () => {
  const enc = (v: string) => new TextEncoder().encode(v);
  const dec = (e: FsEntry | undefined) => (e?.type === 'file' ? new TextDecoder().decode(e.content) : e?.type);
  const pod = (volumes: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [], volumes } });

  it('writes a new timestamped directory and re-points ..data at one time, after the last time a process read the volume, and keeps a token it did not ask for', async () => {
    let data: Record<string, string> = { a: 'one', b: 'two' };
    const get = async (resource: string) => (resource === 'configmaps' ? ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data } as KubeObject) : undefined);
    const first = [{ path: 'a', content: enc('one'), mode: 0o644 }, { path: 'b', content: enc('two'), mode: 0o644 }, { path: 'token', content: enc('t1'), mode: 0o644 }];
    const store = new FileStore(atomicLayout(first, 0, 'pod/u1/v', 0o1777));
    const p = pod([{ name: 'v', projected: { sources: [{ configMap: { name: 'c' } }, { serviceAccountToken: { path: 'token' } }] } }]);
    const stores = (name: string) => (name === 'pod/u1/v' ? store : undefined);
    const read = (path: string, at: number) => dec(store.get(resolveLinks((q) => store.get(q, at), path, true)!, at));
    const dataDir = (at: number) => {
      const e = store.get('/..data', at);
      return e?.type === 'link' ? e.target : undefined;
    };
    expect(dataDir(0)).toBe(timestampDir(0, 'pod/u1/v'));
    expect(dataDir(0)).toMatch(/^\.\.1970_01_01_00_00_00\.\d+$/);
    // Nothing changed: nothing written.
    expect(await refreshVolumes({ get }, p, stores, 1_000)).toEqual([]);
    data = { a: 'uno', c: 'tres' };
    // A process read the volume at 1500: the swap lands just after, in a directory named from that time.
    store.catchUp(1_500);
    expect(await refreshVolumes({ get }, p, stores, 1_000)).toEqual(['v']);
    const [old, next] = [timestampDir(0, 'pod/u1/v'), timestampDir(1_501, 'pod/u1/v')];
    expect(next).toMatch(/^\.\.1970_01_01_00_00_01\.\d+$/);
    expect([dataDir(1_500), read('/a', 1_500), read('/b', 1_500), read('/c', 1_500)]).toEqual([old, 'one', 'two', undefined]);
    expect([dataDir(1_501), read('/a', 1_501), read('/b', 1_501), read('/c', 1_501), read('/token', 1_501)]).toEqual([next, 'uno', undefined, 'tres', 't1']);
    // The old directory and the symlink of the key gone are removed with the swap.
    expect([...store.paths(1_501)].sort()).toEqual(['/', `/${next}`, `/${next}/a`, `/${next}/c`, `/${next}/token`, '/..data', '/a', '/c', '/token']);
    expect(store.get('/a', 1_501)).toEqual({ type: 'link', target: '..data/a', mode: 0o777 });
    // No read since: the next swap is at the sync's own time.
    data = { a: 'eins', c: 'tres' };
    expect(await refreshVolumes({ get }, p, stores, 60_000)).toEqual(['v']);
    expect([read('/a', 59_999), read('/a', 60_000), dataDir(60_000)]).toEqual(['uno', 'eins', timestampDir(60_000, 'pod/u1/v')]);
  });

  it('follows only the volumes whose sources can change while the pod runs', () => {
    const names = (volumes: Record<string, unknown>[]) => followedVolumes(pod(volumes)).map((v) => v['name']);
    expect(names([
      { name: 'cm', configMap: { name: 'c' } },
      { name: 'secret', secret: { secretName: 's' } },
      { name: 'labels', downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'podname', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
      { name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }, { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } },
      { name: 'scratch', emptyDir: {} },
    ])).toEqual(['cm', 'secret', 'labels']);
  });
});
