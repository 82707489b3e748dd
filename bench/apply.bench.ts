/**
 * Server-side apply benchmark: a Deployment with 50 containers of 20 env
 * vars each, applied by two managers in turn (each changes its own half of
 * the env values, so every apply changes the object and keeps both entries),
 * through the field manager library. Baseline run beside it: JSON parse +
 * stringify of the same object; the ratio is apply time over baseline.
 *
 * Run: npx tsx bench/apply.bench.ts [iterations]
 */
import { newFieldManager } from '../src/core/fieldmanager';
import { registryBundle } from '../src/core/registry';
import type { JsonObject } from '../src/core/fieldmanager/value';

const iterations = Number(process.argv[2] ?? 50);

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
    metadata: { name: 'big', namespace: 'default', labels: { app: 'big' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers } },
    },
  };
}

const fm = newFieldManager({
  apiVersion: 'apps/v1',
  schema: registryBundle.definitions['io.k8s.api.apps.v1.Deployment'],
  definitions: registryBundle.definitions,
  now: () => new Date(Date.UTC(2025, 0, 1)),
});

let live: JsonObject | undefined;
for (const m of [0, 1]) {
  const r = fm.apply(live, deployment(m, 0), `manager-${m}`, true);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  live = r.object;
}

/** Milliseconds per call, best of 5 rounds after a warm-up round. */
function measure(fn: (i: number) => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 6; round++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn(i);
    const ms = (performance.now() - start) / iterations;
    if (round > 0) best = Math.min(best, ms);
  }
  return best;
}

const applied = [deployment(0, 1), deployment(1, 1)];
let round = 1;
const applyMs = measure((i) => {
  const m = i % 2;
  round++;
  const r = fm.apply(live, deployment(m, round), `manager-${m}`);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  live = r.object;
});
const text = JSON.stringify(live);
const baselineMs = measure(() => JSON.stringify(JSON.parse(text)));
void applied;

console.log(`server-side apply, Deployment 50 containers x 20 env, 2 managers alternating (${(text.length / 1024).toFixed(0)} KiB object)`);
console.log(`  apply:                  ${applyMs.toFixed(2)} ms/op  (${(1000 / applyMs).toFixed(1)} applies/s)`);
console.log(`  JSON parse+stringify:   ${baselineMs.toFixed(3)} ms/op`);
console.log(`  ratio apply/baseline:   ${(applyMs / baselineMs).toFixed(1)}x`);
