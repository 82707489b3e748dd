/**
 * Server-side apply benchmark: a Deployment with 50 containers of 20 env
 * vars each, applied by two managers in turn (each changes its own half of
 * the env values, so every apply changes the object and keeps both entries).
 * Three sides run interleaved, rotating order each round:
 *
 * - library: `FieldManager.apply` alone (what the apply handler calls);
 * - http: the same applies as `PATCH application/apply-patch+yaml` through
 *   `createApiServer({ storage: createMemoryStorage() }).handle(...)`, so
 *   routing, decoding, defaulting, validation, storage and encoding count
 *   (the deployment and ReplicaSet controllers off: no rollout per apply);
 * - floor: JSON parse + stringify of the stored object (the least any write
 *   of it costs).
 *
 * Inputs are built before each timed batch. Machines are shared and noisy:
 * compare the ratios to the floor (lower is better), not the ms; the CPU-time
 * columns (process.cpuUsage, all threads) move less with other load.
 *
 * Run: npx tsx bench/apply.bench.ts [iterations=20] [rounds=7]
 */
import { createApiServer, createMemoryStorage } from '../src/core';
import { newFieldManager } from '../src/core/fieldmanager';
import type { JsonObject } from '../src/core/fieldmanager/value';
import { registryBundle } from '../src/core/registry';
import { rawApiControllers } from '../src/core/testing/client';
import { reportFigure } from './figures';

const iterations = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 7);
const NAME = 'big';

function deployment(manager: number, round: number): JsonObject {
  const containers = Array.from({ length: 50 }, (_, c) => ({
    name: `c${c}`,
    image: `registry.example/app:${c}`,
    env: Array.from({ length: 20 }, (_, e) => ({
      name: `VAR_${manager}_${e}`,
      value: `value-${c}-${e}-${round}`,
    })),
  }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME, namespace: 'default', labels: { app: 'big' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers } },
    },
  };
}

// Every apply gets a fresh round number, so every apply changes the object.
let nextRound = 1;
function inputs(): { manager: string; obj: JsonObject }[] {
  return Array.from({ length: iterations }, (_, i) => ({ manager: `manager-${i % 2}`, obj: deployment(i % 2, nextRound++) }));
}

// --- library side
const fm = newFieldManager({
  apiVersion: 'apps/v1',
  schema: registryBundle.definitions['io.k8s.api.apps.v1.Deployment'],
  definitions: registryBundle.definitions,
  now: () => new Date(Date.UTC(2025, 0, 1)),
});
let live: JsonObject | undefined;
function libraryApply(manager: string, obj: JsonObject, force = false): void {
  const r = fm.apply(live, obj, manager, force);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  live = r.object;
}
for (const m of [0, 1]) libraryApply(`manager-${m}`, deployment(m, 0), true);

// --- http side
// Without the deployment and ReplicaSet controllers: every apply changes the pod template, and a
// rollout (a new ReplicaSet of 50 containers and its Pods) per apply is not the request being measured.
const api = createApiServer({ storage: createMemoryStorage(), controllers: rawApiControllers });
await api.ready;
const url = (manager: string) =>
  `http://localhost/apis/apps/v1/namespaces/default/deployments/${NAME}?fieldManager=${manager}&force=true`;
async function httpApply(manager: string, body: string): Promise<string> {
  const res = await api.handle(
    new Request(url(manager), { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, body }),
  );
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`apply: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return text;
}
for (const m of [0, 1]) await httpApply(`manager-${m}`, JSON.stringify(deployment(m, 0)));

// --- floor
const storedText = await httpApply('manager-0', JSON.stringify(deployment(0, 0)));

type Side = 'library' | 'http' | 'floor';
type Batch = () => Promise<void>;
const sides: Record<Side, () => Batch> = {
  library() {
    const batch = inputs();
    return async () => {
      for (const { manager, obj } of batch) libraryApply(manager, obj);
    };
  },
  http() {
    const bodies = inputs().map(({ manager, obj }) => ({ manager, body: JSON.stringify(obj) }));
    return async () => {
      for (const { manager, body } of bodies) await httpApply(manager, body);
    };
  },
  floor() {
    return async () => {
      for (let i = 0; i < iterations; i++) JSON.stringify(JSON.parse(storedText));
    };
  },
};

/** Wall and CPU milliseconds per operation (CPU time is steadier on a busy machine). */
async function time(batch: Batch): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await batch();
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  return { wall: wall / iterations, cpu: (cpu.user + cpu.system) / 1000 / iterations };
}

const order: Side[] = ['library', 'http', 'floor'];
const results: Record<Side, { wall: number[]; cpu: number[] }> = {
  library: { wall: [], cpu: [] },
  http: { wall: [], cpu: [] },
  floor: { wall: [], cpu: [] },
};
for (let round = 0; round <= rounds; round++) {
  for (let k = 0; k < order.length; k++) {
    const side = order[(k + round) % order.length];
    const t = await time(sides[side]());
    if (round === 0) continue; // warm-up
    results[side].wall.push(t.wall);
    results[side].cpu.push(t.cpu);
  }
}
await api.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = { wall: median(results.floor.wall), cpu: median(results.floor.cpu) };

console.log(
  `server-side apply, Deployment 50 containers x 20 env, 2 managers alternating ` +
    `(${(storedText.length / 1024).toFixed(0)} KiB stored object); median of ${rounds} rounds of ${iterations} after a warm-up`,
);
console.log('  side        wall ms/op   ops/s   x floor (wall)   cpu ms/op   x floor (cpu)');
for (const side of order) {
  const wall = median(results[side].wall);
  const cpu = median(results[side].cpu);
  if (side !== 'floor') reportFigure({ id: `apply.${side}.floor`, label: `server-side apply through the ${side === 'library' ? 'field manager alone' : side === 'http' ? 'PATCH through handle()' : 'floor'}, CPU x floor (lower is better)`, value: cpu / floor.cpu, unit: 'x floor', baseline: `floor (JSON.parse + JSON.stringify of the object) ${floor.cpu.toFixed(2)} ms/op; ${side} ${cpu.toFixed(2)} ms/op` });
  console.log(
    `  ${side.padEnd(9)} ${wall.toFixed(2).padStart(11)} ${(1000 / wall).toFixed(1).padStart(7)} ${(wall / floor.wall).toFixed(1).padStart(15)}x` +
      ` ${cpu.toFixed(2).padStart(11)} ${(cpu / floor.cpu).toFixed(1).padStart(14)}x`,
  );
}
