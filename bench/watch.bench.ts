/**
 * Watch and list benchmarks through handle(), each printed as a ratio
 * against a baseline run beside it:
 *
 * 1. fan-out: one writer, 1,000 watchers on one collection. Events delivered
 *    per second and the delay from a write to its last delivery, beside the
 *    bare write rate with no watchers.
 * 2. one watcher that never reads beside 100 readers: writes and readers
 *    go on at the same rate and the silent watcher is closed.
 * 3. a list of 10,000 objects in chunks of 500 versus one unchunked list.
 * 4. heap while a continue token is held open under writes, and after the
 *    history window passes (the backend is compacted behind it).
 *
 * Run: npx tsx --expose-gc bench/watch.bench.ts [sections]
 *   sections: any of fanout,slow,list,continue (all by default); fanout.writes
 *   or fanout.tasks runs one of the two fan-out rows
 */
import { createApiServer, type ApiServer } from '../src/core/apiserver';
import { createMemoryStorage } from '../src/core/storage/memory';
import { FakeClock, seededRandom } from '../src/core/util/clock';
import { reportFigure } from './figures';

const BASE = 'http://127.0.0.1:8080';
const NS = '/api/v1/namespaces/default/configmaps';

async function newServer(clock = new FakeClock()) {
  const api = createApiServer({ storage: createMemoryStorage(), clock, random: seededRandom(7) });
  await api.ready;
  const storage = api.storage;
  return { api, clock, storage };
}

function post(api: ApiServer, path: string, body: unknown): Promise<Response> {
  return api.handle(new Request(BASE + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(512) } });

async function createMany(api: ApiServer, prefix: string, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await post(api, NS, cm(`${prefix}-${String(i).padStart(6, '0')}`));
    if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`);
  }
  return performance.now() - start;
}

async function rvOf(api: ApiServer): Promise<string> {
  const r = await api.handle(new Request(`${BASE}${NS}?limit=1`));
  return ((await r.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MiB`;
const gc = (globalThis as { gc?: () => void }).gc;
function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** CPU time of this process (user + system) in ms: the bench shares its machine, and both sides run on one thread. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The chunk's bytes as a Buffer (no copy), for its native newline search. */
const asBuffer = (chunk: Uint8Array) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/** Events (lines) in a chunk: one native newline search per event. */
function linesIn(chunk: Uint8Array): number {
  const bytes = asBuffer(chunk);
  let n = 0;
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) n++;
  return n;
}

/**
 * How the fan-out's readers count the events they were sent. The Node host's adaptor hands each chunk to its
 * socket without looking into it, so counting is the bench's own bookkeeping: 'chunk' counts each distinct chunk
 * once (watchers sent the same bytes share the count), 'every' searches every chunk every watcher reads, as the
 * bench did before (one newline search per event and watcher, which no server does).
 */
type Counting = 'chunk' | 'every';

/** Yields to the event loop, as a request arriving on a connection is a task of its own. */
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

interface WriteRun {
  wallMs: number;
  cpuMs: number;
}

async function timedWrites(api: ApiServer, prefix: string, n: number, ownTask: boolean, onWrite?: (i: number) => void): Promise<WriteRun> {
  const wall = performance.now();
  const cpu = cpuMs();
  for (let i = 0; i < n; i++) {
    onWrite?.(i);
    const r = await post(api, NS, cm(`${prefix}-${String(i).padStart(6, '0')}`));
    if (r.status !== 201) throw new Error(`create: ${r.status}`);
    if (ownTask) await nextTask();
  }
  return { wallMs: performance.now() - wall, cpuMs: cpuMs() - cpu };
}

/**
 * One writer and `watchers` watchers of one collection, each read the way the
 * Node host's adaptor reads a watch body; beside the same writes with nobody
 * watching. `ownTask`: each write is a task of its own (requests arriving over
 * HTTP or from the page), so every event is flushed to every watcher before
 * the next write; otherwise writes follow each other without yielding (an
 * in-process client), and each watcher gets the events written meanwhile as
 * one chunk, as kube-apiserver flushes a watch once its channel is empty.
 *
 * The sides take turns batch by batch (`batches` of `writes` writes each, the
 * first side rotating), each on its own server kept for the whole run, so a
 * burst of load from other work on the shared machine falls on every side
 * alike. A watched batch is timed until every watcher has read every event of
 * it: what the fan-out costs a write, wherever it runs.
 */
