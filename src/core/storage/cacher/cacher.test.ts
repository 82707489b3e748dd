import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../memory';
import { runStorageConformance } from '../testing/conformance';
import { StorageError, type StorageEvent } from '../interface';
import { FakeClock } from '../../util/clock';
import { createWatchCache } from './cacher';
import { CacheWatcher, openCacheWatcher, readyBatch } from './cacheWatcher';

runStorageConformance('watch cache over memory', async () => createWatchCache(createMemoryStorage(), { clock: new FakeClock() }));

function setup(historyWindowMs = 5 * 60_000, extra: { maxEvents?: number } = {}) {
  const clock = new FakeClock();
  const backend = createMemoryStorage();
  const cache = createWatchCache(backend, { clock, historyWindowMs, ...extra });
  return { clock, backend, cache };
}

async function expectCode(p: Promise<unknown>, code: string) {
  await expect(p).rejects.toMatchObject({ code });
}

describe('watch cache window', () => {
  it('[API-LIM-001] [API-WATCH-028] replays watches within the window and rejects older ones once the window passes', async () => {
    const { clock, cache } = setup();
    await cache.create('/r/a', '1'); // 1 at t=0
    clock.advance(4 * 60_000);
    await cache.create('/r/b', '1'); // 2 at t=4m
    const seen: number[] = [];
    const stop = await cache.watch('/r/', 0, (e) => seen.push(e.revision));
    expect(seen).toEqual([1, 2]);
    stop();
    clock.advance(2 * 60_000); // t=6m: event 1 is older than 5 minutes
    await expectCode(cache.watch('/r/', 0, () => {}), 'Compacted');
    await expect(cache.watch('/r/', 0, () => {})).rejects.toThrow('too old resource version: 0 (1)');
    const later: number[] = [];
    await cache.watch('/r/', 1, (e) => later.push(e.revision));
    expect(later).toEqual([2]);
    expect(await cache.compactedRevision()).toBe(1);
  });

  it('[API-LIM-002] expires reads at revisions older than the window and compacts the backend behind it', async () => {
    const { clock, backend, cache } = setup(60_000);
    const a = await cache.create('/r/a', '1'); // 1
    await cache.update('/r/a', '2', a.modRevision); // 2
    expect((await cache.range('/r/', { revision: 1 })).kvs[0]!.value).toBe('1');
    clock.advance(61_000);
    await cache.create('/r/b', '1'); // 3, and maintenance runs
    await expectCode(cache.range('/r/', { revision: 1 }), 'Compacted');
    await expectCode(cache.get('/r/a', 1), 'Compacted');
    expect((await cache.range('/r/', { revision: 2 })).kvs.map((k) => k.value)).toEqual(['2']);
    expect(await backend.compactedRevision()).toBe(2);
  });

  it('[API-LIM-002] serves the latest value with the window past due, and expires it before any read at a revision', async () => {
    const { clock, cache } = setup(60_000);
    const a = await cache.create('/r/a', '1'); // 1
    await cache.update('/r/a', '2', a.modRevision); // 2
    await cache.create('/r/b', '1'); // 3
    clock.advance(61_000);
    // A read of the latest value reads no history: it answers without maintaining the window.
    expect((await cache.get('/r/a'))?.value).toBe('2');
    expect((await cache.get('/r/a', 0))?.value).toBe('2');
    expect(cache.stats().startRevision).toBe(0);
    // A read at a revision expires the window first: revision 1 is gone, the current state is not.
    await expectCode(cache.get('/r/a', 1), 'Compacted');
    expect(cache.stats().startRevision).toBe(3);
    expect((await cache.get('/r/b', 3))?.value).toBe('1');
  });

  it('keeps a continue revision readable while no newer write pushes it out', async () => {
    const { clock, cache } = setup(60_000);
    await cache.create('/r/a', '1');
    clock.advance(10 * 60_000);
    // The only event left the window, but revision 1 is the current state: still readable.
    expect((await cache.range('/r/', { revision: 1 })).kvs).toHaveLength(1);
    expect(await cache.compactedRevision()).toBe(1);
  });

  it('bounds the window by event count too', async () => {
    const { cache } = setup(5 * 60_000, { maxEvents: 3 });
    for (let i = 0; i < 6; i++) await cache.create(`/r/${i}`, 'x');
    expect(cache.stats()).toMatchObject({ events: 3, startRevision: 3, resourceVersion: 6 });
    await expectCode(cache.watch('/r/', 2, () => {}), 'Compacted');
  });

  it('loads the history a backend already has when it starts', async () => {
    const backend = createMemoryStorage();
    await backend.create('/r/a', '1');
    await backend.create('/r/b', '1');
    const cache = createWatchCache(backend, { clock: new FakeClock() });
    const seen: number[] = [];
    await cache.watch('/r/', 0, (e) => seen.push(e.revision));
    expect(seen).toEqual([1, 2]);
  });

  it('fans one event out to many watchers, each in order', async () => {
    const { cache } = setup();
    const seen: StorageEvent[][] = [];
    for (let i = 0; i < 200; i++) {
      const mine: StorageEvent[] = [];
      seen.push(mine);
      await cache.watch('/r/', 0, (e) => mine.push(e));
    }
    for (let i = 0; i < 5; i++) await cache.create(`/r/${i}`, 'x');
    for (const mine of seen) expect(mine.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5]);
    // One shared event object per revision: decoding and encoding can be shared too.
    expect(seen[0]![0]).toBe(seen[199]![0]);
    expect(cache.stats().watchers).toBe(200);
  });
});

