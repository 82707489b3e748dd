/**
 * Storage micro-benchmark: creates per second and a full range over 2,000
 * keys, for the memory and SQLite backends, each beside a bare Map doing the
 * same work (set loop; get loop over sorted keys) as a ratio, so the numbers
 * say what the storage semantics cost rather than how fast this machine is.
 *
 * SQLite runs with synchronous=FULL, so its creates include one fsync each.
 * What durability costs is shown beside raw better-sqlite3: the same pragmas
 * (exclusive lock, WAL, synchronous=FULL), one transaction per insert of the
 * same bytes into a table with the same key index, the least any durable
 * SQLite store must do. ConfigMap creates through `handle()` on the SQLite
 * backend are compared with it too.
 *
 * Run: npx tsx bench/storage.bench.ts [keys]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { createApiServer } from '../src/core';
import { createMemoryStorage, type Storage } from '../src/core/storage';
import { createSqliteStorage } from '../server/storage';
import { reportFigure } from './figures';

export interface StorageBenchRow {
  backend: string;
  operation: string;
  /** Operations per second for the backend. */
  perSecond: number;
  /** Operations per second for the bare Map doing the same work. */
  mapPerSecond: number;
  /** How many times slower than the Map the backend is. */
  ratio: number;
}

const value = JSON.stringify({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'default', uid: '00000000-0000-0000-0000-000000000000' },
  data: { key: 'x'.repeat(256) },
});

function keyOf(i: number): string {
  return `/registry/configmaps/default/cm-${String(i).padStart(6, '0')}`;
}

/** Seconds taken by fn. */
async function time(fn: () => Promise<void> | void): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

/** Bare-Map baselines: n sets, and a get of every key in sorted order. */
async function mapBaseline(n: number, rangeRounds: number): Promise<{ createsPerSecond: number; rangesPerSecond: number }> {
  let map = new Map<string, string>();
  const createSeconds = await time(() => {
    map = new Map();
    for (let i = 0; i < n; i++) map.set(keyOf(i), value);
  });
  const keys = [...map.keys()].sort();
  let sink = 0;
  const rangeSeconds = await time(() => {
    for (let r = 0; r < rangeRounds; r++) {
      const out: string[] = [];
      for (const k of keys) out.push(map.get(k)!);
      sink += out.length;
    }
  });
  if (sink !== keys.length * rangeRounds) throw new Error('baseline miscounted');
  return { createsPerSecond: n / createSeconds, rangesPerSecond: rangeRounds / rangeSeconds };
}

async function benchBackend(
  name: string,
  open: () => Promise<Storage>,
  n: number,
  rangeRounds: number,
): Promise<{ name: string; createsPerSecond: number; rangesPerSecond: number }> {
  const storage = await open();
  try {
    const createSeconds = await time(async () => {
      for (let i = 0; i < n; i++) await storage.create(keyOf(i), value);
    });
    const rangeSeconds = await time(async () => {
      for (let r = 0; r < rangeRounds; r++) {
        const result = await storage.range('/registry/configmaps/');
        if (result.count !== n) throw new Error(`${name}: range returned ${result.count} of ${n}`);
      }
    });
    return { name, createsPerSecond: n / createSeconds, rangesPerSecond: rangeRounds / rangeSeconds };
  } finally {
    await storage.close();
  }
}

/**
 * Durable creates/s three ways, interleaved in batches so disk contention on
 * a shared machine falls on all alike: raw better-sqlite3 inserts with the
 * SQLite backend's durability settings, the backend's creates, and ConfigMap
 * creates through handle() on it.
 */
