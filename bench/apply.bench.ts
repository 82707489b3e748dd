/**
 * Server-side apply benchmark, beside the real structured-merge-diff: the
 * object of the shared Go baseline's ssa-bench (a Deployment of 50
 * containers x 20 env vars, each container with image, args, one port and
 * resource requests; 51,801 bytes of JSON, 3,508 paths in its field set),
 * in its `force` scenario: alice and bob apply it in turn with every env
 * value new and force=true, so 1,000 values change owner on every apply.
 * Four sides run interleaved, rotating order each round:
 *
 * - go: `merge.Updater.Apply` of sigs.k8s.io/structured-merge-diff 4.1.2
 *   with typed conversion of the applied object (ssa-bench's apply+parse),
 *   in a Go child process (bench/smdBaseline.ts installs, builds and runs it);
 * - library: kubesim's `FieldManager.apply` alone (what the apply handler
 *   calls; it also decodes and encodes managedFields, which Go's does not);
 * - http: the same applies as `PATCH application/apply-patch+yaml` through
 *   `createApiServer({ storage: createMemoryStorage() }).handle(...)`, so
 *   routing, decoding, defaulting, validation, storage and encoding count
 *   (the deployment and ReplicaSet controllers off: no rollout per apply);
 * - floor: JSON parse + stringify of the stored object (the least any write
 *   of it costs).
 *
 * Inputs are built before each timed batch. Both languages are compared on
 * CPU time of the whole process over the batch (garbage collector threads
 * included): the machine is shared, and CPU time moves less with its load
 * than wall time does.
 *
 * Run: npx tsx bench/apply.bench.ts [iterations=20] [rounds=7]
 */
import { createApiServer, createMemoryStorage } from '../src/core';
import { newFieldManager } from '../src/core/fieldmanager';
import { Schema } from '../src/core/fieldmanager/schema';
import { toFieldSet } from '../src/core/fieldmanager/typed';
import type { JsonObject } from '../src/core/fieldmanager/value';
import { registryBundle } from '../src/core/registry';
import { rawApiControllers } from '../src/core/testing/client';
import { reportFigure } from './figures';
import { startGoApplyBench } from './smdBaseline';

const iterations = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 7);
const NAME = 'big';
const MANAGERS = ['alice', 'bob'];
const pad = (n: number) => String(n).padStart(2, '0');

