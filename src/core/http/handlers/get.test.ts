/** GET of one object through handle(): repeated reads, and reads after writes, of the same URL. */
import { describe, expect, it } from 'vitest';
import { newTestServer } from '../../testing/client';

const path = '/api/v1/namespaces/default/configmaps/c1';

describe('GET of one object', () => {
  it('[API-META-015] repeated GETs answer the same bytes; after an update the same URL answers the new object and resourceVersion', async () => {
    const t = await newTestServer();
    const created = await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } } });
    expect(created.status).toBe(201);
    const first = await t.request('GET', path, { headers: { accept: 'application/json' } });
    const again = await t.request('GET', path, { headers: { accept: 'application/json' } });
    const firstText = await first.text();
    expect(await again.text()).toBe(firstText);
    expect(first.headers.get('content-length')).toBe(String(new TextEncoder().encode(firstText).byteLength));
    const before = JSON.parse(firstText) as { metadata: { resourceVersion: string }; data: Record<string, string> };
    expect(before).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1' } });

    const updated = await t.json('PUT', path, { body: { ...before, data: { a: '2' } } });
    expect(updated.status).toBe(200);
    const after = await t.json('GET', path);
    expect(after.body.data).toEqual({ a: '2' });
    expect(after.body.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
    expect(after.body.metadata.resourceVersion).toBe(updated.body.metadata.resourceVersion);

    // The same URL by another method, and in another encoding, is resolved on its own.
    const yaml = await t.request('GET', path, { headers: { accept: 'application/yaml' } });
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(await yaml.text()).toContain("a: \"2\"");
    expect((await t.json('DELETE', path)).status).toBe(200);
    const gone = await t.json('GET', path);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404, details: { name: 'c1', kind: 'configmaps' } });
  });

  it('[API-META-015] an object read in turn with others, and read again and again, answers the same text until it is written', async () => {
    const t = await newTestServer();
    const names = ['r0', 'r1', 'r2'];
    for (const name of names) expect((await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } } })).status).toBe(201);
    const read = async (name: string) => (await t.request('GET', `/api/v1/namespaces/default/configmaps/${name}`, { headers: { accept: 'application/json' } })).text();
    // First, second (kept from here) and third reads of each, interleaved.
    const texts = new Map<string, string>();
    for (let round = 0; round < 3; round++) {
      for (const name of names) {
        const text = await read(name);
        if (round === 0) texts.set(name, text);
        else expect(text).toBe(texts.get(name));
        expect(JSON.parse(text)).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name }, data: { v: name } });
      }
    }
    const before = JSON.parse(texts.get('r1')!) as { metadata: { resourceVersion: string } };
    const updated = await t.json('PUT', '/api/v1/namespaces/default/configmaps/r1', { body: { ...before, data: { v: 'new' } } });
    expect(updated.status).toBe(200);
    for (let round = 0; round < 3; round++) {
      const after = JSON.parse(await read('r1')) as { metadata: { resourceVersion: string }; data: Record<string, string> };
      expect(after.data).toEqual({ v: 'new' });
      expect(after.metadata.resourceVersion).toBe(updated.body.metadata.resourceVersion);
      expect(await read('r0')).toBe(texts.get('r0'));
    }
  });

  it('[AC-METRICS-010] GETs of paths seen once, twice and many times are each routed, answered and counted in their own series', async () => {
    const t = await newTestServer();
    const ns = 'seen-' + Math.random().toString(36).slice(2, 8);
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
    const names = ['a', 'b', 'c'];
    for (const name of names) expect((await t.json('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } } })).status).toBe(201);
    // a: once; b: twice; c: five times; a missing name once and twice; a list of the namespace twice.
    const gets: Array<[string, number]> = [['a', 1], ['b', 2], ['c', 5], ['missing', 1], ['gone', 2]];
    for (const [name, times] of gets) {
      for (let i = 0; i < times; i++) {
        const r = await t.json('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
        if (names.includes(name)) expect(r.body).toMatchObject({ kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v: name } });
        else expect(r.body).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound', details: { name, kind: 'configmaps' } });
      }
    }
    for (let i = 0; i < 2; i++) expect((await t.json('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.items).toHaveLength(3);
    const metrics = await (await t.request('GET', '/metrics')).text();
    const count = (verb: string, scope: string, code: number) => {
      const want = `verb="${verb}",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="${scope}",component="apiserver",code="${code}"`;
      const line = metrics.split('\n').find((l) => l.startsWith(`apiserver_request_total{${want}} `));
      return Number(line?.split(' ')[1]);
    };
    expect(count('GET', 'resource', 200)).toBe(8);
    expect(count('GET', 'resource', 404)).toBe(3);
    expect(count('LIST', 'namespace', 200)).toBe(2);
  });

  it('[AC-METRICS-010] GETs of two resources in turn, and of a collection and its objects, are each counted in their own series', async () => {
    const t = await newTestServer();
    for (const name of ['x0', 'x1']) {
      expect((await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } })).status).toBe(201);
      expect((await t.json('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name } } })).status).toBe(201);
    }
    for (let i = 0; i < 3; i++) {
      for (const name of ['x0', 'x1']) {
        expect((await t.json('GET', `/api/v1/namespaces/default/configmaps/${name}`)).status).toBe(200);
        expect((await t.json('GET', `/api/v1/namespaces/default/secrets/${name}`)).status).toBe(200);
        expect((await t.json('GET', '/api/v1/namespaces/default/secrets')).status).toBe(200);
      }
    }
    const metrics = await (await t.request('GET', '/metrics')).text();
    const count = (verb: string, resource: string, scope: string) => {
      const want = `verb="${verb}",dry_run="",group="",version="v1",resource="${resource}",subresource="",scope="${scope}",component="apiserver",code="200"`;
      return Number(metrics.split('\n').find((l) => l.startsWith(`apiserver_request_total{${want}} `))?.split(' ')[1]);
    };
    expect([count('GET', 'configmaps', 'resource'), count('GET', 'secrets', 'resource'), count('LIST', 'secrets', 'namespace')]).toEqual([6, 6, 6]);
  });
});
