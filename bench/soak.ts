/**
 * The soak loop shared by bench/soak.bench.ts (15 minutes, 100 watchers) and
 * e2e/reliability.soak.test.ts (a minute, fewer watchers): watchers over HTTP
 * on one collection while one client patches a fixed set of ConfigMaps at a
 * steady rate. It reports the heap after GC once warm-up ends and at the end,
 * write latency percentiles at the start and at the end, and whether every
 * watcher received every write.
 */
import { Agent, request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface SoakOptions {
  /** Base URL of a running host. */
  url: string;
  watchers: number;
  writesPerSecond: number;
  /** Objects the writes go round. */
  objects: number;
  warmupMs: number;
  /** Total run time, warm-up included. */
  durationMs: number;
  log?: (line: string) => void;
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  samples: number;
}

export interface SoakResult {
  watchers: number;
  writes: number;
  eventsExpected: number;
  eventsDelivered: number;
  eventsLost: number;
  heapAfterWarmupBytes: number;
  heapAtEndBytes: number;
  /** (end - warm-up) / warm-up. */
  heapGrowth: number;
  latencyStartMs: Percentiles;
  latencyEndMs: Percentiles;
  durationMs: number;
}

/** The global gc(), exposed at run time when the process was started without --expose-gc. */
export function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function heapAfterGc(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), samples: sorted.length };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const gc = exposeGc();
  const log = options.log ?? (() => undefined);
  const base = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const ns = `soak-${Date.now().toString(36)}`;
  const collection = `/api/v1/namespaces/${ns}/configmaps`;

  const send = (method: string, path: string, body: unknown, type = 'application/json') =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const r = request({ host: base.hostname, port: base.port, method, path, agent, headers: { 'content-type': type } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      r.on('error', reject);
      r.end(JSON.stringify(body));
    });

  if ((await send('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status !== 201) throw new Error('cannot create the soak namespace');
  let rv = '';
  for (let i = 0; i < options.objects; i++) {
    const r = await send('POST', collection, { metadata: { name: `cm-${i}` }, data: { n: '0' } });
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
    rv = (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  }

  // Watchers from the last create on: each counts the events it is sent, keeping nothing else.
  const counts = new Array<number>(options.watchers).fill(0);
  const watches = await Promise.all(
    counts.map(
      (_, w) =>
        new Promise<{ destroy(): void }>((resolve, reject) => {
          const r = request({ host: base.hostname, port: base.port, path: `${collection}?watch=1&resourceVersion=${rv}`, agent: false }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`watch ${w}: ${res.statusCode}`));
            res.setEncoding('utf8');
            let rest = '';
            res.on('data', (d: string) => {
              const lines = (rest + d).split('\n');
              rest = lines.pop()!;
              for (const line of lines) if (line.startsWith('{"type":"MODIFIED"')) counts[w]!++;
            });
            res.on('error', () => undefined);
            resolve(r);
          });
          r.on('error', () => undefined);
          r.end();
        }),
    ),
  );

  const start = performance.now();
  // Two arrays of plain numbers (8 bytes a write, unboxed), not an object per write: the heap measured is the server's too.
  const latencyAt: number[] = [];
  const latencyMs: number[] = [];
  let writes = 0;
  let heapAfterWarmup = 0;
  let nextLog = start + 60_000;
  while (performance.now() - start < options.durationMs) {
    const due = start + (writes * 1000) / options.writesPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    const r = await send('PATCH', `${collection}/cm-${writes % options.objects}`, { data: { n: String(writes + 1) } }, 'application/merge-patch+json');
    if (r.status !== 200) throw new Error(`patch: ${r.status} ${r.body}`);
    latencyAt.push(t0 - start);
    latencyMs.push(performance.now() - t0);
    writes++;
    if (!heapAfterWarmup && performance.now() - start >= options.warmupMs) {
      heapAfterWarmup = heapAfterGc(gc);
      log(`warm-up done after ${writes} writes: heap ${(heapAfterWarmup / 1048576).toFixed(1)} MiB`);
    }
    if (performance.now() >= nextLog) {
      nextLog += 60_000;
      log(`${Math.round((performance.now() - start) / 1000)} s: ${writes} writes, heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(1)} MiB`);
    }
  }
  // Every watcher gets every write; the run is over once they all have, or once delivery stops moving for 30 s.
  let last = -1;
  let stalledSince = performance.now();
  for (;;) {
    const delivered = counts.reduce((a, b) => a + b, 0);
    if (delivered >= writes * options.watchers) break;
    if (delivered !== last) {
      last = delivered;
      stalledSince = performance.now();
    } else if (performance.now() - stalledSince > 30_000) break;
    await sleep(50);
  }
  const heapAtEnd = heapAfterGc(gc);
  for (const w of watches) w.destroy();
  agent.destroy();

  const windowMs = Math.min(options.warmupMs, (options.durationMs - options.warmupMs) / 2);
  const delivered = counts.reduce((a, b) => a + b, 0);
  return {
    watchers: options.watchers,
    writes,
    eventsExpected: writes * options.watchers,
    eventsDelivered: delivered,
    eventsLost: writes * options.watchers - delivered,
    heapAfterWarmupBytes: heapAfterWarmup,
    heapAtEndBytes: heapAtEnd,
    heapGrowth: (heapAtEnd - heapAfterWarmup) / heapAfterWarmup,
    latencyStartMs: percentiles(latencyMs.filter((_, i) => latencyAt[i]! >= options.warmupMs && latencyAt[i]! < options.warmupMs + windowMs)),
    latencyEndMs: percentiles(latencyMs.filter((_, i) => latencyAt[i]! >= options.durationMs - windowMs)),
    durationMs: Math.round(performance.now() - start),
  };
}
