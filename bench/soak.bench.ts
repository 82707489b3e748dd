/**
 * Soak: 100 watchers over HTTP on the Node host while one client patches
 * ConfigMaps at a steady rate, for 15 minutes, then stops by itself. Prints
 * the heap after GC once the 2-minute warm-up ends and at the end (growth
 * should stay within 10%), write latency percentiles at the start and at the
 * end, and events lost (0). The history window is 1 minute
 * (--etcd-compaction-interval), so retained history stops growing early.
 *
 * Run: npx tsx bench/soak.bench.ts [minutes=15] [watchers=100] [writesPerSecond=20]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../server/host';
import { runSoak } from './soak';

const minutes = Number(process.argv[2] ?? 15);
const watchers = Number(process.argv[3] ?? 100);
const writesPerSecond = Number(process.argv[4] ?? 20);

const dataDir = mkdtempSync(join(tmpdir(), 'kubesim-soak-'));
const host = await startHost({ port: 0, bindAddress: '127.0.0.1', dataDir, store: 'memory', tls: false, securePort: 0, help: false, etcdCompactionIntervalMs: 60_000 });
try {
  const r = await runSoak({
    url: host.url,
    watchers,
    writesPerSecond,
    objects: 200,
    warmupMs: Math.min(120_000, (minutes * 60_000) / 4),
    durationMs: minutes * 60_000,
    log: (line) => console.log(line),
  });
  const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
  console.log(`\n${r.watchers} watchers, ${r.writes} writes in ${(r.durationMs / 60_000).toFixed(1)} min`);
  console.log(`heap after GC: ${mib(r.heapAfterWarmupBytes)} after warm-up, ${mib(r.heapAtEndBytes)} at the end (${(r.heapGrowth * 100).toFixed(1)}%)`);
  console.log(`write latency ms   p50    p90    p99`);
  console.log(`  start          ${String(r.latencyStartMs.p50).padStart(6)} ${String(r.latencyStartMs.p90).padStart(6)} ${String(r.latencyStartMs.p99).padStart(6)}`);
  console.log(`  end            ${String(r.latencyEndMs.p50).padStart(6)} ${String(r.latencyEndMs.p90).padStart(6)} ${String(r.latencyEndMs.p99).padStart(6)}`);
  console.log(`events: ${r.eventsDelivered} of ${r.eventsExpected} delivered, ${r.eventsLost} lost`);
  // The figures for scripts/reliability-report.ts, beside the tests' own.
  const dir = process.env.KUBESIM_RELIABILITY_DIR ?? join(import.meta.dirname, '..', 'build', 'reliability');
  mkdirSync(dir, { recursive: true });
  const command = `npx tsx bench/soak.bench.ts ${minutes} ${watchers} ${writesPerSecond}`;
  writeFileSync(join(dir, 'soak-bench.json'), JSON.stringify({ name: 'soak-bench', date: new Date().toISOString(), command, ...r }, null, 2) + '\n');
  if (r.eventsLost !== 0 || r.heapGrowth > 0.1) process.exitCode = 1;
} finally {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
}
