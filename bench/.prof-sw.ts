import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { buildWorkbench, CHROMIUM, CHROMIUM_ARGS, freePort, root } from '../e2e/support/browser';
const out = process.env.OUT ?? (await buildWorkbench());
console.log('out', out);
const port = await freePort();
const server = await preview({ root, logLevel: 'error', build: { outDir: out }, preview: { host: '127.0.0.1', port, strictPort: true } });
const url = `http://127.0.0.1:${port}/`;
const profile = await mkdtemp(join(tmpdir(), 'p-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'allow' });
const page = context.pages()[0] ?? (await context.newPage());
await page.goto(url);
await page.locator('[data-testid="namespace-item"]').first().waitFor({ timeout: 60_000 });
await page.goto(url + 'api/v1/namespaces/default');
await page.evaluate('globalThis.__name = (f) => f');
const r = await page.evaluate(async () => {
  const path = '/api/v1/namespaces/default/configmaps';
  const out: Record<string, number> = {};
  let t = performance.now();
  for (let i = 0; i < 100; i++) await (await fetch('/api/v1/namespaces/default')).text();
  out.getMs = (performance.now() - t) / 100;
  t = performance.now();
  for (let i = 0; i < 100; i++) await (await fetch('/version')).text();
  out.versionMs = (performance.now() - t) / 100;
  t = performance.now();
  for (let i = 0; i < 100; i++) await (await fetch('/favicon-nonexistent.txt')).text();
  out.networkMs = (performance.now() - t) / 100;
  t = performance.now();
  for (let i = 0; i < 40; i++) {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${i}` }, data: { a: 'x' } }) });
    await res.text();
  }
  out.createMs = (performance.now() - t) / 40;
  t = performance.now();
  for (let i = 0; i < 40; i++) {
    const res = await fetch(path + '?dryRun=All', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `d-${i}` }, data: { a: 'x' } }) });
    await res.text();
  }
  out.dryRunCreateMs = (performance.now() - t) / 40;
  return out;
});
console.log(r);
const sw = context.serviceWorkers()[0]!;
await sw.evaluate('globalThis.__name = (f) => f');
const r2 = await sw.evaluate(async () => {
  const open = (name: string) => new Promise<IDBDatabase>((resolve, reject) => {
    const o = indexedDB.open(name, 1);
    o.onupgradeneeded = () => {
      o.result.createObjectStore('meta');
      o.result.createObjectStore('log', { keyPath: 'revision' }).createIndex('byKey', ['key', 'revision']);
      o.result.createObjectStore('objects', { keyPath: 'key' });
    };
    o.onsuccess = () => resolve(o.result);
    o.onerror = () => reject(o.error);
  });
  const req = <T,>(r: IDBRequest<T>) => new Promise<T>((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const write = async (db: IDBDatabase, i: number, read: boolean) => {
    const tx = db.transaction(['meta', 'log', 'objects'], 'readwrite');
    const done = new Promise<void>((res, rej) => { tx.oncomplete = () => res(); tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
    const key = 'k' + i + '-' + Math.random();
    let rev = i + 1;
    if (read) { const [m] = await Promise.all([req(tx.objectStore('meta').get('revision')), req(tx.objectStore('objects').get(key))]); rev = ((m as number) ?? 0) + 1; }
    tx.objectStore('log').add({ revision: rev, key, value: 'x'.repeat(600), createRevision: rev, prevRevision: 0, created: true, deleted: false });
    tx.objectStore('objects').put({ key, value: 'x'.repeat(600), createRevision: rev, modRevision: rev });
    tx.objectStore('meta').put(rev, 'revision');
    await done;
  };
  const out: Record<string, number> = {};
  const db = await new Promise<IDBDatabase>((resolve, reject) => { const o = indexedDB.open('kubesim'); o.onsuccess = () => resolve(o.result); o.onerror = () => reject(o.error); });
  const counts = await new Promise<number>((res) => { const r = db.transaction('log').objectStore('log').count(); r.onsuccess = () => res(r.result); });
  (out as any).logEntries = counts;
  let t = performance.now();
  for (let i = 0; i < 40; i++) await write(db, 1e6 + i, false);
  out.noReadMs = (performance.now() - t) / 40;
  t = performance.now();
  for (let i = 0; i < 40; i++) await write(db, 0, true);
  out.readThenWriteMs = (performance.now() - t) / 40;
  return out;
});
console.log('in sw', r2);
await context.close(); await server.close(); await rm(profile, { recursive: true, force: true });
