/**
 * The storage conformance suite: every backend (and anything implementing
 * the Storage interface, such as a watch cache) runs all of it, the way
 * kube-apiserver's storage/testing store_tests.go is run by etcd3 and cacher.
 *
 * Each runTestX registers one vitest describe block; runStorageConformance
 * registers them all. The factory must return a fresh, empty store per call.
 * Persistent backends pass `reopen`, which closes a store and opens the same
 * data again, to run the persistence tests.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { isStorageError, type KeyValue, type Storage, type StorageErrorCode, type StorageEvent } from '../interface';
import { createMemoryStorage } from '../memory';

export type StorageFactory = () => Promise<Storage>;

export interface ConformanceOptions {
  /** Closes `store` and returns a new handle on the same data (persistent backends only). */
  reopen?: (store: Storage) => Promise<Storage>;
}

export function runStorageConformance(name: string, factory: StorageFactory, options: ConformanceOptions = {}): void {
  describe(`storage conformance: ${name}`, () => {
    runTestCreate(factory);
    runTestGet(factory);
    runTestRange(factory);
    runTestUpdate(factory);
    runTestDelete(factory);
    runTestWatch(factory);
    runTestCompact(factory);
    runTestConcurrency(factory);
    runTestAgainstReference(factory);
    if (options.reopen) runTestPersistence(factory, options.reopen);
  });
}

/** Opens stores through the factory and closes whatever a test left open. */
function useStores(factory: StorageFactory): { open: () => Promise<Storage>; track: (s: Storage) => Storage } {
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => {});
  });
  return {
    open: async () => {
      const s = await factory();
      opened.push(s);
      return s;
    },
    track: (s) => {
      opened.push(s);
      return s;
    },
  };
}

