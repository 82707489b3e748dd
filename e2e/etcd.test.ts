/**
 * Several Node hosts over one etcd behave as one API server (kube-apiserver
 * replicas): watches, continue tokens and optimistic concurrency work across
 * hosts, kubectl sees through one host what it applied through another, and
 * the controllers run on the Lease holder and move when it dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostFlags } from '../server/flags';
import { defaultEtcdFlags } from '../server/etcdFlags';
import { etcdAvailable, etcdMissing, startTestEtcd, type TestEtcd } from '../server/storage/testing/etcdServer';
import { startTestHost, type TestHost } from './support/host';

const available = etcdAvailable();

interface Json {
  [k: string]: any;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(base + path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

function configMap(name: string, data: Record<string, string> = {}): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/** Reads a watch stream line by line until `done` says stop. */
async function readWatch(base: string, path: string, done: (events: Json[]) => boolean): Promise<Json[]> {
  const abort = new AbortController();
  const res = await fetch(base + path, { signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Json[] = [];
  let buffered = '';
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as Json);
    }
  } finally {
    abort.abort();
  }
  return events;
}

function etcdFlags(etcd: TestEtcd, extra: Partial<HostFlags['etcd']> = {}): Partial<HostFlags> {
  return {
    store: 'etcd',
    etcd: { ...defaultEtcdFlags(), servers: [etcd.endpoint], leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500, ...extra },
  };
}