export async function benchDurable(n = 1000, batch = 50): Promise<{ raw: number; storage: number; api: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-bench-durable-'));
  const db = new Database(join(dir, 'raw.db'));
  const storage = createSqliteStorage(join(dir, 'storage.db'));
  const api = createApiServer({ storage: createSqliteStorage(join(dir, 'api.db')) });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL); CREATE INDEX kv_name_id ON kv (name, id);');
    const insert = db.prepare<[number, string, string]>('INSERT INTO kv (id, name, value) VALUES (?, ?, ?)');
    await api.ready;
    const sides = {
      // One autocommit transaction (one fsync) per insert, as each create commits on its own.
      raw: async (i: number) => void insert.run(i + 1, keyOf(i), value),
      storage: async (i: number) => void (await storage.create(keyOf(i), value)),
      api: async (i: number) => {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'x'.repeat(256) } });
        const res = await api.handle(new Request('http://127.0.0.1/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
        if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      },
    };
    const ms = { raw: 0, storage: 0, api: 0 };
    for (let from = 0; from < n; from += batch) {
      for (const side of ['raw', 'storage', 'api'] as const) {
        const start = performance.now();
        for (let i = from; i < Math.min(n, from + batch); i++) await sides[side](i);
        ms[side] += performance.now() - start;
      }
    }
    return { raw: (n / ms.raw) * 1000, storage: (n / ms.storage) * 1000, api: (n / ms.api) * 1000 };
  } finally {
    db.close();
    await storage.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStorage(n = 2000, rangeRounds = 50): Promise<StorageBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-bench-'));
  try {
    // One warm-up pass each so JIT and page cache do not skew the first backend.
    await mapBaseline(n, 2);
    await benchBackend('warmup', async () => createMemoryStorage(), n, 2);
    const baseline = await mapBaseline(n, rangeRounds);
    const backends = [
      await benchBackend('memory', async () => createMemoryStorage(), n, rangeRounds),
      await benchBackend('sqlite', async () => createSqliteStorage(join(dir, 'bench.db')), n, rangeRounds),
    ];
    return backends.flatMap((b) => [
      row(b.name, `create (${n} keys)`, b.createsPerSecond, baseline.createsPerSecond),
      row(b.name, `range of ${n} keys`, b.rangesPerSecond, baseline.rangesPerSecond),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function row(backend: string, operation: string, perSecond: number, mapPerSecond: number): StorageBenchRow {
  return { backend, operation, perSecond, mapPerSecond, ratio: mapPerSecond / perSecond };
}

function format(rows: StorageBenchRow[]): string {
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
  const lines = [['backend', 'operation', 'ops/s', 'Map ops/s', 'x slower than Map']];
  for (const r of rows) lines.push([r.backend, r.operation, fmt(r.perSecond), fmt(r.mapPerSecond), r.ratio.toFixed(1)]);
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  return lines.map((l) => l.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.argv[2] ?? 2000);
  const rows = await benchStorage(n);
  console.log(format(rows));
  const durable = await benchDurable(Math.min(n, 1000));
  const f = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`\ndurable creates (synchronous=FULL, WAL, one commit each), interleaved in batches of 50:`);
  console.log(`  raw better-sqlite3 inserts   ${f(durable.raw)}/s`);
  console.log(`  SQLite storage creates       ${f(durable.storage)}/s  (${(durable.storage / durable.raw).toFixed(2)} of raw)`);
  console.log(`  ConfigMap creates, handle()  ${f(durable.api)}/s  (${(durable.api / durable.raw).toFixed(2)} of raw)`);
  reportFigure({ id: 'storage.sqlite.storage', label: 'SQLite storage durable creates/s / raw better-sqlite3 inserts/s (same pragmas)', value: durable.storage / durable.raw, unit: 'ratio', baseline: `raw ${f(durable.raw)} inserts/s; storage ${f(durable.storage)} creates/s` });
  reportFigure({ id: 'storage.sqlite.api', label: 'ConfigMap creates/s through handle() on SQLite / raw better-sqlite3 inserts/s', value: durable.api / durable.raw, unit: 'ratio', baseline: `handle() ${f(durable.api)} creates/s` });
  for (const r of rows) reportFigure({ id: `storage.${r.backend}.${r.operation.split(' ')[0]}`, label: `${r.backend} ${r.operation}, x slower than a bare Map (lower is better)`, value: r.ratio, unit: 'x Map', baseline: `Map ${f(r.mapPerSecond)}/s, ${r.backend} ${f(r.perSecond)}/s` });
}