/** Expects a promise to reject with a StorageError of the given code. */
async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected StorageError ${code}`).toBeDefined();
  expect(isStorageError(caught) ? caught.code : caught).toBe(code);
}

function kv(key: string, value: string, createRevision: number, modRevision: number): KeyValue {
  return { key, value, createRevision, modRevision };
}

/** A watch listener that records events, for assertions on plain objects. */
function recorder(): { events: StorageEvent[]; listener: (e: StorageEvent) => void } {
  const events: StorageEvent[] = [];
  return { events, listener: (e) => events.push(e) };
}

/** Strips undefined prevKv so toEqual compares what the event really carries. */
function plain(e: StorageEvent): StorageEvent {
  const out: StorageEvent = { type: e.type, revision: e.revision, kv: { ...e.kv } };
  if (e.prevKv) out.prevKv = { ...e.prevKv };
  return out;
}

/**
 * Waits until the recorder has n events. Backends deliver live events
 * synchronously after a write resolves, but async backends may deliver replay
 * slightly later; this yields to the event loop a bounded number of times.
 */
async function waitForEvents(events: readonly StorageEvent[], n: number): Promise<void> {
  for (let i = 0; i < 1000 && events.length < n; i++) await new Promise((r) => setTimeout(r, 0));
  expect(events.length).toBe(n);
}

export function runTestCreate(factory: StorageFactory): void {
  describe('create', () => {
    const { open } = useStores(factory);

    it('starts empty at revision 0 with nothing compacted', async () => {
      const s = await open();
      expect(await s.currentRevision()).toBe(0);
      expect(await s.compactedRevision()).toBe(0);
      expect(await s.range('')).toEqual({ kvs: [], more: false, count: 0, revision: 0 });
    });

    it('returns the new key with createRevision = modRevision = the new revision', async () => {
      const s = await open();
      expect(await s.create('/registry/a', 'va')).toEqual(kv('/registry/a', 'va', 1, 1));
      expect(await s.create('/registry/b', 'vb')).toEqual(kv('/registry/b', 'vb', 2, 2));
      expect(await s.currentRevision()).toBe(2);
    });

    it('rejects an existing key with KeyExists and does not move the revision', async () => {
      const s = await open();
      await s.create('/registry/a', 'va');
      await expectStorageError(s.create('/registry/a', 'other'), 'KeyExists');
      expect(await s.currentRevision()).toBe(1);
      expect(await s.get('/registry/a')).toEqual(kv('/registry/a', 'va', 1, 1));
    });

    it('re-creates a deleted key with a fresh createRevision', async () => {
      const s = await open();
      await s.create('/registry/a', 'v1');
      await s.delete('/registry/a');
      expect(await s.create('/registry/a', 'v2')).toEqual(kv('/registry/a', 'v2', 3, 3));
    });

    it('bumps the revision by exactly one per successful write of any kind', async () => {
      const s = await open();
      const a = await s.create('/registry/a', '1');
      expect(await s.currentRevision()).toBe(1);
      const a2 = await s.update('/registry/a', '2', a.modRevision);
      expect(a2.modRevision).toBe(2);
      expect(await s.currentRevision()).toBe(2);
      await s.create('/registry/b', '1');
      expect(await s.currentRevision()).toBe(3);
      expect((await s.delete('/registry/a')).modRevision).toBe(4);
      expect(await s.currentRevision()).toBe(4);
    });

    it('stores values verbatim, including empty and non-ASCII strings', async () => {
      const s = await open();
      const json = JSON.stringify({ metadata: { name: 'ü-✓' }, data: { k: 'line1\nline2\u0000' } });
      await s.create('/registry/json', json);
      await s.create('/registry/empty', '');
      expect((await s.get('/registry/json'))?.value).toBe(json);
      expect((await s.get('/registry/empty'))?.value).toBe('');
    });
  });
}

export function runTestGet(factory: StorageFactory): void {
  describe('get', () => {
    const { open } = useStores(factory);

    it('returns undefined for an absent key', async () => {
      const s = await open();
      expect(await s.get('/registry/none')).toBeUndefined();
      await s.create('/registry/a', 'x');
      expect(await s.get('/registry/none')).toBeUndefined();
      expect(await s.get('/registry/a/')).toBeUndefined();
    });

    it('reads a key as it was at a past revision', async () => {
      const s = await open();
      const v1 = await s.create('/registry/a', 'v1'); // rev 1
      await s.create('/registry/other', 'o'); // rev 2
      const v2 = await s.update('/registry/a', 'v2', v1.modRevision); // rev 3
      await s.delete('/registry/a'); // rev 4
      expect(await s.get('/registry/a')).toBeUndefined();
      expect(await s.get('/registry/a', 1)).toEqual(kv('/registry/a', 'v1', 1, 1));
      expect(await s.get('/registry/a', 2)).toEqual(kv('/registry/a', 'v1', 1, 1));
      expect(await s.get('/registry/a', 3)).toEqual(v2);
      expect(await s.get('/registry/a', 4)).toBeUndefined();
      expect(await s.get('/registry/other', 1)).toBeUndefined();
    });

    it('treats revision 0 as latest', async () => {
      const s = await open();
      await s.create('/registry/a', 'v1');
      expect(await s.get('/registry/a', 0)).toEqual(kv('/registry/a', 'v1', 1, 1));
    });

    it('rejects a revision newer than current with TooLargeResourceVersion', async () => {
      const s = await open();
      await s.create('/registry/a', 'v1');
      await expectStorageError(s.get('/registry/a', 2), 'TooLargeResourceVersion');
    });
  });
}

export function runTestRange(factory: StorageFactory): void {
  describe('range', () => {
    const { open } = useStores(factory);

    async function seed(s: Storage, keys: string[]): Promise<void> {
      for (const k of keys) await s.create(k, `v:${k}`);
    }

    it('returns keys under the prefix sorted by key, whatever the insertion order', async () => {
      const s = await open();
      await seed(s, ['/registry/pods/ns/c', '/registry/pods/ns/a', '/registry/podsx/ns/z', '/registry/pods/ns/b', '/registry/pod']);
      const r = await s.range('/registry/pods/');
      expect(r.kvs.map((x) => x.key)).toEqual(['/registry/pods/ns/a', '/registry/pods/ns/b', '/registry/pods/ns/c']);
      expect(r.kvs[0]).toEqual(kv('/registry/pods/ns/a', 'v:/registry/pods/ns/a', 2, 2));
      expect(r).toMatchObject({ more: false, count: 3, revision: 5 });
      expect((await s.range('')).count).toBe(5);
    });

    it('orders keys by plain string comparison', async () => {
      const s = await open();
      await seed(s, ['/r/b', '/r/a-1', '/r/a', '/r/a/x', '/r/B', '/r/a0', '/r/10', '/r/9']);
      const r = await s.range('/r/');
      expect(r.kvs.map((x) => x.key)).toEqual(['/r/10', '/r/9', '/r/B', '/r/a', '/r/a-1', '/r/a/x', '/r/a0', '/r/b']);
    });

    it('leaves deleted keys out', async () => {
      const s = await open();
      await seed(s, ['/r/a', '/r/b', '/r/c']);
      await s.delete('/r/b');
      const r = await s.range('/r/');
      expect(r.kvs.map((x) => x.key)).toEqual(['/r/a', '/r/c']);
      expect(r).toMatchObject({ count: 2, revision: 4 });
    });

    it('applies limit and reports more and the total count', async () => {
      const s = await open();
      await seed(s, ['/r/e', '/r/d', '/r/c', '/r/b', '/r/a']);
      const r = await s.range('/r/', { limit: 2 });
      expect(r.kvs.map((x) => x.key)).toEqual(['/r/a', '/r/b']);
      expect(r).toMatchObject({ more: true, count: 5, revision: 5 });
      const all = await s.range('/r/', { limit: 5 });
      expect(all).toMatchObject({ more: false, count: 5 });
      expect((await s.range('/r/', { limit: 0 })).kvs).toHaveLength(5);
    });

    it('counts past a page without deleted keys, re-created ones or keys outside the prefix', async () => {
      const s = await open();
      await seed(s, ['/r/a', '/r/b', '/r/c', '/r/d', '/r/e', '/r/f', '/s/a', '/r0']);
      const d = await s.get('/r/d');
      await s.delete('/r/d', d!.modRevision);
      const e = await s.get('/r/e');
      await s.delete('/r/e', e!.modRevision);
      await s.create('/r/e', 'again');
      const r = await s.range('/r/', { limit: 2 });
      expect(r.kvs.map((x) => x.key)).toEqual(['/r/a', '/r/b']);
      expect(r).toMatchObject({ more: true, count: 5 });
      const after = await s.range('/r/', { limit: 1, startKey: '/r/c' });
      expect(after).toMatchObject({ more: true, count: 3 });
      // At the revision before the deletes, /r/d and /r/e were live.
      expect((await s.range('/r/', { limit: 2, revision: 8 })).count).toBe(6);
    });

    it('starts at startKey (inclusive) and counts only keys from there', async () => {
      const s = await open();
      await seed(s, ['/r/a', '/r/b', '/r/c', '/r/d', '/r/e']);
      const r = await s.range('/r/', { startKey: '/r/c', limit: 2 });
      expect(r.kvs.map((x) => x.key)).toEqual(['/r/c', '/r/d']);
      expect(r).toMatchObject({ more: true, count: 3 });
      // A startKey between keys and one before the prefix both work.
      expect((await s.range('/r/', { startKey: '/r/bb' })).kvs.map((x) => x.key)).toEqual(['/r/c', '/r/d', '/r/e']);
      expect((await s.range('/r/', { startKey: '/a' })).count).toBe(5);
      expect((await s.range('/r/', { startKey: '/r/z' })).kvs).toEqual([]);
      for (const startKey of ['/r0', '/s']) {
        for (const revision of [0, 3]) {
          expect(await s.range('/r/', { startKey, revision })).toEqual({ kvs: [], more: false, count: 0, revision: revision || 5 });
        }
      }
    });

    it('serves a consistent snapshot at a past revision while writes continue, page by page', async () => {
      const s = await open();
      const keys = Array.from({ length: 7 }, (_, i) => `/r/k${i}`);
      await seed(s, keys);
      await s.create('/other/x', 'x');
      const snapshotRev = await s.currentRevision(); // 8
      const expected = (await s.range('/r/')).kvs;

      // Pages at snapshotRev interleaved with writes that change every part of the range.
      const seen: KeyValue[] = [];
      let startKey: string | undefined;
      let writes = 0;
      for (;;) {
        const page = await s.range('/r/', { revision: snapshotRev, limit: 3, startKey });
        expect(page.revision).toBe(snapshotRev);
        seen.push(...page.kvs);
        const cur = await s.get(`/r/k${writes}`);
        if (cur) await s.update(cur.key, 'changed', cur.modRevision);
        await s.delete(`/r/k${6 - writes}`).catch(() => {});
        await s.create(`/r/k${writes}-new`, 'new');
        writes++;
        if (!page.more) break;
        startKey = page.kvs[page.kvs.length - 1]!.key + '\u0000';
      }
      expect(seen).toEqual(expected);
      expect(await s.currentRevision()).toBeGreaterThan(snapshotRev);
      const latest = await s.range('/r/');
      expect(latest.kvs).not.toEqual(expected);
    });

    it('reports the revision it served at, current when none is given', async () => {
      const s = await open();
      await seed(s, ['/r/a', '/r/b', '/r/c']);
      expect((await s.range('/r/')).revision).toBe(3);
      expect((await s.range('/r/', { revision: 2 })).revision).toBe(2);
      expect((await s.range('/r/', { revision: 2 })).kvs.map((x) => x.key)).toEqual(['/r/a', '/r/b']);
      expect((await s.range('/nothing/')).revision).toBe(3);
    });

    it('rejects a revision newer than current with TooLargeResourceVersion', async () => {
      const s = await open();
      await seed(s, ['/r/a']);
      await expectStorageError(s.range('/r/', { revision: 2 }), 'TooLargeResourceVersion');
    });
  });
}

export function runTestUpdate(factory: StorageFactory): void {
  describe('update (compare-and-swap)', () => {
    const { open } = useStores(factory);

    it('replaces the value when modRevision matches, keeping createRevision', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'v1');
      await s.create('/r/b', 'b');
      const a2 = await s.update('/r/a', 'v2', a.modRevision);
      expect(a2).toEqual(kv('/r/a', 'v2', 1, 3));
      expect(await s.get('/r/a')).toEqual(a2);
      expect(await s.update('/r/a', 'v3', 3)).toEqual(kv('/r/a', 'v3', 1, 4));
    });

    it('rejects a stale modRevision with Conflict and leaves value and revision alone', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'v1');
      await s.update('/r/a', 'v2', a.modRevision);
      await expectStorageError(s.update('/r/a', 'lost', a.modRevision), 'Conflict');
      await expectStorageError(s.update('/r/a', 'lost', 99), 'Conflict');
      expect(await s.currentRevision()).toBe(2);
      expect(await s.get('/r/a')).toEqual(kv('/r/a', 'v2', 1, 2));
    });

    it('rejects an absent or deleted key with KeyNotFound', async () => {
      const s = await open();
      await expectStorageError(s.update('/r/none', 'x', 0), 'KeyNotFound');
      const a = await s.create('/r/a', 'v1');
      await s.delete('/r/a');
      await expectStorageError(s.update('/r/a', 'x', a.modRevision), 'KeyNotFound');
      expect(await s.currentRevision()).toBe(2);
    });

    it('lets exactly one of several racing updates from the same modRevision win', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'v0');
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => s.update('/r/a', `v${i + 1}`, a.modRevision)),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(isStorageError(r.reason, 'Conflict')).toBe(true);
      expect(await s.currentRevision()).toBe(2);
    });
  });
}

export function runTestDelete(factory: StorageFactory): void {
  describe('delete', () => {
    const { open } = useStores(factory);

    it('returns the last value, stamped with the delete revision', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'v1');
      await s.update('/r/a', 'v2', a.modRevision);
      expect(await s.delete('/r/a')).toEqual(kv('/r/a', 'v2', 1, 3));
      expect(await s.get('/r/a')).toBeUndefined();
      expect(await s.currentRevision()).toBe(3);
    });

    it('deletes only when the expected modRevision matches', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'v1');
      const a2 = await s.update('/r/a', 'v2', a.modRevision);
      await expectStorageError(s.delete('/r/a', a.modRevision), 'Conflict');
      expect(await s.currentRevision()).toBe(2);
      expect(await s.get('/r/a')).toEqual(a2);
      expect(await s.delete('/r/a', a2.modRevision)).toEqual(kv('/r/a', 'v2', 1, 3));
    });

    it('rejects an absent key with KeyNotFound without moving the revision', async () => {
      const s = await open();
      await expectStorageError(s.delete('/r/none'), 'KeyNotFound');
      await s.create('/r/a', 'v1');
      await s.delete('/r/a');
      await expectStorageError(s.delete('/r/a'), 'KeyNotFound');
      expect(await s.currentRevision()).toBe(2);
    });
  });
}

export function runTestWatch(factory: StorageFactory): void {
  describe('watch', () => {
    const { open } = useStores(factory);

    it('replays history after the revision, then delivers live events in order', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'a1'); // 1
      await s.create('/r/b', 'b1'); // 2
      await s.update('/r/a', 'a2', a.modRevision); // 3
      const rec = recorder();
      const stop = await s.watch('/r/', 1, rec.listener);
      await waitForEvents(rec.events, 2);
      await s.delete('/r/b'); // 4
      await s.create('/r/c', 'c1'); // 5
      await waitForEvents(rec.events, 4);
      expect(rec.events.map(plain)).toEqual([
        { type: 'PUT', revision: 2, kv: kv('/r/b', 'b1', 2, 2) },
        { type: 'PUT', revision: 3, kv: kv('/r/a', 'a2', 1, 3), prevKv: kv('/r/a', 'a1', 1, 1) },
        { type: 'DELETE', revision: 4, kv: kv('/r/b', 'b1', 2, 4), prevKv: kv('/r/b', 'b1', 2, 2) },
        { type: 'PUT', revision: 5, kv: kv('/r/c', 'c1', 5, 5) },
      ]);
      stop();
    });

    it('from revision 0 replays everything; from the current revision only live events', async () => {
      const s = await open();
      await s.create('/r/a', '1');
      await s.create('/r/b', '1');
      const all = recorder();
      const live = recorder();
      const stopAll = await s.watch('/r/', 0, all.listener);
      const stopLive = await s.watch('/r/', await s.currentRevision(), live.listener);
      await s.create('/r/c', '1');
      await waitForEvents(all.events, 3);
      await waitForEvents(live.events, 1);
      expect(all.events.map((e) => e.revision)).toEqual([1, 2, 3]);
      expect(live.events.map((e) => e.revision)).toEqual([3]);
      stopAll();
      stopLive();
    });

    it('delivers only keys under the prefix', async () => {
      const s = await open();
      const rec = recorder();
      const stop = await s.watch('/registry/pods/', 0, rec.listener);
      await s.create('/registry/podsx/a', '1');
      await s.create('/registry/pods/ns/a', '1');
      await s.create('/registry/configmaps/ns/a', '1');
      await s.create('/registry/pods/ns/b', '1');
      await waitForEvents(rec.events, 2);
      expect(rec.events.map((e) => [e.revision, e.kv.key])).toEqual([
        [2, '/registry/pods/ns/a'],
        [4, '/registry/pods/ns/b'],
      ]);
      stop();
    });

    it('delivers no events for failed writes', async () => {
      const s = await open();
      const rec = recorder();
      const stop = await s.watch('/r/', 0, rec.listener);
      const a = await s.create('/r/a', '1');
      await s.create('/r/a', 'again').catch(() => {});
      await s.update('/r/a', 'stale', a.modRevision + 7).catch(() => {});
      await s.delete('/r/none').catch(() => {});
      await s.update('/r/a', '2', a.modRevision);
      await waitForEvents(rec.events, 2);
      expect(rec.events.map((e) => e.revision)).toEqual([1, 2]);
      stop();
    });

    it('stops delivering after unsubscribe', async () => {
      const s = await open();
      const rec = recorder();
      const other = recorder();
      const stop = await s.watch('/r/', 0, rec.listener);
      const stopOther = await s.watch('/r/', 0, other.listener);
      await s.create('/r/a', '1');
      await waitForEvents(rec.events, 1);
      stop();
      await s.create('/r/b', '1');
      await s.delete('/r/a');
      await waitForEvents(other.events, 3);
      expect(rec.events).toHaveLength(1);
      stopOther();
    });

    it('keeps writing and delivering when a listener throws', async () => {
      const s = await open();
      const rec = recorder();
      const stopBad = await s.watch('/r/', 0, () => {
        throw new Error('listener bug');
      });
      const stop = await s.watch('/r/', 0, rec.listener);
      expect(await s.create('/r/a', '1')).toEqual(kv('/r/a', '1', 1, 1));
      expect(await s.create('/r/b', '1')).toEqual(kv('/r/b', '1', 2, 2));
      await waitForEvents(rec.events, 2);
      stopBad();
      stop();
    });

    it('keeps every watcher in revision order when a listener writes while notified', async () => {
      const s = await open();
      const first = recorder();
      const last = recorder();
      const stopFirst = await s.watch('/r/', 0, (e) => {
        first.listener(e);
        // React to a create by writing a follow-up, as a controller would.
        if (e.type === 'PUT' && !e.prevKv && e.kv.key.startsWith('/r/in/')) {
          void s.create(`/r/out/${e.kv.key.slice('/r/in/'.length)}`, 'derived').catch(() => {});
        }
      });
      const stopLast = await s.watch('/r/', 0, last.listener);
      await s.create('/r/in/1', 'x');
      await s.create('/r/in/2', 'x');
      await waitForEvents(last.events, 4);
      await waitForEvents(first.events, 4);
      for (const rec of [first, last]) {
        const revs = rec.events.map((e) => e.revision);
        expect(revs).toEqual([...revs].sort((x, y) => x - y));
        expect(new Set(revs).size).toBe(4);
      }
      expect(last.events.map((e) => e.kv.key).sort()).toEqual(['/r/in/1', '/r/in/2', '/r/out/1', '/r/out/2']);
      stopFirst();
      stopLast();
    });

    it('hands over from history to live events without gaps or duplicates while writes race', async () => {
      const s = await open();
      for (let i = 0; i < 10; i++) await s.create(`/r/pre${i}`, 'x');
      const rec = recorder();
      const writes = Array.from({ length: 20 }, (_, i) => s.create(`/r/live${i}`, 'x'));
      const stopping = s.watch('/r/', 3, rec.listener);
      await Promise.all(writes);
      const stop = await stopping;
      await s.create('/r/after', 'x');
      await waitForEvents(rec.events, 28);
      expect(rec.events.map((e) => e.revision)).toEqual(Array.from({ length: 28 }, (_, i) => i + 4));
      stop();
    });

    it('accepts an afterRevision beyond current and delivers events once they exist', async () => {
      const s = await open();
      await s.create('/r/a', '1');
      const rec = recorder();
      const stop = await s.watch('/r/', 2, rec.listener);
      await s.create('/r/b', '1'); // 2: not after 2
      await s.create('/r/c', '1'); // 3
      await waitForEvents(rec.events, 1);
      expect(rec.events[0]!.revision).toBe(3);
      stop();
    });
  });
}

export function runTestCompact(factory: StorageFactory): void {
  describe('compact', () => {
    const { open } = useStores(factory);

    /** rev1 a=a1, rev2 b=b1, rev3 a=a2, rev4 delete b, rev5 c=c1, rev6 a=a3. */
    async function history(s: Storage): Promise<void> {
      const a = await s.create('/r/a', 'a1');
      await s.create('/r/b', 'b1');
      const a2 = await s.update('/r/a', 'a2', a.modRevision);
      await s.delete('/r/b');
      await s.create('/r/c', 'c1');
      await s.update('/r/a', 'a3', a2.modRevision);
    }

    it('makes older revisions unreadable with Compacted and keeps the compacted one readable', async () => {
      const s = await open();
      await history(s);
      await s.compact(4);
      expect(await s.compactedRevision()).toBe(4);
      expect(await s.currentRevision()).toBe(6);
      await expectStorageError(s.get('/r/a', 3), 'Compacted');
      await expectStorageError(s.range('/r/', { revision: 1 }), 'Compacted');
      expect(await s.get('/r/a', 4)).toEqual(kv('/r/a', 'a2', 1, 3));
      expect(await s.get('/r/b', 4)).toBeUndefined();
      expect((await s.range('/r/', { revision: 4 })).kvs).toEqual([kv('/r/a', 'a2', 1, 3)]);
      expect((await s.range('/r/', { revision: 5 })).kvs).toEqual([kv('/r/a', 'a2', 1, 3), kv('/r/c', 'c1', 5, 5)]);
      expect((await s.range('/r/')).kvs).toEqual([kv('/r/a', 'a3', 1, 6), kv('/r/c', 'c1', 5, 5)]);
    });

    it('rejects watches from before the compacted revision and replays after it', async () => {
      const s = await open();
      await history(s);
      await s.compact(4);
      await expectStorageError(s.watch('/r/', 3, () => {}), 'Compacted');
      await expectStorageError(s.watch('/r/', 0, () => {}), 'Compacted');
      const rec = recorder();
      const stop = await s.watch('/r/', 4, rec.listener);
      await waitForEvents(rec.events, 2);
      expect(rec.events.map(plain)).toEqual([
        { type: 'PUT', revision: 5, kv: kv('/r/c', 'c1', 5, 5) },
        { type: 'PUT', revision: 6, kv: kv('/r/a', 'a3', 1, 6), prevKv: kv('/r/a', 'a2', 1, 3) },
      ]);
      stop();
    });

    it('keeps writes going at the next revision, with CAS on compacted-era modRevisions', async () => {
      const s = await open();
      await history(s);
      await s.compact(6);
      expect(await s.get('/r/c')).toEqual(kv('/r/c', 'c1', 5, 5));
      expect(await s.update('/r/c', 'c2', 5)).toEqual(kv('/r/c', 'c2', 5, 7));
      expect(await s.create('/r/b', 'b2')).toEqual(kv('/r/b', 'b2', 8, 8));
      expect(await s.delete('/r/a', 6)).toEqual(kv('/r/a', 'a3', 1, 9));
      expect((await s.range('/r/')).kvs.map((x) => x.key)).toEqual(['/r/b', '/r/c']);
    });

    it('ignores compaction at or below the compacted revision and rejects one past current', async () => {
      const s = await open();
      await history(s);
      await s.compact(3);
      await s.compact(2);
      expect(await s.compactedRevision()).toBe(3);
      await expectStorageError(s.compact(7), 'TooLargeResourceVersion');
      expect(await s.compactedRevision()).toBe(3);
      expect(await s.get('/r/a', 3)).toEqual(kv('/r/a', 'a2', 1, 3));
    });

    it('compacts repeatedly while keeping the latest state intact', async () => {
      const s = await open();
      let a = await s.create('/r/a', '0');
      for (let i = 1; i <= 20; i++) {
        a = await s.update('/r/a', String(i), a.modRevision);
        if (i % 5 === 0) await s.compact(a.modRevision - 2);
      }
      expect(await s.compactedRevision()).toBe(19);
      expect(await s.get('/r/a')).toEqual(kv('/r/a', '20', 1, 21));
      expect(await s.get('/r/a', 19)).toEqual(kv('/r/a', '18', 1, 19));
    });
  });
}

export function runTestConcurrency(factory: StorageFactory): void {
  describe('concurrent writes', () => {
    const { open } = useStores(factory);

    it('assign strictly increasing revisions with no gaps, matched by the watch stream', async () => {
      const s = await open();
      const rec = recorder();
      const stop = await s.watch('', 0, rec.listener);
      const n = 60;
      const created = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`/r/${i}`, 'v0')));
      const updated = await Promise.all(created.map((c) => s.update(c.key, 'v1', c.modRevision)));
      const deleted = await Promise.all(updated.slice(0, 10).map((u) => s.delete(u.key, u.modRevision)));
      const revs = [...created, ...updated, ...deleted].map((x) => x.modRevision).sort((x, y) => x - y);
      expect(revs).toEqual(Array.from({ length: 2 * n + 10 }, (_, i) => i + 1));
      expect(await s.currentRevision()).toBe(2 * n + 10);
      await waitForEvents(rec.events, 2 * n + 10);
      expect(rec.events.map((e) => e.revision)).toEqual(revs);
      expect((await s.range('/r/')).count).toBe(n - 10);
      stop();
    });
  });
}

export function runTestPersistence(factory: StorageFactory, reopen: (s: Storage) => Promise<Storage>): void {
  describe('persistence', () => {
    const { open, track } = useStores(factory);

    it('keeps data, revisions, history and the compacted revision across a reopen', async () => {
      const s = await open();
      const a = await s.create('/r/a', 'a1'); // 1
      await s.create('/r/b', 'b1'); // 2
      await s.update('/r/a', 'a2', a.modRevision); // 3
      await s.delete('/r/b'); // 4
      await s.create('/r/c', 'c1'); // 5
      await s.compact(2);
      const t = track(await reopen(s));
      expect(await t.currentRevision()).toBe(5);
      expect(await t.compactedRevision()).toBe(2);
      expect((await t.range('/r/')).kvs).toEqual([kv('/r/a', 'a2', 1, 3), kv('/r/c', 'c1', 5, 5)]);
      expect(await t.get('/r/b', 3)).toEqual(kv('/r/b', 'b1', 2, 2));
      await expectStorageError(t.get('/r/a', 1), 'Compacted');
      const rec = recorder();
      const stop = await t.watch('/r/', 2, rec.listener);
      await waitForEvents(rec.events, 3);
      expect(rec.events.map(plain)).toEqual([
        { type: 'PUT', revision: 3, kv: kv('/r/a', 'a2', 1, 3), prevKv: kv('/r/a', 'a1', 1, 1) },
        { type: 'DELETE', revision: 4, kv: kv('/r/b', 'b1', 2, 4), prevKv: kv('/r/b', 'b1', 2, 2) },
        { type: 'PUT', revision: 5, kv: kv('/r/c', 'c1', 5, 5) },
      ]);
      expect(await t.create('/r/d', 'd1')).toEqual(kv('/r/d', 'd1', 6, 6));
      await waitForEvents(rec.events, 4);
      await expectStorageError(t.create('/r/a', 'again'), 'KeyExists');
      stop();
    });

    it('keeps the revision when the newest write was a delete', async () => {
      const s = await open();
      await s.create('/r/a', '1');
      await s.delete('/r/a');
      await s.compact(2);
      const t = track(await reopen(s));
      expect(await t.currentRevision()).toBe(2);
      expect(await t.create('/r/a', '2')).toEqual(kv('/r/a', '2', 3, 3));
    });
  });
}

/**
 * Runs one seeded random workload against the backend and the memory
 * reference side by side, comparing every result (values and error codes)
 * and the complete watch streams.
 */
export function runTestAgainstReference(factory: StorageFactory, steps = 400): void {
  describe('random workload against the memory reference', () => {
    const { open, track } = useStores(factory);

    it(`matches the reference for ${steps} seeded operations`, async () => {
      const s = await open();
      const ref = track(createMemoryStorage());
      const gotEvents = recorder();
      const refEvents = recorder();
      await s.watch('', 0, gotEvents.listener);
      await ref.watch('', 0, refEvents.listener);

      let seed = 0x5eed;
      const rand = (n: number) => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 8) % n;
      };
      const keys = ['/a/x', '/a/y', '/a/z', '/a/y/1', '/b/x', '/b/y', '/ab'];
      const prefixes = ['', '/a/', '/a', '/b/', '/c/'];
      const outcome = async (p: Promise<unknown>) => {
        try {
          return { ok: await p };
        } catch (e) {
          return { error: isStorageError(e) ? e.code : String(e) };
        }
      };

      for (let step = 0; step < steps; step++) {
        const key = keys[rand(keys.length)]!;
        const current = await ref.currentRevision();
        const compacted = await ref.compactedRevision();
        // Mostly valid revisions, sometimes compacted-away or future ones.
        const revision = rand(4) === 0 ? rand(current + 3) : compacted + rand(current - compacted + 1);
        const live = await ref.get(key);
        const modRevision = live && rand(4) > 0 ? live.modRevision : rand(current + 2);
        const value = `v${step}`;
        const op = rand(20);
        // Draw everything up front so both stores get the same operation.
        const expected = rand(2) ? modRevision : undefined;
        const prefix = prefixes[rand(prefixes.length)]!;
        const startKey = rand(3) === 0 ? keys[rand(keys.length)] : undefined;
        const limit = rand(4);
        const compactAt = Math.max(0, current - rand(5));
        const run = (t: Storage): Promise<unknown> => {
          if (op < 5) return t.create(key, value);
          if (op < 9) return t.update(key, value, modRevision);
          if (op < 11) return t.delete(key, expected);
          if (op < 14) return t.get(key, revision);
          if (op < 19) return t.range(prefix, { revision, limit, startKey });
          return t.compact(compactAt);
        };
        const [got, want] = [await outcome(run(s)), await outcome(run(ref))];
        expect(got, `step ${step} (op ${op} on ${key})`).toEqual(want);
        expect(await s.currentRevision()).toBe(await ref.currentRevision());
        expect(await s.compactedRevision()).toBe(await ref.compactedRevision());
      }
      await waitForEvents(gotEvents.events, refEvents.events.length);
      expect(gotEvents.events.map(plain)).toEqual(refEvents.events.map(plain));
    });
  });
}
