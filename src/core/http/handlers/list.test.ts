/** A compact JSON list through handle(): the stored texts joined, as JSON.stringify of the decoded list writes it. */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../client/dynamic';
import { LightResponse } from '../lightResponse';
import { newTestServer } from '../../testing/client';
import { createMemoryStorage } from '../../storage/memory';
import type { Storage } from '../../storage/interface';

const collection = '/api/v1/namespaces/default/configmaps';

describe('list answered from stored texts', () => {
  it('[API-LIST-003] [API-LIST-004] the text is the decoded list re-encoded, its Content-Length the UTF-8 length of non-ASCII items, and the body the same whichever way it is read', async () => {
    const t = await newTestServer();
    const data = [{ a: 'plain' }, { a: 'é ü ß', b: '日本語' }, { a: '😀 \u2028 "quoted" \\ slash' }];
    for (let i = 0; i < data.length; i++) {
      const created = await t.json('POST', collection, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, annotations: { note: `ünïcode ${i}` } }, data: data[i] } });
      expect(created.status).toBe(201);
    }

    const res = await t.request('GET', collection, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    const text = await res.clone().text();
    const list = JSON.parse(text) as { kind: string; apiVersion: string; metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string }; data: Record<string, string> }[] };
    // Exactly what kube-apiserver's JSON serializer writes: compact, items without kind and apiVersion, a trailing newline.
    expect(text).toBe(JSON.stringify(list) + '\n');
    expect(list).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(list.items.map((i) => i.data)).toEqual(data);
    expect(list.items.every((i) => !('kind' in i) && !('apiVersion' in i))).toBe(true);
    // Each item is the object its own GET answers (without kind and apiVersion).
    for (const item of list.items) {
      const got = await t.json('GET', `${collection}/${item.metadata.name}`);
      const { kind: _k, apiVersion: _a, ...rest } = got.body as Record<string, unknown>;
      expect(item).toEqual(rest);
    }

    const bytes = new TextEncoder().encode(text);
    expect(bytes.byteLength).toBeGreaterThan(text.length);
    expect(res.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(res.headers.get('content-type')).toBe('application/json');
    // Read as bytes after the headers (as a host writes it): the same UTF-8.
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it('[API-LIST-004] the typed client reads the list as sent, and an answer whose headers were read keeps its body and length', async () => {
    const t = await newTestServer();
    const client = createClient(t.server).resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('default');
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'ä' } });
    const list = await client.list<{ metadata: { resourceVersion: string }; items: { data: Record<string, string> }[] }>();
    expect(list.items.map((i) => i.data)).toEqual([{ k: 'ä' }]);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);

    const text = 'x\u00e4\n';
    const sized = LightResponse.sized(text, { status: 200, headers: { 'content-type': 'application/json' } });
    expect(sized.headers.get('content-length')).toBe('4');
    expect(LightResponse.lightParts(sized as unknown as Response)?.body).toEqual(new TextEncoder().encode(text));
    expect(await sized.text()).toBe(text);
  });

  it('[API-LIST-001] [API-LIST-004] a collection listed again answers the same text until a write anywhere moves the revision; another namespace or a page is its own answer', async () => {
    const t = await newTestServer();
    const create = (ns: string, name: string) => t.json('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: name } } });
    expect((await create('default', 'a')).status).toBe(201);
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } })).status).toBe(201);
    expect((await create('other', 'o')).status).toBe(201);
    const text = async (path: string) => (await t.request('GET', path)).text();

    const first = await text(collection);
    expect(await text(collection)).toBe(first);
    expect(await text(collection)).toBe(first);
    const other = JSON.parse(await text('/api/v1/namespaces/other/configmaps')) as { items: { metadata: { name: string } }[] };
    expect(other.items.map((i) => i.metadata.name)).toEqual(['o']);
    const page = JSON.parse(await text(`${collection}?limit=1`)) as { items: unknown[]; metadata: { resourceVersion: string } };
    expect(page.items).toHaveLength(1);
    expect(await text(collection)).toBe(first);

    // A write elsewhere: same items, a newer resourceVersion.
    expect((await create('other', 'o2')).status).toBe(201);
    const afterElsewhere = JSON.parse(await text(collection)) as { items: { metadata: { name: string } }[]; metadata: { resourceVersion: string } };
    const before = JSON.parse(first) as typeof afterElsewhere;
    expect(Number(afterElsewhere.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    expect(afterElsewhere.items).toEqual(before.items);
    // A write in the collection: the new object is listed.
    expect((await create('default', 'b')).status).toBe(201);
    const afterWrite = JSON.parse(await text(collection)) as typeof afterElsewhere;
    expect(afterWrite.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect((await t.json('DELETE', `${collection}/a`)).status).toBe(200);
    expect((JSON.parse(await text(collection)) as typeof afterElsewhere).items.map((i) => i.metadata.name)).toEqual(['b']);
  });

  it('[API-LIST-001] [API-LIST-004] an unchanged collection listed again at the latest revision reads no key where the backend knows its revision now; a backend that cannot say (etcd) is read every time', async () => {
    for (const knowsRevision of [true, false]) {
      const backend = createMemoryStorage();
      let ranges = 0;
      const counted: Storage = {
        currentRevision: () => backend.currentRevision(),
        compactedRevision: () => backend.compactedRevision(),
        ...(knowsRevision ? { revisionNow: () => backend.revisionNow!() } : {}),
        get: (key, revision) => backend.get(key, revision),
        range: (prefix, options) => {
          if (prefix.includes('/configmaps/')) ranges++;
          return backend.range(prefix, options);
        },
        create: (key, value) => backend.create(key, value),
        update: (key, value, expected) => backend.update(key, value, expected),
        delete: (key, expected) => backend.delete(key, expected),
        watch: (...args) => backend.watch(...args),
        compact: (revision) => backend.compact(revision),
        close: () => backend.close(),
      };
      const t = await newTestServer({ storage: counted });
      expect((await t.json('POST', collection, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } })).status).toBe(201);
      const text = async (path: string) => (await t.request('GET', path)).text();
      const first = await text(collection);
      const readsAfterFirst = ranges;
      expect(await text(collection)).toBe(first);
      expect(await text(collection)).toBe(first);
      expect(ranges - readsAfterFirst).toBe(knowsRevision ? 0 : 2);
      // Exact and not-older-than reads, YAML, and a write all go back to storage.
      const rv = (JSON.parse(first) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      expect(await text(`${collection}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).toBe(first);
      expect((await t.request('GET', collection, { headers: { accept: 'application/yaml' } })).status).toBe(200);
      const beforeWrite = ranges;
      expect((await t.json('POST', collection, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } } })).status).toBe(201);
      const after = JSON.parse(await text(collection)) as { items: { metadata: { name: string } }[] };
      expect(after.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
      expect(ranges).toBeGreaterThan(beforeWrite);
      await t.server.close();
    }
  });
});