async function fanOut(watchers: number, writes: number, ownTask: boolean, batches = 8): Promise<void> {
  // Warm both sides up first (JIT): the write path, and the watch path with its watchers.
  await timedWrites((await newServer()).api, 'warm', 500, ownTask);
  const warm = await openWatchers(watchers, 'chunk');
  await warm.batch('warm', writes, ownTask);
  warm.close();
  const bare = (await newServer()).api;
  const sides = [await openWatchers(watchers, 'chunk'), await openWatchers(watchers, 'every')];
  const bareRuns: WriteRun[] = [];
  const runs: WatchedBatch[][] = [[], []];
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < 3; k++) {
      const side = (b + k) % 3;
      if (side === 2) bareRuns.push(await timedWrites(bare, `b${b}`, writes, ownTask));
      else runs[side]!.push(await sides[side]!.batch(`b${b}`, writes, ownTask));
    }
  }
  for (const side of sides) side.close();
  const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
  const n = writes * batches;
  const bareCpu = sum(bareRuns.map((r) => r.cpuMs));
  const rate = (cpu: number) => (n / cpu) * 1000;
  const [counted, scanning] = runs.map((side) => ({
    writesCpu: sum(side.map((r) => r.writes.cpuMs)),
    deliveredCpu: sum(side.map((r) => r.deliveredCpu)),
    wallMs: sum(side.map((r) => r.wallMs)),
    ratios: side.map((r, i) => bareRuns[i]!.cpuMs / r.deliveredCpu).sort((a, c) => a - c),
    delays: side.flatMap((r) => r.delays).sort((a, c) => a - c),
  })) as [SideTotals, SideTotals];
  const ratio = bareCpu / counted.deliveredCpu;
  const scanningRatio = bareCpu / scanning.deliveredCpu;
  const { delays } = counted;
  const p50 = delays[Math.floor(delays.length / 2)]!;
  const p99 = delays[Math.floor(delays.length * 0.99)]!;
  const range = (xs: number[]) => `${fmt(xs[0]!, 2)}-${fmt(xs.at(-1)!, 2)}`;
  const style = ownTask ? 'each write a task of its own' : 'writes back to back';
  console.log(`\n1. Watch fan-out: 1 writer (${style}), ${fmt(watchers, 0)} watchers, ${batches} batches of ${writes} writes per side taking turns; rates per CPU second`);
  console.log(`   bare write rate (no watchers):        ${fmt(rate(bareCpu))} writes/s  (wall ${fmt((n / sum(bareRuns.map((r) => r.wallMs))) * 1000)})`);
  console.log(`   with ${watchers} watchers, until every watcher read every event: ${fmt(rate(counted.deliveredCpu))} writes/s  (wall ${fmt((n / counted.wallMs) * 1000)}; ratio ${fmt(ratio, 2)} of bare; batches ${range(counted.ratios)})`);
  console.log(`   the writes alone (deliveries still pending when the last write returned not counted): ratio ${fmt(bareCpu / counted.writesCpu, 2)} of bare`);
  console.log(`   readers searching every chunk they read for its newlines: ratio ${fmt(scanningRatio, 2)} of bare (batches ${range(scanning.ratios)})`);
  console.log(`   events delivered:                     ${fmt(n * watchers, 0)} in ${fmt(counted.wallMs)} ms = ${fmt(((n * watchers) / counted.wallMs) * 1000, 0)} events/s`);
  console.log(`   write -> last delivery delay:         p50 ${fmt(p50, 2)} ms, p99 ${fmt(p99, 2)} ms, max ${fmt(delays.at(-1)!, 2)} ms`);
  const id = ownTask ? 'watch.fanout.tasks' : 'watch.fanout';
  const baseline = `${fmt(rate(bareCpu))} writes per CPU second with no watchers; ${fmt(rate(counted.deliveredCpu))} with them until every watcher read every event (readers in the same thread; ${batches} batches of ${writes} per side, taking turns)`;
  if (ownTask) {
    reportFigure({ id: `${id}.writes`, label: `writes/s with ${fmt(watchers, 0)} watchers / writes/s with none, each write a task of its own`, value: ratio, unit: 'ratio', baseline });
  } else {
    reportFigure({ id: `${id}.writes`, label: `writes/s with ${fmt(watchers, 0)} watchers / writes/s with none`, value: ratio, unit: 'ratio', baseline });
    reportFigure({ id: `${id}.scanning.writes`, label: `the same, with readers that search every chunk they read for its newlines`, value: scanningRatio, unit: 'ratio' });
    reportFigure({ id: `${id}.events`, label: `events delivered per second to ${fmt(watchers, 0)} reading watchers`, value: ((n * watchers) / counted.wallMs) * 1000, unit: 'events/s' });
  }
  reportFigure({ id: `${id}.p99`, label: `write -> last watcher delivery, p99 (${style})`, value: p99, unit: 'ms', baseline: `p50 ${fmt(p50, 2)} ms` });
}

