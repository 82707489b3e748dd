/**
 * Storage micro-benchmark: creates per second and a full range over 2,000
 * keys, for the memory and SQLite backends, each beside a bare Map doing the
 * same work (set loop; get loop over sorted keys) as a ratio, so the numbers
 * say what the storage semantics cost rather than how fast this machine is.
 *
 * SQLite runs with synchronous=FULL, so its creates include one fsync each.
 *
 * Run: npx tsx bench/storage.bench.ts [keys]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemoryStorage, type Storage } from '../src/core/storage';
import { createSqliteStorage } from '../server/storage';

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
  console.log(format(await benchStorage(n)));
}
