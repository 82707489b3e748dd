import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/types';
import { createMemoryStorage } from '../../storage/memory';
import type { KeyValue, Storage } from '../../storage/interface';
import { newTestServer } from '../../testing/client';
import { FakeClock, seededRandom } from '../../util/clock';
import { registryBundle } from '../generated';
import { ResourceRegistry } from '../registry';
import { strategyFor } from '../strategies';
import { Store, storedObjectHead } from './store';

const registry = new ResourceRegistry(registryBundle);
const typeOf = (group: string, version: string, resource: string) => registry.resourceFor(group, version, resource)!;

let storage: Storage;
let pods: Store;
beforeEach(() => {
  storage = createMemoryStorage();
  pods = new Store(typeOf('', 'v1', 'pods'), strategyFor(typeOf('', 'v1', 'pods')), { storage, clock: new FakeClock(), random: seededRandom(3), checkNamespace: async () => {} });
});

const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { '10': 'ten', app: 'a' }, annotations: { note: 'é \u2028 "resourceVersion":"" \\ \ud800' }, ...extra },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } } }], terminationGracePeriodSeconds: 30 },
});

const withoutTypeMeta = ({ kind: _k, apiVersion: _a, ...rest }: KubeObject) => rest;

describe('Store.createStored of a tracked object', () => {
  /** Two stores over separate storage with the same clock and seed write the same uid and times. */
  const twin = () => new Store(typeOf('', 'v1', 'pods'), strategyFor(typeOf('', 'v1', 'pods')), { storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(3), checkNamespace: async () => {} });

  it.each<[string, (o: KubeObject) => void]>([
    ['as the field manager made it', () => {}],
    ['with a metadata field ObjectMeta does not have', (o) => ((o.metadata as Record<string, unknown>)['extra'] = { a: 1 })],
    ['with an entry changed after tracking', (o) => {
      const [e] = o.metadata.managedFields!;
      delete (e as Record<string, unknown>)['manager'];
      (e as Record<string, unknown>)['subresource'] = undefined;
      (e as Record<string, unknown>)['z'] = 'last';
    }],
    ['with a second entry of unknown text', (o) => o.metadata.managedFields!.push({ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } })],
  ])('stores the text JSON.stringify writes, %s', async (_name, change) => {
    const tracked = pods.fieldManager().update(undefined, pod('p1', { finalizers: ['a/b'] }) as never, 'kubectl-create') as unknown as KubeObject;
    expect(tracked.metadata.managedFields).toHaveLength(1);
    change(tracked);
    const copy = structuredClone(tracked);
    const kv = (await pods.createStored('default', tracked)).kv!;
    const reference = (await twin().createStored('default', copy)).kv!;
    expect(kv.value).toBe(reference.value);
    expect(JSON.parse(kv.value)).toEqual(JSON.parse(reference.value));
  });

  it('stores the text JSON.stringify writes for an object of metadata alone', async () => {
    const cm = typeOf('', 'v1', 'configmaps');
    const store = (storage: Storage) => new Store(cm, strategyFor(cm), { storage, clock: new FakeClock(), random: seededRandom(3), checkNamespace: async () => {} });
    const tracked = store(storage).fieldManager().update(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } } }, 'm') as unknown as KubeObject;
    const copy = structuredClone(tracked);
    const kv = (await store(storage).createStored('default', tracked)).kv!;
    expect(kv.value).toBe((await store(createMemoryStorage()).createStored('default', copy)).kv!.value);
    expect(kv.value.endsWith('"fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:a":{}}}}}]}}')).toBe(true);
  });
});