interface SideTotals {
  writesCpu: number;
  deliveredCpu: number;
  wallMs: number;
  /** bare / watched per batch, sorted. */
  ratios: number[];
  /** Write -> last delivery, sorted. */
  delays: number[];
}

interface WatchedBatch {
  /** The writes alone. */
  writes: WriteRun;
  /** CPU from the first write until every watcher read every event of the batch. */
  deliveredCpu: number;
  wallMs: number;
  /** Write -> last delivery of each write. */
  delays: number[];
}

/**
 * A fresh server with `watchers` watchers of the collection, each read the way
 * the Node host's adaptor reads a watch body; batch() makes writes and resolves
 * once every watcher has read every event they made.
 */
async function openWatchers(watchers: number, counting: Counting) {
  const { api } = await newServer();
  const rv = await rvOf(api);
  /** Per event (in write order): when its write started, and when the last watcher read it. */
  const writeTimes: number[] = [];
  const lastDelivery: number[] = [];
  /** Events every watcher must have read before the batch is done, and the watchers that have. */
  let target = 0;
  let caughtUp = 0;
  let batchDone: (() => void) | undefined;
  const aborts: AbortController[] = [];
  /** Lines per chunk, for counting 'chunk': the chunks watchers share are searched once. */
  const counted = new WeakMap<Uint8Array, number>();
  const count = counting === 'every' ? linesIn : (chunk: Uint8Array) => counted.get(chunk) ?? (counted.set(chunk, linesIn(chunk)), counted.get(chunk)!);
  for (let w = 0; w < watchers; w++) {
    const abort = new AbortController();
    aborts.push(abort);
    const res = await api.handle(new Request(`${BASE}${NS}?watch=1&resourceVersion=${rv}`, { signal: abort.signal }));
    const reader = res.body!.getReader();
    void (async () => {
      // What the Node host's adaptor does with a watch body: take each chunk as it comes and hand the bytes on.
      // Events are counted by their newline with Buffer's memchr scan (TypedArray.indexOf walks element by
      // element); decoding and parsing them is the client's work, which kube's clients do in their own processes.
      let seen = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        // The events of one chunk arrived together: one clock read per chunk.
        const now = performance.now();
        const lines = count(value);
        for (let n = 0; n < lines; n++) lastDelivery[seen++] = now;
        if (seen >= target && seen - lines < target && ++caughtUp === watchers) batchDone?.();
      }
    })();
  }
  return {
    async batch(prefix: string, writes: number, ownTask: boolean): Promise<WatchedBatch> {
      const first = target;
      target += writes;
      caughtUp = 0;
      const done = new Promise<void>((resolve) => (batchDone = resolve));
      const cpu = cpuMs();
      const wall = performance.now();
      const run = await timedWrites(api, prefix, writes, ownTask, () => writeTimes.push(performance.now()));
      await done;
      const deliveredCpu = cpuMs() - cpu;
      const wallMs = performance.now() - wall;
      const delays: number[] = [];
      for (let i = first; i < target; i++) delays.push(lastDelivery[i]! - writeTimes[i]!);
      return { writes: run, deliveredCpu, wallMs, delays };
    },
    close(): void {
      for (const a of aborts) a.abort();
    },
  };
}