describe('cache watcher', () => {
  it('closes a watcher that falls too far behind without holding up writes or other watchers', async () => {
    const { cache } = setup();
    const slow = await openCacheWatcher(cache, '/r/', 0, 10);
    const fast = await openCacheWatcher(cache, '/r/', 0, 10);
    const fastSeen: number[] = [];
    let slowMostHeld = 0;
    for (let i = 0; i < 50; i++) {
      await cache.create(`/r/${i}`, 'x');
      slowMostHeld = Math.max(slowMostHeld, slow.backlog);
      for (let item = fast.take(); item; item = fast.take()) if (item.kind === 'event') fastSeen.push(item.revision);
    }
    expect(slow.closeReason).toBe('overflow');
    // Memory held for a consumer that never reads stays within its capacity.
    expect(slowMostHeld).toBeLessThanOrEqual(10);
    expect(slow.backlog).toBe(0);
    expect(await slow.next()).toBeUndefined();
    expect(fast.closed).toBe(false);
    expect(fastSeen).toHaveLength(50);
    // The terminated watcher is no longer fanned out to.
    expect(cache.stats().watchers).toBe(1);
  });

  it('accepts a replay longer than its capacity, then bounds the backlog', async () => {
    const { cache } = setup();
    for (let i = 0; i < 30; i++) await cache.create(`/r/${i}`, 'x');
    const w = await openCacheWatcher(cache, '/r/', 0, 5);
    expect(w.backlog).toBe(30);
    for (let i = 0; i < 5; i++) await cache.create(`/r/x${i}`, 'x');
    expect(w.closed).toBe(false);
    await cache.create('/r/overflow', 'x');
    expect(w.closeReason).toBe('overflow');
  });

  it('tells a consumer about new items after the pushing task, once for all of them, and at once past a batch', async () => {
    const w = new CacheWatcher(0, 1000);
    const told: number[] = [];
    w.onReady = () => {
      let n = 0;
      while (w.take()) n++;
      told.push(n);
    };
    w.endReplay();
    w.push({ kind: 'bookmark', revision: 1 });
    w.push({ kind: 'bookmark', revision: 2 });
    // The pusher (a write) returns before the consumer runs.
    expect(told).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toEqual([2]);
    // A pusher that never yields still has its items delivered every readyBatch pushes.
    for (let i = 0; i < readyBatch * 2; i++) w.push({ kind: 'bookmark', revision: 3 + i });
    expect(told).toEqual([2, readyBatch, readyBatch]);
    w.close();
  });

  it('tells a consumer that takes items as they come about each push and the close', async () => {
    const w = new CacheWatcher(0, 2);
    const seen: (number | 'closed')[] = [];
    w.onReady = () => {
      for (let item = w.take(); item; item = w.take()) if (item.kind === 'bookmark') seen.push(item.revision);
      if (w.closed) seen.push('closed');
    };
    w.endReplay();
    w.push({ kind: 'bookmark', revision: 1 });
    w.push({ kind: 'bookmark', revision: 2 });
    w.close();
    expect(seen).toEqual([1, 2, 'closed']);
  });

  it('hands items to a waiting consumer directly and ends it on close', async () => {
    const w = new CacheWatcher(0, 2);
    const pending = w.next();
    w.push({ kind: 'bookmark', revision: 7 });
    expect(await pending).toEqual({ kind: 'bookmark', revision: 7 });
    const ended = w.next();
    w.close();
    expect(await ended).toBeUndefined();
  });
});

