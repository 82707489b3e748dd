/**
 * Custom resource creates per second with 10 x-kubernetes-validations rules
 * versus the same CRD without rules, through `api.handle(new Request(...))`
 * on one memory-backed server (two CRDs side by side, so both sides share
 * the process, the heap and the JIT). The rules are typical ones: bounds,
 * string functions, a regex, list quantifiers, a cross-field check.
 *
 * The ratio rules/plain is what to watch (1.0 = the rules cost nothing);
 * the CEL share of a create should stay well below the rest of the pipeline.
 *
 * Run: npx tsx bench/crd.bench.ts [creates=500] [rounds=5]
 */
import { createApiServer, createMemoryStorage } from '../src/core';

const creates = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 5);

const rules = [
  { rule: 'self.replicas >= 0 && self.replicas <= 100' },
  { rule: 'self.name.size() <= 63' },
  { rule: "self.name.matches('^[a-z][-a-z0-9]*$')" },
  { rule: 'self.image.startsWith(\'registry.example/\')' },
  { rule: 'self.ports.all(p, p > 0 && p < 65536)' },
  { rule: 'self.ports.size() <= 16' },
  { rule: "self.tags.exists(t, t == 'app')" },
  { rule: 'self.minReplicas <= self.replicas' },
  { rule: "!has(self.mode) || self.mode in ['fast', 'safe']", message: 'bad mode' },
  { rule: 'self.labels.all(k, k.size() < 64 && self.labels[k].size() < 64)' },
];

function crd(plural: string, kind: string, withRules: boolean) {
  const spec = {
    type: 'object',
    ...(withRules ? { 'x-kubernetes-validations': rules } : {}),
    properties: {
      replicas: { type: 'integer' },
      minReplicas: { type: 'integer' },
      name: { type: 'string', maxLength: 63 },
      image: { type: 'string', maxLength: 256 },
      mode: { type: 'string', maxLength: 16 },
      ports: { type: 'array', maxItems: 16, items: { type: 'integer' } },
      tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 64 } },
      labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 64 } },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.bench.example.com` },
    spec: {
      group: 'bench.example.com',
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

const api = createApiServer({ storage: createMemoryStorage() });
await api.ready;

async function call(method: string, path: string, body: unknown): Promise<void> {
  const res = await api.handle(new Request(`http://localhost${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
}

await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('plains', 'Plain', false));
await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('ruleds', 'Ruled', true));

let serial = 0;
function object(kind: string) {
  const n = serial++;
  return {
    apiVersion: 'bench.example.com/v1',
    kind,
    metadata: { name: `o-${n}` },
    spec: {
      replicas: 3, minReplicas: 1, name: `web-${n}`, image: 'registry.example/web:1', mode: 'safe',
      ports: [80, 443, 8080], tags: ['app', 'web'], labels: { team: 'a', tier: 'front' },
    },
  };
}

type Side = 'plain' | 'rules';
const sides: Record<Side, { plural: string; kind: string }> = { plain: { plural: 'plains', kind: 'Plain' }, rules: { plural: 'ruleds', kind: 'Ruled' } };
const order: Side[] = ['plain', 'rules'];

/**
 * One round: the two sides' creates interleaved one by one (who goes first
 * alternates), so both see the same heap, store size and machine load.
 */
async function round(): Promise<Record<Side, number>> {
  const bodies = { plain: Array.from({ length: creates }, () => object('Plain')), rules: Array.from({ length: creates }, () => object('Ruled')) };
  const total: Record<Side, number> = { plain: 0, rules: 0 };
  for (let i = 0; i < creates; i++) {
    for (const side of i % 2 ? order : [...order].reverse()) {
      const t0 = performance.now();
      await call('POST', `/apis/bench.example.com/v1/namespaces/default/${sides[side].plural}`, bodies[side][i]);
      total[side] += performance.now() - t0;
    }
  }
  return total;
}

const results: Record<Side, number[]> = { plain: [], rules: [] };
for (let r = 0; r <= rounds; r++) {
  const t = await round();
  if (r === 0) continue; // warm-up
  for (const side of order) results[side].push(t[side]);
}
await api.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`custom resource creates, CRD with 10 CEL rules vs none; median of ${rounds} rounds of ${creates} after a warm-up`);
console.log('  side      creates/s   ms/create');
for (const side of order) {
  const ms = median(results[side]);
  console.log(`  ${side.padEnd(7)} ${((creates * 1000) / ms).toFixed(0).padStart(11)} ${(ms / creates).toFixed(3).padStart(11)}`);
}
console.log(`  rules/plain time ratio: ${(median(results.rules) / median(results.plain)).toFixed(2)}x (1.00 = rules cost nothing)`);