/**
 * One watcher that never reads beside `readers` that do, under `writes`
 * creates: the writes and the readers must not slow down, and the silent one
 * must be closed once it is a watcher's capacity behind (kube-apiserver's
 * cacher closes a watcher whose channel is full), its memory released.
 */
async function slowWatcher(readers: number, writes: number): Promise<void> {
  const plain = await newServer();
  const rvPlain = await rvOf(plain.api);
  const withSlow = await newServer();
  const rvSlow = await rvOf(withSlow.api);
  const openReaders = async (api: ApiServer, rv: string) => {
    const aborts: AbortController[] = [];
    const done: Promise<number>[] = [];
    for (let i = 0; i < readers; i++) {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await api.handle(new Request(`${BASE}${NS}?watch=1&resourceVersion=${rv}`, { signal: abort.signal }));
      const reader = res.body!.getReader();
      done.push(
        (async () => {
          let seen = 0;
          while (seen < writes) {
            const { value, done: end } = await reader.read();
            if (end) break;
            const bytes = asBuffer(value);
            for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) seen++;
          }
          return seen;
        })(),
      );
    }
    return { aborts, done };
  };
  const run = async (api: ApiServer, rv: string, slow: boolean) => {
    const r = await openReaders(api, rv);
    const silentAbort = new AbortController();
    const silent = slow ? await api.handle(new Request(`${BASE}${NS}?watch=1&resourceVersion=${rv}`, { signal: silentAbort.signal })) : undefined;
    const heapBefore = heap();
    // CPU time, as for the fan-out: the readers run in this thread, and the machine is shared.
    const t0 = cpuMs();
    await createMany(api, 'w', writes);
    const ms = cpuMs() - t0;
    const seen = await Promise.all(r.done);
    const heapAfter = heap();
    for (const a of r.aborts) a.abort();
    let silentClosed = false;
    if (silent) {
      // The stream of a closed watcher ends; read what little it had buffered.
      const reader = silent.body!.getReader();
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
      silentClosed = true;
      silentAbort.abort();
    }
    return { rate: (writes / ms) * 1000, allSeen: seen.every((n) => n === writes), heapGrowth: heapAfter - heapBefore, silentClosed };
  };
  const base = await run(plain.api, rvPlain, false);
  const slow = await run(withSlow.api, rvSlow, true);
  console.log(`\n2. A watcher that never reads, beside ${readers} that do, ${fmt(writes, 0)} writes; rates per CPU second`);
  console.log(`   write rate, readers only:            ${fmt(base.rate)} writes/s`);
  console.log(`   write rate with the silent watcher:  ${fmt(slow.rate)} writes/s  (ratio ${fmt(slow.rate / base.rate, 2)})`);
  console.log(`   every reader saw every event:        ${slow.allSeen}`);
  console.log(`   silent watcher closed, stream ended: ${slow.silentClosed}${gc ? `; heap growth ${mb(slow.heapGrowth)} vs ${mb(base.heapGrowth)} without it` : ''}`);
  reportFigure({ id: 'watch.slow.writes', label: `write rate with one watcher that never reads beside ${readers} readers / without it`, value: slow.rate / base.rate, unit: 'ratio', baseline: `${fmt(base.rate)} writes/s without it` });
  reportFigure({ id: 'watch.slow.closed', label: 'the watcher that never reads was closed and every reader saw every event (1 = yes)', value: slow.silentClosed && slow.allSeen ? 1 : 0, unit: 'ratio' });
}

