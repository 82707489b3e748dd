/**
 * The workbench in Chromium beside a bare Vite React page, built and served
 * the same way in the same run:
 *
 * - cold: a fresh browser profile, navigation until the first API answer is
 *   on screen (the namespace list; for the bare page its first render). The
 *   workbench's cold load includes installing the service worker and
 *   starting the API server in it.
 * - warm: a reload in the same profile (worker installed, caches warm).
 * - JavaScript the page transferred before the first screen is interactive
 *   (the worker's script is reported apart: the worker fetches it; sw.js
 *   plus its core chunks, and what the install fetches, see workerScript.ts).
 *
 * Printed as medians and as workbench/bare ratios (above 1: the workbench is
 * slower or heavier). Compare the ratios between commits.
 *
 * Then IndexedDB durability: ConfigMap creates from the page through the
 * service worker (the API server writes each to IndexedDB in one readwrite
 * transaction: log entry, object, revision) beside raw IndexedDB puts of the
 * same three records with the same bytes, one transaction each, in the same
 * page, interleaved in batches.
 *
 * Run: npx tsx bench/workbench.bench.ts [rounds=3] [idb-creates=300]
 *   rounds=0 skips the page loads and measures IndexedDB creates only.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import react from '@vitejs/plugin-react';
import { build, preview, type PreviewServer } from 'vite';
import { buildWorkbench, CHROMIUM, CHROMIUM_ARGS, freePort, root } from '../e2e/support/browser';
import { reportFigure } from './figures';
import { workerScriptFiles } from './workerScript';

const rounds = Number(process.argv[2] ?? 3);
const idbCreates = Number(process.argv[3] ?? 300);

/** A one-component React page, as `npm create vite` makes it. */
async function buildBarePage(): Promise<{ outDir: string; srcDir: string }> {
  // Inside the repository, so `react` resolves from its node_modules.
  const srcDir = join(root, 'bench', `.bare-react-${process.pid}`);
  await mkdir(srcDir, { recursive: true });
  await writeFile(join(srcDir, 'index.html'), '<!doctype html><html><body><div id="root"></div><script type="module" src="./main.tsx"></script></body></html>');
  await writeFile(
    join(srcDir, 'main.tsx'),
    "import { createRoot } from 'react-dom/client';\nfunction App() { return <h1 data-testid=\"ready\">Hello</h1>; }\ncreateRoot(document.getElementById('root')!).render(<App />);\n",
  );
  const outDir = await mkdtemp(join(tmpdir(), 'kubesim-bench-bare-'));
  await build({ root: srcDir, logLevel: 'error', plugins: [react()], build: { outDir, emptyOutDir: true } });
  return { outDir, srcDir };
}

async function serve(outDir: string, configRoot: string): Promise<PreviewServer & { url: string }> {
  const port = await freePort();
  const server = await preview({ root: configRoot, configFile: configRoot === root ? undefined : false, logLevel: 'error', build: { outDir }, preview: { host: '127.0.0.1', port, strictPort: true } });
  return Object.assign(server, { url: `http://127.0.0.1:${port}/` });
}

interface Load {
  ms: number;
  jsBytes: number;
}

async function measure(page: Page, url: string, readySelector: string, reload: boolean): Promise<Load> {
  const start = performance.now();
  if (reload) await page.reload();
  else await page.goto(url);
  await page.locator(readySelector).first().waitFor({ timeout: 60_000 });
  const ms = performance.now() - start;
  const jsBytes = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'))
      .reduce((sum, e) => sum + ((e as PerformanceResourceTiming).encodedBodySize || 0), 0),
  );
  return { ms, jsBytes };
}

