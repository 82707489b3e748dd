import { readFileSync } from 'node:fs';
import type { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/interface';
import { runStorageConformance } from '../../src/core/storage/testing/conformance';
import { createWatchCache } from '../../src/core/storage/cacher';
import { realClock } from '../../src/core/util/clock';
import { canonicalMetadata } from '../../src/core/api/equality';
import { deployment, namespace } from '../../src/core/http/serializers/protobuf/fixtures.test-data';
import { createEtcdStorage, etcdClient } from './etcd';
import { etcdValueCodec } from './etcdCodec';
import { EtcdKeyLayout } from './etcdKeys';
import { etcdAvailable, etcdMissing, startTestEtcd, type TestEtcd } from './testing/etcdServer';

const available = etcdAvailable();
let etcd: TestEtcd | undefined;
let client: Etcd3 | undefined;
let seq = 0;

beforeAll(async () => {
  if (!available) return;
  etcd = await startTestEtcd();
  client = etcdClient({ servers: [etcd.endpoint] });
}, 60_000);

afterAll(async () => {
  client?.close();
  await etcd?.stop();
});

/**
 * A fresh, empty store over the shared etcd: its own key prefix, and
 * revisions counted from the etcd revision at opening (the suite expects a
 * store to start at 0 and move by one per write; tests in a file run one at a
 * time, so no other writer moves etcd meanwhile).
 */
async function openStore(): Promise<Storage> {
  const base = Number((await client!.kv.range({ key: Buffer.from('\0') })).header.revision);
  return createEtcdStorage({ client: client!, layout: new EtcdKeyLayout(`/conformance/${++seq}`, '', false), revisionBase: base });
}

describe.skipIf(!available)(available ? 'etcd storage' : `etcd storage: ${etcdMissing}`, () => {
  runStorageConformance('etcd', openStore);
});

/** A value as the registry stores it: kind, apiVersion, canonical metadata with an empty resourceVersion, the rest. */
function stored(obj: { kind: string; apiVersion: string; metadata: Record<string, unknown>; [k: string]: unknown }): string {
  const { kind, apiVersion, metadata, ...rest } = obj;
  return JSON.stringify({ kind, apiVersion, metadata: canonicalMetadata({ ...metadata, resourceVersion: '' }), ...rest });
}

describe.skipIf(!available)(available ? 'etcd storage quirks' : `etcd storage quirks: ${etcdMissing}`, () => {
  async function raw(key: string): Promise<Buffer | undefined> {
    return (await client!.kv.range({ key: Buffer.from(key) })).kvs[0]?.value;
  }

  it('lays keys out as kube-apiserver does and stores built-in kinds as protobuf, custom resources as JSON', async () => {
    const prefix = `/layout${++seq}`;
    const s = createEtcdStorage({ client: client!, layout: new EtcdKeyLayout(prefix) });
    const dep = stored(deployment);
    await s.create('/registry/apps/deployments/default/web', dep);
    await s.create('/registry/nodes/n1', stored({ kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1' } }));
    await s.create('/registry/services/default/api', stored({ kind: 'Service', apiVersion: 'v1', metadata: { name: 'api', namespace: 'default' }, spec: { ports: [{ port: 80, protocol: 'TCP' }] } }));
    const cr = stored({ kind: 'CronTab', apiVersion: 'stable.example.com/v1', metadata: { name: 'c', namespace: 'default' }, spec: { cronSpec: '* * * * */5' } });
    await s.create('/registry/stable.example.com/crontabs/default/c', cr);

    const keys = (await client!.kv.range({ key: Buffer.from(prefix + '/'), range_end: Buffer.from(prefix + '0'), keys_only: true })).kvs.map((kv) => kv.key.toString());
    expect(keys).toEqual([
      `${prefix}/deployments/default/web`,
      `${prefix}/minions/n1`,
      `${prefix}/services/specs/default/api`,
      `${prefix}/stable.example.com/crontabs/default/c`,
    ]);
    const depBytes = (await raw(`${prefix}/deployments/default/web`))!;
    expect([...depBytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect((await raw(`${prefix}/stable.example.com/crontabs/default/c`))!.toString()).toBe(cr);

    // Read back through the backend: the registry's stored layout, semantically the object written.
    const back = await s.get('/registry/apps/deployments/default/web');
    expect(JSON.parse(back!.value)).toEqual(JSON.parse(dep));
    expect(back!.value.startsWith('{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web"')).toBe(true);
    expect((await s.range('/registry/services/')).kvs.map((kv) => kv.key)).toEqual(['/registry/services/default/api']);
    // A range over every resource maps etcd's order back to storage keys.
    expect((await s.range('/registry/')).kvs.map((kv) => kv.key)).toEqual([
      '/registry/apps/deployments/default/web',
      '/registry/nodes/n1',
      '/registry/services/default/api',
      '/registry/stable.example.com/crontabs/default/c',
    ]);
    await s.close();
  });

  it('talks to an etcd that requires client certificates (--etcd-cafile, --etcd-certfile, --etcd-keyfile)', async () => {
    const secure = await startTestEtcd({ tls: true });
    const tls = secure.tls!;
    const tlsClient = etcdClient({ servers: [secure.endpoint], caFile: readFileSync(tls.caFile), certFile: readFileSync(tls.certFile), keyFile: readFileSync(tls.keyFile) });
    const withoutCert = etcdClient({ servers: [secure.endpoint], caFile: readFileSync(tls.caFile) });
    try {
      const s = createEtcdStorage({ client: tlsClient, layout: new EtcdKeyLayout('/registry') });
      const created = await s.create('/registry/configmaps/default/a', stored({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }));
      expect((await s.get('/registry/configmaps/default/a'))?.modRevision).toBe(created.modRevision);
      const refused = createEtcdStorage({ client: withoutCert, layout: new EtcdKeyLayout('/registry') });
      await expect(refused.get('/registry/configmaps/default/a')).rejects.toMatchObject({ name: 'StorageError', code: 'Internal' });
    } finally {
      tlsClient.close();
      withoutCert.close();
      await secure.stop();
    }
  });

  it('reports etcd progress notifications, which move the watch cache past writes it has no event for', async () => {
    const prefix = `/progress${++seq}`;
    const s = createEtcdStorage({ client: client!, layout: new EtcdKeyLayout(prefix) });
    const cache = createWatchCache(s, { clock: realClock });
    await cache.ready;
    await s.create('/registry/configmaps/default/a', stored({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }));
    // Another client writes outside this prefix: etcd's revision moves, no event comes.
    const foreign = Number((await client!.kv.put({ key: Buffer.from(`/elsewhere${seq}`), value: Buffer.from('x') })).header.revision);
    expect(await s.currentRevision()).toBe(foreign);
    // Until the cache has seen everything up to a revision, it does not report it (a bookmark there could skip an event).
    while ((await cache.currentRevision()) < foreign) await new Promise((r) => setTimeout(r, 100));
    expect(await cache.currentRevision()).toBe(foreign);
    expect(cache.stats().resourceVersion).toBeGreaterThanOrEqual(foreign);
    await cache.close();
  });

  it('reads values in either media type whatever it writes', () => {
    const json = etcdValueCodec('application/json');
    const proto = etcdValueCodec();
    const ns = stored(namespace);
    expect(Buffer.from(json.encode(ns)).toString()).toBe(ns);
    expect(JSON.parse(json.decode(proto.encode(ns)))).toEqual(JSON.parse(ns));
    expect(proto.decode(json.encode(ns))).toBe(ns);
    // A field the protobuf message lacks keeps the object in JSON rather than losing it.
    const odd = stored({ ...namespace, notAField: { x: 1 } } as typeof namespace);
    expect(Buffer.from(proto.encode(odd)).toString()).toBe(odd);
  });
});