async function chunkedList(objects: number, chunk: number): Promise<void> {
  const { api } = await newServer();
  // The namespace may already hold ConfigMaps of its own (kube-root-ca.crt).
  const expected = objects + (await listCount(api));
  await createMany(api, 'obj', objects);
  const listAll = async () => {
    const r = await api.handle(new Request(`${BASE}${NS}`));
    return ((await r.json()) as { items: unknown[] }).items.length;
  };
  const listChunked = async () => {
    let token = '';
    let count = 0;
    do {
      const r = await api.handle(new Request(`${BASE}${NS}?limit=${chunk}${token ? `&continue=${encodeURIComponent(token)}` : ''}`));
      const body = (await r.json()) as { items: unknown[]; metadata: { continue?: string } };
      count += body.items.length;
      token = body.metadata.continue ?? '';
    } while (token);
    return count;
  };
  // Warm up both paths, then take the best of a few runs.
  await listAll();
  await listChunked();
  const best = async (fn: () => Promise<number>) => {
    let min = Infinity;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const n = await fn();
      if (n !== expected) throw new Error(`listed ${n} of ${expected}`);
      min = Math.min(min, performance.now() - t0);
    }
    return min;
  };
  const whole = await best(listAll);
  const chunked = await best(listChunked);
  console.log(`\n3. List of ${fmt(objects, 0)} objects`);
  console.log(`   one unchunked list:       ${fmt(whole)} ms`);
  console.log(`   chunks of ${chunk} (${Math.ceil(objects / chunk)} requests): ${fmt(chunked)} ms  (ratio ${fmt(chunked / whole, 2)} of unchunked)`);
}

async function listCount(api: ApiServer): Promise<number> {
  const r = await api.handle(new Request(`${BASE}${NS}`));
  return ((await r.json()) as { items: unknown[] }).items.length;
}

async function openContinueToken(objects: number, writes: number): Promise<void> {
  const { api, clock, storage } = await newServer();
  await createMany(api, 'obj', objects);
  const first = (await (await api.handle(new Request(`${BASE}${NS}?limit=500`))).json()) as { metadata: { continue: string } };
  const before = heap();
  // Keep rewriting the same objects while the token is open: history grows with the writes, not the token.
  for (let i = 0; i < writes; i++) {
    const name = `obj-${String(i % objects).padStart(6, '0')}`;
    const r = await api.handle(
      new Request(`${BASE}${NS}/${name}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { payload: `v${i}`.padEnd(512, 'y') } }) }),
    );
    if (r.status !== 200) throw new Error(`patch: ${r.status}`);
  }
  const during = heap();
  const cont = await api.handle(new Request(`${BASE}${NS}?limit=500&continue=${encodeURIComponent(first.metadata.continue)}`));
  const eventsHeld = storage.stats().events;
  clock.advance(6 * 60_000);
  await post(api, NS, cm('after-window'));
  await post(api, NS, cm('after-window-2'));
  const expired = await api.handle(new Request(`${BASE}${NS}?limit=500&continue=${encodeURIComponent(first.metadata.continue)}`));
  const after = heap();
  console.log(`\n4. Heap while a continue token is open (${fmt(objects, 0)} objects, ${fmt(writes, 0)} updates)${gc ? '' : '  [run with --expose-gc for stable numbers]'}`);
  console.log(`   after the first chunk:                 ${mb(before)}`);
  console.log(`   after the updates, token still valid:  ${mb(during)}  (continue -> ${cont.status}; ${fmt(eventsHeld, 0)} events in the window)`);
  console.log(`   after the 5 min window passed:         ${mb(after)}  (continue -> ${expired.status}; ${storage.stats().events} events in the window)`);
  console.log(`   retained by the open token, released:  ${mb(Math.max(0, during - after))}`);
}

const sections = process.argv[2]?.split(',');
const wanted = (name: string) => !sections || sections.includes(name);
if (wanted('fanout') || wanted('fanout.writes')) await fanOut(1000, 200, false);
if (wanted('fanout') || wanted('fanout.tasks')) await fanOut(1000, 200, true, 5);
if (wanted('slow')) await slowWatcher(100, 2500);
if (wanted('list')) await chunkedList(10_000, 500);
if (wanted('continue')) await openContinueToken(10_000, 20_000);
