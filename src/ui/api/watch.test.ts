import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../core';
import { rawApiControllers } from '../../core/testing/client';
import { createApiClient } from './client';
import type { KubeList, KubeObject } from './types';
import { applyWatchEvent, readWatchEvents, watchCollection, type WatchEvent } from './watch';

const cm = (namespace: string, name: string, resourceVersion: string, data = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, resourceVersion },
  data,
});

const list = (items: KubeObject[], resourceVersion = '10'): KubeList => ({
  apiVersion: 'v1',
  kind: 'ConfigMapList',
  metadata: { resourceVersion },
  items,
});

const names = (l: KubeList) => l.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);

describe('applyWatchEvent', () => {
  const base = list([cm('a', 'x', '5'), cm('b', 'm', '6')]);
  const cases: { name: string; event: WatchEvent; items: string[]; rv: string }[] = [
    { name: 'ADDED inserts in namespace/name order', event: { type: 'ADDED', object: cm('b', 'a', '11') }, items: ['a/x', 'b/a', 'b/m'], rv: '11' },
    { name: 'ADDED at the end', event: { type: 'ADDED', object: cm('c', 'a', '11') }, items: ['a/x', 'b/m', 'c/a'], rv: '11' },
    { name: 'MODIFIED replaces in place', event: { type: 'MODIFIED', object: cm('a', 'x', '12', { k: 'v' }) }, items: ['a/x', 'b/m'], rv: '12' },
    { name: 'DELETED removes', event: { type: 'DELETED', object: cm('a', 'x', '13') }, items: ['b/m'], rv: '13' },
    { name: 'BOOKMARK moves only the resourceVersion', event: { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '20' } } }, items: ['a/x', 'b/m'], rv: '20' },
  ];
  it.each(cases)('$name', ({ event, items, rv }) => {
    const next = applyWatchEvent(base, event);
    expect(names(next)).toEqual(items);
    expect(next.metadata.resourceVersion).toBe(rv);
    expect(names(base)).toEqual(['a/x', 'b/m']); // input untouched
  });

  it('MODIFIED carries the new object', () => {
    const next = applyWatchEvent(base, { type: 'MODIFIED', object: cm('a', 'x', '12', { k: 'v' }) });
    expect(next.items[0]).toMatchObject({ data: { k: 'v' } });
  });
});

describe('readWatchEvents', () => {
  it('splits events across chunk boundaries', async () => {
    const text = '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"DELETED","obj' + 'ect":{"metadata":{"name":"a"}}}\n';
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(text.slice(0, 30)));
        c.enqueue(encoder.encode(text.slice(30, 70)));
        c.enqueue(encoder.encode(text.slice(70)));
        c.close();
      },
    });
    const events: string[] = [];
    for await (const e of readWatchEvents(body)) events.push(e.type);
    expect(events).toEqual(['ADDED', 'DELETED']);
  });
});

describe('watchCollection against the core', () => {
  it('delivers a create made after the list, then stops on abort', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(9), controllers: rawApiControllers });
    await server.ready;
    const client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
    const path = '/api/v1/namespaces/default/configmaps';
    let current = await client.get<KubeList>(path);
    const stop = new AbortController();
    const seen = new Promise<void>((resolve) => {
      void watchCollection(
        client,
        path,
        current.metadata.resourceVersion!,
        '',
        (event) => {
          current = applyWatchEvent(current, event);
          if (current.items.length > 0) resolve();
        },
        stop.signal,
      ).catch(() => undefined);
    });
    const created = await client.create(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
    await seen;
    stop.abort();
    expect(names(current)).toEqual(['default/late']);
    expect(current.metadata.resourceVersion).toBe(created.metadata?.resourceVersion);
    await server.close();
  });

  it('with a field selector, delivers only the objects it selects (one object, as the Describe view watches it)', async () => {
    const server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(9), controllers: rawApiControllers });
    await server.ready;
    const client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
    const path = '/api/v1/namespaces/default/configmaps';
    let current = await client.get<KubeList>(`${path}?fieldSelector=metadata.name%3Dwanted`);
    const stop = new AbortController();
    const seen = new Promise<void>((resolve) => {
      void watchCollection(
        client,
        path,
        current.metadata.resourceVersion!,
        '',
        (event) => {
          current = applyWatchEvent(current, event);
          if (event.type === 'ADDED') resolve();
        },
        stop.signal,
        'metadata.name=wanted',
      ).catch(() => undefined);
    });
    await client.create(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
    await client.create(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wanted' } });
    await seen;
    stop.abort();
    expect(names(current)).toEqual(['default/wanted']);
    await server.close();
  });
});
