/**
 * The etcd backend's cost over etcd itself: ConfigMap creates per second
 * through the backend (protobuf encoding, a transaction guarded by a
 * create-revision compare) and through the whole API server on top of it
 * (`api.handle` POSTs over an etcd-backed server), against raw etcd puts of
 * the same bytes with the same client, in one run. Printed as ratios, one
 * request at a time and with 16 in flight. Goal: the machinery costs at most
 * half, i.e. backend creates/s at least 0.5 of raw puts/s. Three rounds, the
 * order of the sides rotating, the median round per side.
 *
 * Starts its own etcd (Debian's etcd-server) on free loopback ports.
 *
 * Run: npx tsx bench/etcd.bench.ts [creates=1000]
 */
import { pathToFileURL } from 'node:url';
import { createApiServer } from '../src/core';
import { createEtcdStorage, etcdClient, etcdValueCodec, EtcdKeyLayout } from '../server/storage';
import { etcdAvailable, etcdMissing, startTestEtcd } from '../server/storage/testing/etcdServer';

export interface EtcdBenchRow {
  side: string;
  inFlight: number;
  perSecond: number;
  /** perSecond / raw puts per second: 1 means free, 0.5 the goal's bound. */
  ofRaw: number;
}

function storedConfigMap(name: string): string {
  return JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: 'default', uid: '6a1f4a52-7c8e-4d8e-9a43-2f1c0e5b7d10', resourceVersion: '', creationTimestamp: '2026-01-01T00:00:00Z' },
    data: { key: 'x'.repeat(256) },
  });
}

/** Runs n tasks with at most `inFlight` at once; creates per second. */
async function rate(n: number, inFlight: number, task: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

export async function benchEtcd(n: number): Promise<EtcdBenchRow[]> {
  const etcd = await startTestEtcd();
  const client = etcdClient({ servers: [etcd.endpoint] });
  try {
    const codec = etcdValueCodec();
    const rows: EtcdBenchRow[] = [];
    for (const inFlight of [1, 16]) {
      const run = `${inFlight}-${Date.now()}`;
      const storage = createEtcdStorage({ client, layout: new EtcdKeyLayout(`/bench-${run}`) });
      const api = createApiServer({ storage: createEtcdStorage({ client, layout: new EtcdKeyLayout(`/bench-api-${run}`) }) });
      await api.ready;
      // Warm up every side (connection, JIT) before timing.
      for (let i = 0; i < 50; i++) {
        await client.kv.put({ key: Buffer.from(`/warm-${run}/${i}`), value: Buffer.from(codec.encode(storedConfigMap(`w${i}`))) });
        await storage.create(`/registry/configmaps/warm/w${i}`, storedConfigMap(`w${i}`));
      }
      const rounds = 3;
      const sides = (round: number): Array<[string, (i: number) => Promise<unknown>]> => {
        const values = Array.from({ length: n }, (_, i) => storedConfigMap(`cm-${round}-${i}`));
        // Raw puts write exactly the bytes the backend writes for the same value.
        const bytes = values.map((v) => Buffer.from(codec.encode(v)));
        return [
          ['raw etcd put', (i) => client.kv.put({ key: Buffer.from(`/raw-${run}/configmaps/default/cm-${round}-${i}`), value: bytes[i]! })],
          ['etcd backend create', (i) => storage.create(`/registry/configmaps/default/cm-${round}-${i}`, values[i]!)],
          ['API server POST', (i) => api.handle(new Request('http://kubesim/api/v1/namespaces/default/configmaps', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${round}-${i}` }, data: { key: 'x'.repeat(256) } }),
          })).then(async (res) => {
            if (res.status !== 201) throw new Error(`POST: ${res.status} ${await res.text()}`);
          })],
        ];
      };
      // Rounds rotate the order of the sides; the median round counts.
      const measured = new Map<string, number[]>();
      for (let round = 0; round < rounds; round++) {
        const order = sides(round);
        for (let k = 0; k < order.length; k++) {
          const [side, task] = order[(k + round) % order.length]!;
          measured.set(side, [...(measured.get(side) ?? []), await rate(n, inFlight, task)]);
        }
      }
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      const raw = median(measured.get('raw etcd put')!);
      for (const [side, rates] of measured) rows.push({ side, inFlight, perSecond: median(rates), ofRaw: median(rates) / raw });
      await api.close();
    }
    return rows;
  } finally {
    client.close();
    await etcd.stop();
  }
}

function format(rows: EtcdBenchRow[]): string {
  const lines = [['side', 'in flight', 'creates/s', 'of raw puts']];
  for (const r of rows) lines.push([r.side, String(r.inFlight), Math.round(r.perSecond).toLocaleString('en-US'), r.ofRaw.toFixed(2)]);
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  return lines.map((l) => l.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!etcdAvailable()) {
    console.log(`etcd bench: ${etcdMissing}`);
  } else {
    const n = Number(process.argv[2] ?? 1000);
    console.log(format(await benchEtcd(n)));
  }
}
