/**
 * The soak of bench/soak.bench.ts for one minute: watchers over HTTP on the
 * Node host while one client patches ConfigMaps at a steady rate. Every
 * watcher receives every write, and the heap after GC at the end is within
 * 10% of the heap after warm-up. The history window is 10 s
 * (--etcd-compaction-interval), so retained history is at its size by the end
 * of warm-up. KUBESIM_SOAK_SECONDS and KUBESIM_SOAK_WATCHERS set the size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSoak } from '../bench/soak';
import { startTestHost, type TestHost } from './support/host';
import { recordFigures } from './support/reliability';

const SECONDS = Number(process.env.KUBESIM_SOAK_SECONDS ?? 60);
const WATCHERS = Number(process.env.KUBESIM_SOAK_WATCHERS ?? 20);
const WRITES_PER_SECOND = 10;

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { etcdCompactionIntervalMs: 10_000 } });
});
afterAll(async () => {
  await t?.stop();
});

describe('soak', () => {
  it(`${WATCHERS} watchers and ${WRITES_PER_SECOND} writes/s for ${SECONDS} s: no event lost, heap after GC within 10% of warm-up`, async () => {
    const r = await runSoak({ url: t.host.url, watchers: WATCHERS, writesPerSecond: WRITES_PER_SECOND, objects: 50, warmupMs: (SECONDS * 1000) / 3, durationMs: SECONDS * 1000 });
    recordFigures('soak', { ...r }, `KUBESIM_SOAK_SECONDS=${SECONDS} KUBESIM_SOAK_WATCHERS=${WATCHERS} npx vitest run --project e2e e2e/reliability.soak.test.ts`);
    expect(r.eventsLost).toBe(0);
    expect(r.eventsDelivered).toBe(r.writes * WATCHERS);
    expect(r.heapGrowth).toBeLessThanOrEqual(0.1);
  }, SECONDS * 1000 + 120_000);
});