describe('cache watchers reading a prefix\'s shared feed', () => {
  const revisions = (w: CacheWatcher) => {
    const out: (number | string)[] = [];
    for (let item = w.take(); item; item = w.take()) out.push(item.kind === 'event' ? item.revision : `bookmark ${item.revision}`);
    return out;
  };

  it('[API-WATCH-019] [API-WATCH-031] hands over from the replay to live events without a gap or a repeat, each prefix seeing its own keys', async () => {
    const { cache } = setup();
    await cache.create('/r/a', '1'); // 1
    await cache.create('/s/a', '1'); // 2
    const early = await openCacheWatcher(cache, '/r/', 0);
    await cache.create('/r/b', '1'); // 3
    const late = await openCacheWatcher(cache, '/r/', 1);
    const other = await openCacheWatcher(cache, '/s/', 0);
    await cache.create('/r/c', '1'); // 4
    await cache.create('/s/b', '1'); // 5
    expect(revisions(early)).toEqual([1, 3, 4]);
    expect(revisions(late)).toEqual([3, 4]);
    expect(revisions(other)).toEqual([2, 5]);
    // Every watcher of a prefix reads the same event objects, memo included.
    await cache.create('/r/d', '1'); // 6
    const a = early.take();
    expect(a).toBe(late.take());
    expect(cache.stats().watchers).toBe(3);
  });

  it('[API-WATCH-032] a watch from a revision the cache has not reached skips events up to it', async () => {
    const { cache } = setup();
    const w = await openCacheWatcher(cache, '/r/', 2);
    for (const k of ['a', 'b', 'c']) await cache.create(`/r/${k}`, '1');
    expect(revisions(w)).toEqual([3]);
  });

  it('[API-WATCH-024] puts a bookmark after every feed event it covers', async () => {
    const { cache } = setup();
    const w = await openCacheWatcher(cache, '/r/', 0);
    await cache.create('/r/a', '1'); // 1
    await cache.create('/r/b', '1'); // 2
    w.push({ kind: 'bookmark', revision: 2 });
    await cache.create('/r/c', '1'); // 3
    expect(revisions(w)).toEqual([1, 2, 'bookmark 2', 3]);
  });

  it('keeps a watcher that reads open however many events pass, and closes one that stops at its capacity', async () => {
    const { cache } = setup();
    const reader = await openCacheWatcher(cache, '/r/', 0, 4);
    const idle = await openCacheWatcher(cache, '/r/', 0, 4);
    let read = 0;
    for (let i = 0; i < 40; i++) {
      await cache.create(`/r/${i}`, 'x');
      if (i === 3) expect(idle.closed).toBe(false);
      if (i === 4) expect(idle.closeReason).toBe('overflow');
      read += revisions(reader).length;
    }
    expect(read).toBe(40);
    expect(reader.closed).toBe(false);
    expect(cache.stats().watchers).toBe(1);
  });

  it('lets the consumer of a stopped watcher drain what was written before the stop', async () => {
    const { cache } = setup();
    const w = await openCacheWatcher(cache, '/r/', 0);
    await cache.create('/r/a', '1');
    await cache.create('/r/b', '1');
    w.close();
    await cache.create('/r/c', '1');
    expect(revisions(w)).toEqual([1, 2]);
    expect(cache.stats().watchers).toBe(0);
  });

  it('tells its watchers once after the writing task, and at once past a batch', async () => {
    const { cache } = setup();
    const w = await openCacheWatcher(cache, '/r/', 0);
    const told: number[] = [];
    w.onReady = () => told.push(revisions(w).length);
    await cache.create('/r/a', '1');
    await cache.create('/r/b', '1');
    expect(told).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(told).toEqual([2]);
    for (let i = 0; i < readyBatch; i++) await cache.create(`/r/x${i}`, '1');
    expect(told).toEqual([2, readyBatch]);
  });
});

describe('a backend that ends the watch cache\'s watch', () => {
  it('[API-WATCH-028] ends every watcher and starts the window again at the backend\'s compacted revision', async () => {
    const clock = new FakeClock();
    const backend = createMemoryStorage();
    // The backend's watch of the cache (prefix ''), with the callback etcd calls when it cancels it.
    let endCacheWatch: (() => void) | undefined;
    const watch = backend.watch.bind(backend);
    backend.watch = (prefix, after, listener, onProgress, onEnded) => {
      if (prefix === '') endCacheWatch = () => onEnded?.(new StorageError('Compacted', '', 'etcd: required revision has been compacted'));
      return watch(prefix, after, listener, onProgress, onEnded);
    };
    const cache = createWatchCache(backend, { clock });
    await cache.ready;
    for (const k of ['a', 'b', 'c']) await cache.create(`/r/${k}`, '1');
    const watcher = await openCacheWatcher(cache, '/r/', 0);
    for (let i = 0; i < 3; i++) expect(await watcher.next()).toBeDefined();

    // Compacted while the host was away: the watch ends, and the window restarts behind the compaction.
    await backend.compact(3);
    endCacheWatch!();
    expect(await watcher.next()).toBeUndefined();
    expect(cache.stats().watchers).toBe(0);
    await expect(cache.watch('/r/', 1, () => {})).rejects.toMatchObject({ code: 'Compacted' });
    const seen: number[] = [];
    await cache.watch('/r/', 3, (e) => seen.push(e.revision));
    await cache.create('/r/d', '1');
    expect(seen).toEqual([4]);
  });
});