/** ssa-bench's generator (bench/smd/main.go), value for value. */
function deployment(tag: string): JsonObject {
  const containers = Array.from({ length: 50 }, (_, c) => ({
    name: `c${pad(c)}`,
    image: `registry.example/app-${pad(c)}:1.0`,
    args: ['--port', String(8000 + c)],
    env: Array.from({ length: 20 }, (_, e) => ({ name: `ENV_${pad(e)}`, value: `value-${c}-${e}-${tag}` })),
    ports: [{ containerPort: 8000 + c, protocol: 'TCP', name: `p${pad(c)}` }],
    resources: { requests: { cpu: '100m', memory: '64Mi' } },
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

// Every apply gets a fresh tag, so every apply changes all 1,000 env values.
let nextTag = 1;
function inputs(): { manager: string; obj: JsonObject }[] {
  return Array.from({ length: iterations }, (_, i) => ({ manager: MANAGERS[i % 2], obj: deployment(String(nextTag++)) }));
}

// --- go side
const go = await startGoApplyBench();
if ('unavailable' in go) console.log(`Go structured-merge-diff side not run: ${go.unavailable}`);
else {
  // The same object on both sides: same JSON size, same number of field paths.
  const schema = new Schema(registryBundle.definitions);
  const root = schema.rootNode(registryBundle.definitions['io.k8s.api.apps.v1.Deployment']);
  const ours = { bytes: JSON.stringify(deployment('x')).length, paths: toFieldSet(schema, root, deployment('x')).size() };
  if (ours.bytes !== go.header.bytes || ours.paths !== go.header.paths) {
    throw new Error(`the Go side applies another object: ${JSON.stringify(go.header)} vs ours ${JSON.stringify(ours)}`);
  }
  await go.run('force', 2); // alice and bob own the object before the first round, as on the other sides
}

// --- library side
const fm = newFieldManager({
  apiVersion: 'apps/v1',
  schema: registryBundle.definitions['io.k8s.api.apps.v1.Deployment'],
  definitions: registryBundle.definitions,
  now: () => new Date(Date.UTC(2025, 0, 1)),
});
let live: JsonObject | undefined;
function libraryApply(manager: string, obj: JsonObject): void {
  const r = fm.apply(live, obj, manager, true);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  live = r.object;
}
for (const m of MANAGERS) libraryApply(m, deployment('0'));

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
for (const m of MANAGERS) await httpApply(m, JSON.stringify(deployment('0')));

// --- floor
const storedText = await httpApply(MANAGERS[0], JSON.stringify(deployment('0')));

type Side = 'go' | 'library' | 'http' | 'floor';
/** Runs one batch; wall and CPU milliseconds per apply. */
type Batch = () => Promise<{ wall: number; cpu: number }>;

/** Times a batch run in this process (CPU: process.cpuUsage, all threads). */
function local(run: () => Promise<void> | void): Batch {
  return async () => {
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await run();
    const wall = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    return { wall: wall / iterations, cpu: (cpu.user + cpu.system) / 1000 / iterations };
  };
}

const sides: Partial<Record<Side, () => Batch>> = {
  library() {
    const batch = inputs();
    return local(() => {
      for (const { manager, obj } of batch) libraryApply(manager, obj);
    });
  },
  http() {
    const bodies = inputs().map(({ manager, obj }) => ({ manager, body: JSON.stringify(obj) }));
    return local(async () => {
      for (const { manager, body } of bodies) await httpApply(manager, body);
    });
  },
  floor() {
    return local(() => {
      for (let i = 0; i < iterations; i++) JSON.stringify(JSON.parse(storedText));
    });
  },
};
if (!('unavailable' in go)) {
  sides.go = () => async () => {
    const b = await go.run('force', iterations);
    return { wall: b.wallNs / 1e6 / b.n, cpu: b.cpuNs / 1e6 / b.n };
  };
}

const order = (['go', 'library', 'http', 'floor'] as Side[]).filter((s) => sides[s]);
const results = Object.fromEntries(order.map((s) => [s, { wall: [] as number[], cpu: [] as number[] }])) as Record<
  Side,
  { wall: number[]; cpu: number[] }
>;
for (let round = 0; round <= rounds; round++) {
  for (let k = 0; k < order.length; k++) {
    const side = order[(k + round) % order.length];
    const t = await sides[side]!()();
    if (round === 0) continue; // warm-up
    results[side].wall.push(t.wall);
    results[side].cpu.push(t.cpu);
  }
}
await api.close();
if (!('unavailable' in go)) go.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const med = (side: Side) => ({ wall: median(results[side].wall), cpu: median(results[side].cpu) });
const floor = med('floor');

console.log(
  `server-side apply, Deployment 50 containers x 20 env (ssa-bench's object, force scenario), alice and bob alternating ` +
    `(${(storedText.length / 1024).toFixed(0)} KiB stored object); median of ${rounds} rounds of ${iterations} after a warm-up`,
);
if (!('unavailable' in go)) console.log(`  go side: ${go.header.go}, GOMAXPROCS=${go.header.gomaxprocs}, structured-merge-diff 4.1.2 (Debian)`);
console.log('  side        wall ms/op   ops/s   x floor (wall)   cpu ms/op   x floor (cpu)');
for (const side of order) {
  const { wall, cpu } = med(side);
  console.log(
    `  ${side.padEnd(9)} ${wall.toFixed(2).padStart(11)} ${(1000 / wall).toFixed(1).padStart(7)} ${(wall / floor.wall).toFixed(1).padStart(15)}x` +
      ` ${cpu.toFixed(2).padStart(11)} ${(cpu / floor.cpu).toFixed(1).padStart(14)}x`,
  );
}

const label = { library: 'field manager alone', http: 'PATCH through handle()' } as const;
for (const side of ['library', 'http'] as const) {
  const { cpu } = med(side);
  reportFigure({
    id: `apply.${side}.floor`,
    label: `server-side apply, ${label[side]}: CPU x floor (lower is better)`,
    value: cpu / floor.cpu,
    unit: 'x floor',
    baseline: `floor (JSON.parse + JSON.stringify of the object) ${floor.cpu.toFixed(2)} ms/op; ${side} ${cpu.toFixed(2)} ms/op`,
  });
}
if (results.go) {
  const g = med('go');
  for (const side of ['library', 'http'] as const) {
    const k = med(side);
    console.log(`  Go structured-merge-diff / kubesim ${side}: ${(g.cpu / k.cpu).toFixed(1)}x faster (CPU), ${(g.wall / k.wall).toFixed(1)}x (wall)`);
    reportFigure({
      id: `apply.go.${side}`,
      label: `server-side apply, ${label[side]}: Go structured-merge-diff / kubesim, CPU per apply`,
      value: g.cpu / k.cpu,
      unit: 'x faster',
      baseline: `Go Updater.Apply + FromUnstructured ${g.cpu.toFixed(2)} ms CPU/apply (${g.wall.toFixed(2)} ms wall); kubesim ${side} ${k.cpu.toFixed(2)} ms CPU (${k.wall.toFixed(2)} ms wall)`,
    });
  }
}