describe('Store.servedJson', () => {
  it('is the text of the decoded object, kind and apiVersion included or, for list items, left out', async () => {
    const written = await pods.createStored('default', pod('p1', { generateName: 'p-' }));
    const kv = written.kv!;
    expect(pods.servedJson(kv)).toBe(JSON.stringify(pods.decode(kv)));
    expect(pods.servedJson(kv, true)).toBe(JSON.stringify(withoutTypeMeta(pods.decode(kv))));
    expect(pods.servedJson(kv)).toContain(`"resourceVersion":"${kv.modRevision}"`);
  });

  it('appendServedJson pushes the same text in pieces, or nothing for a value not in the stored layout', async () => {
    const kv = (await pods.createStored('default', pod('p1'))).kv!;
    for (const item of [false, true]) {
      const pieces: string[] = [];
      expect(pods.appendServedJson(kv, item, pieces)).toBe(true);
      expect(pieces.join('')).toBe(pods.servedJson(kv, item));
    }
    const older: KeyValue = { ...kv, value: '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":""}}' };
    const none: string[] = [];
    expect(pods.appendServedJson(older, true, none)).toBe(false);
    expect(none).toEqual([]);
  });

  it('serves the store version\'s kind and apiVersion whatever the stored ones say', async () => {
    const kv = (await pods.createStored('default', pod('p1'))).kv!;
    const other: KeyValue = { ...kv, value: kv.value.replace('{"kind":"Pod","apiVersion":"v1"', '{"kind":"OldPod","apiVersion":"v0"') };
    expect(pods.servedJson(other)).toBe(JSON.stringify(pods.decode(other)));
    expect(pods.decode(other)).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
  });

  it.each([
    ['no resourceVersion slot (an older layout)', '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","uid":"u"},"spec":{}}'],
    ['a filled slot', '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"5"},"spec":{}}'],
    ['whitespace', '{ "kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": ""}}'],
    ['another key order', '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","resourceVersion":""}}'],
    ['an escaped kind', '{"kind":"P\\u006fd","apiVersion":"v1","metadata":{"name":"p","resourceVersion":""}}'],
    ['a field after resourceVersion first', '{"kind":"Pod","apiVersion":"v1","metadata":{"labels":{"resourceVersion":""},"name":"p","resourceVersion":""}}'],
  ])('declines %s, which then goes through decode', (_what, value) => {
    const kv: KeyValue = { key: '/registry/pods/default/p', value, createRevision: 7, modRevision: 9 };
    expect(pods.servedJson(kv)).toBeUndefined();
    expect(pods.servedJson(kv, true)).toBeUndefined();
    expect(pods.decode(kv).metadata.resourceVersion).toBe('9');
  });

  it('serves exactly the decode for any identity strings, or declines (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.option(fc.string()), fc.option(fc.string()), fc.string(), (kind, name, generateName, namespace, uid) => {
        const metadata = { name, ...(generateName !== null ? { generateName } : {}), ...(namespace !== null ? { namespace } : {}), uid, resourceVersion: '', labels: { a: 'b' } };
        const kv: KeyValue = { key: 'k', value: JSON.stringify({ kind, apiVersion: 'v1', metadata, spec: { x: '"resourceVersion":""' } }), createRevision: 1, modRevision: 2 };
        const served = pods.servedJson(kv);
        if (served !== undefined) expect(served).toBe(JSON.stringify(pods.decode(kv)));
        // Only a kind with a quote, a backslash or a control character (escaped) is declined.
        expect(served === undefined).toBe(JSON.stringify(kind).slice(1, -1) !== kind);
        const head = storedObjectHead(kv.value);
        if (head) expect(head).toEqual({ kind, apiVersion: 'v1', name, ...(generateName !== null ? { generateName } : {}), ...(namespace !== null ? { namespace } : {}), uid });
      }),
    );
  });

  it('accepts metadata values with escapes before the slot', () => {
    const value = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a\\"b","namespace":"n\\\\","resourceVersion":""},"spec":{}}';
    const kv: KeyValue = { key: 'k', value, createRevision: 1, modRevision: 2 };
    expect(pods.servedJson(kv)).toBe(JSON.stringify(pods.decode(kv)));
  });
});

describe('storedObjectHead', () => {
  it('reads kind, apiVersion and the identity fields of a stored object', async () => {
    const kv = (await pods.createStored('default', pod('p1'))).kv!;
    const obj = pods.decode(kv);
    expect(storedObjectHead(kv.value)).toEqual({ kind: 'Pod', apiVersion: 'v1', name: 'p1', namespace: 'default', uid: obj.metadata.uid });
    expect(storedObjectHead('{"kind":"A","apiVersion":"v1","metadata":{"name":"a\\"b","resourceVersion":""}}')).toEqual({ kind: 'A', apiVersion: 'v1', name: 'a"b' });
    expect(storedObjectHead('{"kind":"A","apiVersion":"v1","metadata":{"name":"a","uid":"u"}}')).toBeUndefined();
  });
});

describe('Store.createStored and listKvs', () => {
  it('a dry run answers with the object and writes nothing', async () => {
    const written = await pods.createStored('default', pod('p1'), { dryRun: true });
    expect(written.kv).toBeUndefined();
    expect(written.object?.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await pods.list('default')).items).toEqual([]);
  });

  it('lists the same items as list, decoding only for a predicate', async () => {
    for (const name of ['a', 'b', 'c']) await pods.create('default', pod(name));
    const all = await pods.listKvs('default', { limit: 2 });
    expect(all.items).toBeUndefined();
    expect(all.kvs.map((kv) => pods.decode(kv))).toEqual((await pods.list('default', { limit: 2 })).items);
    expect(all.remainingItemCount).toBe(1);
    const some = await pods.listKvs('default', { predicate: (o) => o.metadata.name !== 'b' });
    expect(some.items!.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect(some.kvs.map((kv) => pods.decode(kv))).toEqual(some.items);
  });
});