async function loads(url: string, readySelector: string): Promise<{ cold: Load; warm: Load }> {
  const profile = await mkdtemp(join(tmpdir(), 'kubesim-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 720 } });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const cold = await measure(page, url, readySelector, false);
    const warm = await measure(page, url, readySelector, true);
    return { cold, warm };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

/** ConfigMap creates through the worker beside raw IndexedDB puts of the same records, in one page. */
async function indexedDbCreates(url: string, n = 300, batch = 25): Promise<void> {
  const profile = await mkdtemp(join(tmpdir(), 'kubesim-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'allow' });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url);
    await page.locator('[data-testid="namespace-item"]').first().waitFor({ timeout: 60_000 });
    // Measure from a page the worker controls that is not the workbench. Any other path of the app (an /api/ URL
    // included) is answered with the workbench itself (the SPA fallback of the preview server and of the worker's
    // cache), whose watches fold every create into its lists and re-render them: the page's main thread, busy with
    // work that grows with the number of ConfigMaps, then reads each create's response late.
    await page.goto(new URL('favicon.svg', url).href);
    if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) throw new Error('the measuring page is not controlled by the worker');
    // tsx names the functions it compiles through a `__name` helper the page does not have.
    await page.evaluate('globalThis.__name = (f) => f');
    const result = await page.evaluate(
      async ({ n, batch }) => {
        const path = '/api/v1/namespaces/default/configmaps';
        const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${i}` }, data: { payload: 'x'.repeat(256) } });
        // The bytes the worker stores: the object as created (the response is the stored object with its resourceVersion).
        const sample = await (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(-1) })).text();
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open('kubesim-bench-raw', 1);
          open.onupgradeneeded = () => {
            open.result.createObjectStore('meta');
            open.result.createObjectStore('log', { keyPath: 'revision' }).createIndex('byKey', ['key', 'revision']);
            open.result.createObjectStore('objects', { keyPath: 'key' });
          };
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        // The worker's writes are 'relaxed' (the browser's default); 'strict' waits for the OS to flush.
        const rawPut = (i: number, durability: 'relaxed' | 'strict' = 'relaxed') =>
          new Promise<void>((resolve, reject) => {
            const key = `/registry/configmaps/default/bench-${i}`;
            const tx = db.transaction(['meta', 'log', 'objects'], 'readwrite', { durability });
            tx.objectStore('log').add({ revision: i + 1, key, value: sample, createRevision: i + 1, prevRevision: 0, created: true, deleted: false });
            tx.objectStore('objects').put({ key, value: sample, createRevision: i + 1, modRevision: i + 1 });
            tx.objectStore('meta').put(i + 1, 'revision');
            tx.oncomplete = () => resolve();
            tx.onerror = () => reject(tx.error);
          });
        const create = async (i: number, dryRun = false) => {
          const res = await fetch(dryRun ? `${path}?dryRun=All` : path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
          if (res.status !== 201) throw new Error(`create: ${res.status}`);
          await res.text();
        };
        // The hop alone: a request the worker answers without storage (GET /version).
        const hop = async () => void (await (await fetch('/version')).text());
        const ms = { kubesim: 0, raw: 0, hop: 0, strict: 0, dryRun: 0 };
        for (let from = 0; from < n; from += batch) {
          let t = performance.now();
          for (let i = from; i < Math.min(n, from + batch); i++) await create(i);
          ms.kubesim += performance.now() - t;
          t = performance.now();
          for (let i = from; i < Math.min(n, from + batch); i++) await rawPut(i);
          ms.raw += performance.now() - t;
          t = performance.now();
          for (let i = from; i < Math.min(n, from + batch); i++) await hop();
          ms.hop += performance.now() - t;
          t = performance.now();
          for (let i = from; i < Math.min(n, from + batch); i++) await rawPut(n + i, 'strict');
          ms.strict += performance.now() - t;
          // The same creates with ?dryRun=All: the whole path but the write (and so no watch event).
          t = performance.now();
          for (let i = from; i < Math.min(n, from + batch); i++) await create(n + i, true);
          ms.dryRun += performance.now() - t;
        }
        db.close();
        return { kubesim: (n / ms.kubesim) * 1000, raw: (n / ms.raw) * 1000, strict: (n / ms.strict) * 1000, hopMs: ms.hop / n, createMs: ms.kubesim / n, dryRunMs: ms.dryRun / n, bytes: sample.length };
      },
      { n, batch },
    );
    console.log(`\nIndexedDB creates in Chromium, ${n} ConfigMaps (${result.bytes} B stored), interleaved in batches of ${batch}:`);
    console.log(`  through the service worker (fetch -> API server -> IndexedDB)  ${result.kubesim.toFixed(0)}/s`);
    console.log(`  raw IndexedDB puts of the same records, one transaction each  ${result.raw.toFixed(0)}/s  (ratio ${(result.kubesim / result.raw).toFixed(2)})`);
    console.log(`  raw IndexedDB puts with durability 'strict' (flushed to disk)   ${result.strict.toFixed(0)}/s  (ratio ${(result.strict / result.raw).toFixed(2)} of relaxed)`);
    console.log(`  of each create's ${result.createMs.toFixed(1)} ms, the page -> worker -> page hop alone (GET /version) takes ${result.hopMs.toFixed(1)} ms`);
    console.log(`  the same create with ?dryRun=All (no write, no watch event) takes ${result.dryRunMs.toFixed(1)} ms`);
    reportFigure({ id: 'workbench.idb.hop', label: 'share of a create through the service worker spent on the page -> worker hop (GET /version)', value: result.hopMs / result.createMs, unit: 'ratio', baseline: `hop ${result.hopMs.toFixed(1)} ms, create ${result.createMs.toFixed(1)} ms` });
    reportFigure({ id: 'workbench.idb.dryRun', label: 'time of a create through the service worker / the same create with ?dryRun=All (the write, commit and watch event)', value: result.createMs / result.dryRunMs, unit: 'ratio', baseline: `create ${result.createMs.toFixed(1)} ms, dry run ${result.dryRunMs.toFixed(1)} ms` });
    reportFigure({ id: 'workbench.idb.strict', label: "raw IndexedDB puts/s with durability 'strict' / 'relaxed' (the worker writes relaxed)", value: result.strict / result.raw, unit: 'ratio', baseline: `strict ${result.strict.toFixed(0)}/s, relaxed ${result.raw.toFixed(0)}/s` });
    reportFigure({ id: 'workbench.idb.creates', label: 'IndexedDB creates/s through the service worker / raw IndexedDB puts of the same records', value: result.kubesim / result.raw, unit: 'ratio', baseline: `worker ${result.kubesim.toFixed(0)}/s, raw ${result.raw.toFixed(0)}/s in the same page` });
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const workbenchOut = await buildWorkbench();
const bare = await buildBarePage();
if (rounds === 0) console.log('rounds=0: page loads skipped');
const workbench = await serve(workbenchOut, root);
const barePage = await serve(bare.outDir, bare.srcDir);
try {
  const results = { workbench: [] as { cold: Load; warm: Load }[], bare: [] as { cold: Load; warm: Load }[] };
  for (let i = 0; i < rounds; i++) {
    // Alternate the order so neither side always runs on a warmer machine.
    const order = i % 2 === 0 ? (['workbench', 'bare'] as const) : (['bare', 'workbench'] as const);
    for (const side of order) {
      results[side].push(side === 'workbench' ? await loads(workbench.url, '[data-testid="namespace-item"]') : await loads(barePage.url, '[data-testid="ready"]'));
    }
  }
  const row = (label: string, pick: (l: { cold: Load; warm: Load }) => number, unit: string, id: string) => {
    const w = median(results.workbench.map(pick));
    const b = median(results.bare.map(pick));
    reportFigure({ id: `workbench.${id}`, label: `${label}, workbench / bare Vite React page (lower is better)`, value: w / b, unit: 'ratio', baseline: `workbench ${w.toFixed(0)} ${unit}, bare ${b.toFixed(0)} ${unit}` });
    console.log(`${label.padEnd(40)} ${`${w.toFixed(0)} ${unit}`.padStart(12)} ${`${b.toFixed(0)} ${unit}`.padStart(12)} ${(w / b).toFixed(2).padStart(8)}`);
  };
  if (rounds > 0) {
    console.log(`${`median of ${rounds} rounds`.padEnd(40)} ${'workbench'.padStart(12)} ${'bare React'.padStart(12)} ${'ratio'.padStart(8)}`);
    row('cold: navigation to first API answer', (l) => l.cold.ms, 'ms', 'cold');
    row('warm: reload to first API answer', (l) => l.warm.ms, 'ms', 'warm');
    row('page JS before the first screen (encoded)', (l) => l.cold.jsBytes / 1024, 'KiB', 'pageJs');
  }
  // The worker's script is fetched by the worker, not the page, each file gzipped as served: at every start it evaluates
  // sw.js and the core chunks; the parts come with the install and run on first use (workerScript.ts). The data files
  // it fetches on first use (schemas, protobuf descriptors) are in neither.
  const kib = (files: { bytes: number; gzipBytes: number }[], key: 'bytes' | 'gzipBytes') => files.reduce((n, f) => n + f[key], 0) / 1024;
  const swFiles = await workerScriptFiles(workbenchOut);
  const installFiles = await workerScriptFiles(workbenchOut, 'install');
  const [swRaw, swGzip, installGzip] = [kib(swFiles, 'bytes'), kib(swFiles, 'gzipBytes'), kib(installFiles, 'gzipBytes')];
  console.log(
    `service worker script before the first answer (not counted above): ${swRaw.toFixed(0)} KiB uncompressed, ${swGzip.toFixed(0)} KiB gzip (sw.js and ${swFiles.length - 1} core chunks); ` +
      `at install ${installGzip.toFixed(0)} KiB gzip with ${installFiles.length - swFiles.length} parts loaded on first use`,
  );
  reportFigure({ id: 'workbench.sw.gzip', label: 'service worker script before the first API answer, gzip', value: swGzip, unit: 'KiB', baseline: `${swRaw.toFixed(0)} KiB uncompressed; sw.js and ${swFiles.length - 1} core chunks` });
  reportFigure({ id: 'workbench.sw.installGzip', label: 'service worker script fetched at install (core and every part), gzip', value: installGzip, unit: 'KiB', baseline: `${installFiles.length - swFiles.length} parts run on first use` });
  await indexedDbCreates(workbench.url, idbCreates);
} finally {
  await workbench.close();
  await barePage.close();
  await rm(workbenchOut, { recursive: true, force: true });
  await rm(bare.outDir, { recursive: true, force: true });
  await rm(bare.srcDir, { recursive: true, force: true });
}
