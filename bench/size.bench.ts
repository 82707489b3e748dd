/**
 * How cost grows with the size of the store: get, list and watch start
 * through `handle()` with 1,000, 10,000 and 100,000 ConfigMaps in one
 * namespace, and the heap each stored object takes. The curve is the point:
 * each size's figures are printed beside the smallest size's, as a growth
 * ratio (1.00 = no growth per operation or per object).
 *
 * The store is filled through the storage layer with the exact value a
 * create through the API stores (one real create is the template; name and
 * uid change per copy), so 100,000 objects take seconds rather than minutes.
 * Every operation measured goes through `handle()`.
 *
 * - get: one object by name, random names, median of the batch.
 * - list: one unchunked list of the whole namespace, and the first page of
 *   a `limit=500` list (the size a client's pager asks for).
 * - watch start: a watch from the list's resourceVersion until the event of
 *   a create made right after it opened.
 * - heap per object: heap growth after GC across the fill, divided by count.
 *
 * Run: npx tsx --expose-gc bench/size.bench.ts [sizes=1000,10000,100000]
 */
import { createApiServer, createMemoryStorage, type ApiServer } from '../src/core';
import { reportFigure } from './figures';

const sizes = (process.argv[2] ?? '1000,10000,100000').split(',').map(Number);
const BASE = 'http://127.0.0.1';
const NS = '/api/v1/namespaces/default/configmaps';
const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const body = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'size', tier: 'bench' } }, data: { payload: 'x'.repeat(256) } });

async function call(api: ApiServer, path: string, init?: RequestInit): Promise<unknown> {
  const res = await api.handle(new Request(BASE + path, init));
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const nameOf = (i: number) => `cm-${String(i).padStart(6, '0')}`;

async function fill(api: ApiServer, n: number): Promise<void> {
  await call(api, NS, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('template') });
  const templateKey = '/registry/configmaps/default/template';
  const template = (await api.storage.get(templateKey))!.value;
  const uidAt = template.indexOf('"uid":"') + 7;
  for (let i = 0; i < n; i++) {
    const name = nameOf(i);
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const value = (template.slice(0, uidAt) + uid + template.slice(uidAt + 36)).replaceAll('"template"', JSON.stringify(name));
    await api.storage.create(`/registry/configmaps/default/${name}`, value);
  }
  await api.storage.delete(templateKey);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Point {
  n: number;
  getUs: number;
  listMs: number;
  pageMs: number;
  watchStartMs: number;
  heapPerObject: number;
}

async function measure(n: number): Promise<Point> {
  // No controllers: the root CA publisher's ConfigMap would be one more object in the namespace listed.
  const api = createApiServer({ storage: createMemoryStorage(), controllers: [] });
  await api.ready;
  // Warm the create path first, so the heap before holds the server and its compiled code, not the objects.
  await call(api, NS, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('warm') });
  const before = heap();
  await fill(api, n);
  await call(api, `${NS}/warm`, { method: 'DELETE' });
  const heapPerObject = (heap() - before) / n;
  try {
    // get: random names, after a warm-up.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 500; i++) await call(api, `${NS}/${nameOf(rnd())}`);
    const gets: number[] = [];
    for (let b = 0; b < 20; b++) {
      const t = await time(async () => {
        for (let i = 0; i < 100; i++) await call(api, `${NS}/${nameOf(rnd())}`);
      });
      gets.push((t / 100) * 1000);
    }
    // list: whole namespace (fewer rounds for the big store), and a first page of 500.
    const listRounds = n >= 100_000 ? 2 : 5;
    const lists: number[] = [];
    for (let r = 0; r < listRounds; r++) {
      lists.push(
        await time(async () => {
          const l = (await call(api, NS)) as { items: unknown[] };
          if (l.items.length !== n) throw new Error(`listed ${l.items.length} of ${n}`);
        }),
      );
    }
    const pages: number[] = [];
    for (let r = 0; r < 10; r++) pages.push(await time(() => call(api, `${NS}?limit=500`)));
    // watch start: open from the list's resourceVersion, create, read the event.
    const starts: number[] = [];
    for (let r = 0; r < 5; r++) {
      const rv = ((await call(api, `${NS}?limit=1`)) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const abort = new AbortController();
      const t0 = performance.now();
      const res = await api.handle(new Request(`${BASE}${NS}?watch=1&resourceVersion=${rv}`, { signal: abort.signal }));
      await call(api, NS, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(`w-${r}`) });
      const reader = res.body!.getReader();
      await reader.read();
      starts.push(performance.now() - t0);
      abort.abort();
      await call(api, `${NS}/w-${r}`, { method: 'DELETE' });
    }
    return { n, getUs: median(gets), listMs: median(lists), pageMs: median(pages), watchStartMs: median(starts), heapPerObject };
  } finally {
    await api.close();
  }
}

const points: Point[] = [];
for (const n of sizes) points.push(await measure(n));

const first = points[0]!;
const fmt = (x: number, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d });
console.log(`size curve: ConfigMaps (${body('x').length} B each) in one namespace, through handle(); growth = per-operation (per-object for list) cost / the ${fmt(first.n, 0)}-object figure`);
console.log('objects    get µs (growth)   list ms (µs/object, growth)   first 500-page ms (growth)   watch start ms (growth)   heap B/object (growth)');
for (const p of points) {
  const g = (a: number, b: number) => (a / b).toFixed(2);
  console.log(
    `${fmt(p.n, 0).padEnd(10)} ${`${fmt(p.getUs)} (${g(p.getUs, first.getUs)})`.padEnd(17)} ` +
      `${`${fmt(p.listMs)} (${fmt((p.listMs / p.n) * 1000, 2)}, ${g(p.listMs / p.n, first.listMs / first.n)})`.padEnd(29)} ` +
      `${`${fmt(p.pageMs, 2)} (${g(p.pageMs, first.pageMs)})`.padEnd(28)} ${`${fmt(p.watchStartMs, 2)} (${g(p.watchStartMs, first.watchStartMs)})`.padEnd(25)} ` +
      `${fmt(p.heapPerObject, 0)} (${g(p.heapPerObject, first.heapPerObject)})`,
  );
  const at = `${fmt(p.n, 0)} objects`;
  const base = `${fmt(first.n, 0)} objects in the same run`;
  reportFigure({ id: `size.get.${p.n}`, label: `get one object with ${at}`, value: p.getUs, unit: 'µs', baseline: `${fmt(first.getUs)} µs with ${base}` });
  reportFigure({ id: `size.list.${p.n}`, label: `unchunked list with ${at}, per object`, value: (p.listMs / p.n) * 1000, unit: 'µs', baseline: `${fmt((first.listMs / first.n) * 1000, 2)} µs with ${base}; whole list ${fmt(p.listMs)} ms` });
  reportFigure({ id: `size.page.${p.n}`, label: `first page of limit=500 with ${at}`, value: p.pageMs, unit: 'ms', baseline: `${fmt(first.pageMs, 2)} ms with ${base}` });
  reportFigure({ id: `size.watch.${p.n}`, label: `watch start to the first event with ${at}`, value: p.watchStartMs, unit: 'ms', baseline: `${fmt(first.watchStartMs, 2)} ms with ${base}` });
  if (gc) reportFigure({ id: `size.heap.${p.n}`, label: `heap per stored object with ${at}`, value: p.heapPerObject, unit: 'bytes', baseline: `${fmt(first.heapPerObject, 0)} B with ${base}` });
}
if (!gc) console.log('(run with --expose-gc for heap per object)');