describe('responses written from stored text', () => {
  it('[API-PATH-002][API-PATH-003] create, get and list answer exactly what encoding the decoded objects gives', async () => {
    const t = await newTestServer();
    const created = await t.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p1') });
    const createdText = await created.text();
    expect(created.status).toBe(201);
    expect(created.headers.get('content-length')).toBe(String(new TextEncoder().encode(createdText).byteLength));
    expect(createdText).toBe(JSON.stringify(JSON.parse(createdText)) + '\n');
    await t.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p2') });

    const got = await t.request('GET', '/api/v1/namespaces/default/pods/p1');
    expect(await got.text()).toBe(createdText);
    const pretty = await (await t.request('GET', '/api/v1/namespaces/default/pods/p1?pretty=true')).text();
    expect(pretty).toBe(JSON.stringify(JSON.parse(createdText), null, 2) + '\n');

    const listText = await (await t.request('GET', '/api/v1/namespaces/default/pods')).text();
    const list = JSON.parse(listText);
    expect(listText).toBe(JSON.stringify(list) + '\n');
    expect(Object.keys(list)).toEqual(['kind', 'apiVersion', 'metadata', 'items']);
    expect(list.items[0]).toEqual(withoutTypeMeta(JSON.parse(createdText)));
    expect(Object.keys(list.items[0])).toEqual(['metadata', 'spec', 'status']);

    const chunk = JSON.parse(await (await t.request('GET', '/api/v1/namespaces/default/pods?limit=1')).text());
    expect(Object.keys(chunk.metadata)).toEqual(['resourceVersion', 'continue', 'remainingItemCount']);
    expect(chunk.items.map((i: KubeObject) => i.metadata.name)).toEqual(['p1']);
    const empty = await (await t.request('GET', '/api/v1/namespaces/kube-public/pods')).text();
    expect(JSON.parse(empty).items).toEqual([]);
    expect(empty).toBe(JSON.stringify(JSON.parse(empty)) + '\n');
  });

  it('[API-PATH-002] an object stored in another layout is served as its decode, in get and list', async () => {
    const backend = createMemoryStorage();
    const legacy = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'old', namespace: 'default', uid: 'u-1' }, data: { b: '2', a: '1' } };
    await backend.create('/registry/configmaps/default/old', JSON.stringify(legacy, null, 1));
    const t = await newTestServer({ storage: backend });
    const got = await t.request('GET', '/api/v1/namespaces/default/configmaps/old');
    const text = await got.text();
    expect(got.status).toBe(200);
    const expected = { ...legacy, metadata: { ...legacy.metadata, resourceVersion: JSON.parse(text).metadata.resourceVersion } };
    expect(text).toBe(JSON.stringify(expected) + '\n');
    const listText = await (await t.request('GET', '/api/v1/namespaces/default/configmaps')).text();
    expect(JSON.parse(listText).items).toEqual([withoutTypeMeta(expected as KubeObject)]);
    expect(listText).toContain(JSON.stringify(withoutTypeMeta(expected as KubeObject)));
  });
});

describe('Store views of a request', () => {
  it('a view of a view keeps the settings of both; a store wrapped around a view keeps its wrapper under further views', async () => {
    const traced: string[] = [];
    const admitted: string[] = [];
    const admission = { validate: async (r: { operation: string }) => void admitted.push(r.operation) };
    const view = pods.withAdmission(admission).withUser({ username: 'alice', groups: [] }).withTrace((e) => traced.push(e.message));
    await view.createStored('default', pod('p1'));
    expect(admitted).toEqual(['CREATE']);
    expect(traced).toEqual([expect.stringContaining('created /registry/pods/default/p1')]);

    // As the escalation guard wraps a request's store: an override of its writes.
    const guarded = Object.create(pods.withAdmission(admission)) as Store;
    guarded.createStored = async () => {
      throw new Error('refused by the wrapper');
    };
    await expect(guarded.withTrace(() => {}).createStored('default', pod('p2'))).rejects.toThrow('refused by the wrapper');
    await expect(guarded.withUser({ username: 'bob', groups: [] }).withTrace(() => {}).createStored('default', pod('p2'))).rejects.toThrow('refused by the wrapper');
  });
});

describe('stored layout', () => {
  it('stores kind, apiVersion, then metadata in Go field order with an empty resourceVersion slot, then the rest in the object\'s order', async () => {
    const obj = pod('p1', { finalizers: ['x/y'], annotations: { a: 'b' }, ownerReferences: [], generateName: 'p-', resourceVersion: '12', selfLink: '/x' });
    const scrambled: KubeObject = { spec: obj.spec, metadata: Object.fromEntries(Object.entries(obj.metadata).reverse()), kind: 'Pod', apiVersion: 'v1', status: { phase: 'Pending' } } as KubeObject;
    const kv = (await pods.createStored('default', scrambled)).kv!;
    const stored = JSON.parse(kv.value) as KubeObject;
    expect(Object.keys(stored)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    expect(Object.keys(stored.metadata)).toEqual(['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels', 'annotations', 'ownerReferences', 'finalizers']);
    expect(stored.metadata.resourceVersion).toBe('');
    expect(Object.keys(stored.metadata.labels!)).toEqual(['10', 'app']);
  });
});