describe.skipIf(!available)(available ? 'hosts over one etcd' : `hosts over one etcd: ${etcdMissing}`, () => {
  let etcd: TestEtcd;
  let a: TestHost;
  let b: TestHost;
  let c: TestHost;

  beforeAll(async () => {
    etcd = await startTestEtcd();
    a = await startTestHost({ flags: etcdFlags(etcd) });
    b = await startTestHost({ flags: etcdFlags(etcd) });
    c = await startTestHost({ flags: etcdFlags(etcd) });
  });

  afterAll(async () => {
    for (const h of [a, b, c]) await h?.stop();
    await etcd?.stop();
  });

  it('[API-WATCH-001] a watch open on host B sees a write through host A at the same resourceVersion', async () => {
    const listed = await api(b.host.url, 'GET', '/api/v1/namespaces/default/configmaps');
    const from = listed.body.metadata.resourceVersion as string;
    const watching = readWatch(b.host.url, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${from}`, (ev) =>
      ev.some((e) => e.object?.metadata?.name === 'written-on-a'),
    );
    const created = await api(a.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('written-on-a', { k: 'v' }));
    expect(created.status).toBe(201);
    const events = await watching;
    const event = events.find((e) => e.object?.metadata?.name === 'written-on-a')!;
    expect(event.type).toBe('ADDED');
    expect(event.object.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect(event.object.metadata.uid).toBe(created.body.metadata.uid);
    expect(event.object.data).toEqual({ k: 'v' });
    // Reads through any host agree on the object and its version.
    for (const h of [a, b, c]) {
      const got = await api(h.host.url, 'GET', '/api/v1/namespaces/default/configmaps/written-on-a');
      expect(got.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    }
  });

  it('[API-RV-046] [API-LIST-005] a continue token from host A returns the next chunk on host B at the same resourceVersion', async () => {
    await api(a.host.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
    for (let i = 0; i < 5; i++) await api(a.host.url, 'POST', '/api/v1/namespaces/paging/configmaps', configMap(`cm-${i}`));
    const first = await api(a.host.url, 'GET', '/api/v1/namespaces/paging/configmaps?limit=2');
    expect(first.body.items.map((i: Json) => i.metadata.name)).toEqual(['cm-0', 'cm-1']);
    const token = first.body.metadata.continue as string;
    expect(token).toBeTruthy();
    // A write after the first chunk stays out of the rest of this list.
    await api(c.host.url, 'POST', '/api/v1/namespaces/paging/configmaps', configMap('cm-2a'));
    const second = await api(b.host.url, 'GET', `/api/v1/namespaces/paging/configmaps?limit=2&continue=${encodeURIComponent(token)}`);
    expect(second.status).toBe(200);
    expect(second.body.items.map((i: Json) => i.metadata.name)).toEqual(['cm-2', 'cm-3']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const third = await api(c.host.url, 'GET', `/api/v1/namespaces/paging/configmaps?limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    // The root CA publisher's kube-root-ca.crt (sorted last) may be in the namespace by then.
    expect(third.body.items.map((i: Json) => i.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt')).toEqual(['cm-4']);
    expect(third.body.metadata.continue ?? '').toBe('');
  });

  it('[API-PATH-039] [API-ERR-002] [API-ERR-008] 8 clients doing read-modify-write through different hosts lose no update', async () => {
    await api(a.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('counter', { count: '0' }));
    const hosts = [a, b, c];
    let successes = 0;
    const client = async (id: number) => {
      for (let n = 0; n < 10; ) {
        const h = hosts[(id + n) % hosts.length]!.host.url;
        const got = await api(h, 'GET', '/api/v1/namespaces/default/configmaps/counter');
        const obj = got.body;
        obj.data.count = String(Number(obj.data.count) + 1);
        const put = await api(hosts[(id + n + 1) % hosts.length]!.host.url, 'PUT', '/api/v1/namespaces/default/configmaps/counter', obj);
        if (put.status === 200) {
          successes++;
          n++;
        } else {
          expect(put.status).toBe(409);
          expect(put.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => client(i)));
    const final = await api(b.host.url, 'GET', '/api/v1/namespaces/default/configmaps/counter');
    expect(successes).toBe(80);
    expect(Number(final.body.data.count)).toBe(successes);
  });

  it('kubectl get -w on host B sees kubectl apply on host A', async () => {
    await api(b.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('before-watch'));
    const watcher = spawn('kubectl', ['get', 'configmaps', '-n', 'default', '-w', '-o', 'name'], {
      env: { ...process.env, HOME: b.home, KUBECONFIG: b.host.kubeconfigPath },
    });
    let out = '';
    const seen = new Promise<void>((resolve) => {
      watcher.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('configmap/applied-on-a')) resolve();
      });
    });
    try {
      // The watch is open once kubectl printed the initial list.
      while (!out.includes('configmap/before-watch')) await new Promise((r) => setTimeout(r, 50));
      const applied = await a.kubectl(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied-on-a\n  namespace: default\ndata:\n  from: a\n');
      expect(applied.stderr).toBe('');
      expect(applied.stdout.trim()).toBe('configmap/applied-on-a created');
      await seen;
    } finally {
      watcher.kill();
    }
    const got = await b.kubectl(['get', 'configmap', 'applied-on-a', '-o', 'jsonpath={.data.from}']);
    expect(got.stdout).toBe('a');
  });

  it('runs controllers on exactly one host, chosen by the kube-system/kube-controller-manager Lease', async () => {
    let lease: Json = {};
    while (!lease.spec?.holderIdentity) lease = (await api(c.host.url, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).body;
    expect([a, b, c].map((h) => h.host.leaderIdentity)).toContain(lease.spec.holderIdentity);
    expect(lease.spec.leaseDurationSeconds).toBe(3);
    const leader = [a, b, c].find((h) => h.host.leaderIdentity === lease.spec.holderIdentity)!;
    while (!leader.host.isLeader()) await new Promise((r) => setTimeout(r, 50));
    expect([a, b, c].map((h) => h.host.isLeader())).toEqual([a, b, c].map((h) => h === leader));
    // The leader's controllers act on writes through any host: the namespace controller finalizes a deletion.
    await api(b.host.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'short-lived' } });
    await api(b.host.url, 'POST', '/api/v1/namespaces/short-lived/configmaps', configMap('x'));
    expect((await api(c.host.url, 'DELETE', '/api/v1/namespaces/short-lived')).status).toBe(200);
    while ((await api(a.host.url, 'GET', '/api/v1/namespaces/short-lived')).status !== 404) await new Promise((r) => setTimeout(r, 100));
  });

  it('keeps watches going across an etcd restart: a watch on host B sees a write through host A made after it', async () => {
    const listed = await api(b.host.url, 'GET', '/api/v1/namespaces/default/configmaps');
    const watching = readWatch(b.host.url, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`, (ev) =>
      ev.some((e) => e.object?.metadata?.name === 'after-restart'),
    );
    await etcd.restart();
    // The client reconnects on its own; writes fail with 500 until it has.
    let created = await api(a.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('after-restart'));
    while (created.status === 500) {
      await new Promise((r) => setTimeout(r, 200));
      created = await api(a.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('after-restart'));
    }
    expect(created.status).toBe(201);
    const events = await watching;
    const event = events.find((e) => e.object?.metadata?.name === 'after-restart')!;
    expect(event.type).toBe('ADDED');
    expect(event.object.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });
});

describe.skipIf(!available)(available ? 'controller failover over one etcd' : `controller failover over one etcd: ${etcdMissing}`, () => {
  let etcd: TestEtcd;
  const processes: Array<{ child: ChildProcess; url: string; identity: string; dir: string }> = [];

  /** A host in its own process, so it can be killed like a crashed replica. */
  async function spawnHost(): Promise<{ child: ChildProcess; url: string; identity: string; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'kubesim-etcd-host-'));
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const child = spawn(process.execPath, ['--import', tsx, join(import.meta.dirname, '..', 'server', 'main.ts'),
      '--port=0', `--data-dir=${dir}`, '--store=etcd', `--etcd-servers=${etcd.endpoint}`,
      '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const url = /serving on (http:\/\/\S+)/.exec(out)?.[1];
        const identity = /leader election identity: (\S+)/.exec(out)?.[1];
        if (url && identity) resolve({ child, url, identity, dir });
      });
      child.once('exit', (code) => reject(new Error(`host exited with ${code}: ${err}`)));
    });
  }

  beforeAll(async () => {
    etcd = await startTestEtcd();
    processes.push(await spawnHost(), await spawnHost());
  });

  afterAll(async () => {
    for (const p of processes) {
      p.child.kill('SIGKILL');
      rmSync(p.dir, { recursive: true, force: true });
    }
    await etcd?.stop();
  });

  const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';

  it('moves the controllers to another host within the lease duration when the leader is killed', async () => {
    const [first, second] = processes as [typeof processes[0], typeof processes[0]];
    let lease: Json = {};
    while (!lease.spec?.holderIdentity) lease = (await api(second.url, 'GET', leasePath)).body;
    const leader = lease.spec.holderIdentity === first.identity ? first : second;
    const survivor = leader === first ? second : first;
    expect([first.identity, second.identity]).toContain(lease.spec.holderIdentity);

    leader.child.kill('SIGKILL');
    await new Promise((r) => leader.child.once('exit', r));
    const last = (await api(survivor.url, 'GET', leasePath)).body;
    let taken: Json = last;
    while (taken.spec.holderIdentity !== survivor.identity) {
      await new Promise((r) => setTimeout(r, 100));
      taken = (await api(survivor.url, 'GET', leasePath)).body;
    }
    expect(taken.spec.leaseTransitions).toBe((last.spec.leaseTransitions ?? 0) + 1);
    // Taken over once the dead leader's record went unrenewed for the lease duration (3s), never earlier;
    // the survivor notices at its next retry (0.5s), with room for a loaded machine's late timers.
    const waited = Date.parse(taken.spec.acquireTime) - Date.parse(last.spec.renewTime);
    expect(waited).toBeGreaterThanOrEqual(3000);
    expect(waited).toBeLessThanOrEqual(3000 + 4 * 500);

    // The survivor now runs them: a namespace deletion is finalized and a new namespace gets its default ServiceAccount.
    await api(survivor.url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-failover' } });
    while ((await api(survivor.url, 'GET', '/api/v1/namespaces/after-failover/serviceaccounts/default')).status !== 200) await new Promise((r) => setTimeout(r, 100));
    await api(survivor.url, 'DELETE', '/api/v1/namespaces/after-failover');
    while ((await api(survivor.url, 'GET', '/api/v1/namespaces/after-failover')).status !== 404) await new Promise((r) => setTimeout(r, 100));
  });
});

describe.skipIf(!available)(available ? 'what etcd holds' : `what etcd holds: ${etcdMissing}`, () => {
  it('keeps kube-apiserver\'s keys and media types: protobuf by default, JSON with --storage-media-type=application/json', async () => {
    const etcd = await startTestEtcd();
    const proto = await startTestHost({ flags: etcdFlags(etcd) });
    const json = await startTestHost({ flags: etcdFlags(etcd, { prefix: '/json', storageMediaType: 'application/json' }) });
    // Read etcd with a client of its own, as etcdctl would (Debian's etcd-server has no etcdctl).
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      for (const h of [proto, json]) {
        const applied = await h.kubectl(['apply', '-f', '-'], 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n');
        expect(applied.stdout.trim()).toBe('deployment.apps/web created');
      }
      const protoValue = await client.get('/registry/deployments/default/web').buffer();
      expect(protoValue?.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
      const jsonValue = JSON.parse((await client.get('/json/deployments/default/web').string()) ?? 'null') as Json;
      expect(jsonValue).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'web', namespace: 'default' } });
      expect(await client.getAll().prefix('/registry/services/specs/').keys()).toEqual(['/registry/services/specs/default/kubernetes']);
      expect(await client.getAll().prefix('/registry/minions/').limit(1).keys()).toEqual([]);
      // Both hosts read their own objects back whole.
      for (const h of [proto, json]) {
        const got = await h.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
        expect(got.stdout).toBe('nginx');
      }
    } finally {
      client.close();
      await proto.stop();
      await json.stop();
      await etcd.stop();
    }
  });
});

describe.skipIf(!available)(available ? 'compaction over etcd' : `compaction over etcd: ${etcdMissing}`, () => {
  it('[API-ERR-011] [API-RV-042] [API-WATCH-029] answers a read at a compacted revision with 410 Gone and kube\'s message', async () => {
    const etcd = await startTestEtcd();
    const host = await startTestHost({ flags: { ...etcdFlags(etcd), etcdCompactionIntervalMs: 1000 } });
    const client = new Etcd3({ hosts: etcd.endpoint });
    /** Whether etcd has compacted away the given revision (its read there fails as etcdctl's would). */
    const compactedAt = (rv: string) => client.get('/registry/configmaps/default/old').revision(rv).string().then(() => false, (e: unknown) => String(e).includes('required revision has been compacted'));
    try {
      const created = await api(host.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap('old'));
      const rv = created.body.metadata.resourceVersion as string;
      // Writes after the history window let the host compact etcd past rv (as kube-apiserver's compactor does).
      for (let i = 0; ; i++) {
        await new Promise((r) => setTimeout(r, 300));
        await api(host.host.url, 'POST', '/api/v1/namespaces/default/configmaps', configMap(`new-${i}`));
        if (await compactedAt(rv)) break;
      }
      const { status, body } = await api(host.host.url, 'GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(status).toBe(410);
      expect(body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 });
      expect(body.message).toBe('The resourceVersion for the provided list is too old.');
      // A watch from it ends with kube's ERROR event.
      const [event] = await readWatch(host.host.url, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, (ev) => ev.length > 0);
      expect(event!.type).toBe('ERROR');
      expect(event!.object).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
      expect(event!.object.message).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
    } finally {
      client.close();
      await host.stop();
      await etcd.stop();
    }
  });
});
