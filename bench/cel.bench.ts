// CEL benchmark: compile time and evaluations per second of kubesim's engine
// (with runtime cost tracking on, as the API server runs it) beside
// @marcbachmann/cel-js, @bufbuild/cel and cel-js, on Kubernetes-style
// expressions over one admission-like object.
//
// What each engine's compile hands back differs, so compile is timed three ways:
// - the engine's compile entry point, as it is: kubesim's compile parses and type-checks (the
//   environment's cache bypassed; a cached text is timed too), its first evaluation walks the
//   checked AST and its second plans the closures later evaluations run; @marcbachmann/cel-js'
//   parse() parses and binds each node to its evaluator, and type-checks on the first evaluation
//   (once, the result kept on the AST); @bufbuild/cel parses and plans without checking;
//   cel-js parses to a CST that its evaluate() walks;
// - to a type-checked program ready to evaluate, the deliverable of kubesim's compile (and of
//   cel-go's Compile + Program): @marcbachmann/cel-js' parse() then check(), which marks the AST
//   checked so evaluation skips its own check (the other two engines do not export a checker);
// - compile and the first evaluation, on every side, so that work an engine defers to the first
//   evaluation is counted.
// Run: npx tsx bench/cel.bench.ts

import { celEnv, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import { parse as marcParse } from '@marcbachmann/cel-js';
import { evaluate as celjsEvaluate, parse as celjsParse } from 'cel-js';
import { newEnvironment } from '../src/core/cel';
import { estimateCost } from '../src/core/cel/checker/cost';
import type { CelSchema } from '../src/core/cel/schema/types';
import { fromJson, type CelValue } from '../src/core/cel/common/values';
import { reportFigure } from './figures';

const object = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'web', tier: 'frontend', team: 'payments' } },
  spec: {
    replicas: 3,
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'registry.example.com/web:1.2.3', resources: { limits: { memory: '512Mi', cpu: '500m' } }, ports: [{ containerPort: 8080 }] },
          { name: 'sidecar', image: 'registry.example.com/proxy:2.0.0', resources: { limits: { memory: '128Mi', cpu: '100m' } }, ports: [{ containerPort: 15001 }] },
          { name: 'logger', image: 'registry.example.com/log:0.9.1', resources: { limits: { memory: '64Mi', cpu: '50m' } }, ports: [] },
        ],
      },
    },
  },
};

interface Case {
  name: string;
  expr: string;
  /** expressions using Kubernetes-only libraries run on kubesim alone */
  kubernetesOnly?: boolean;
}

const cases: Case[] = [
  { name: 'field comparison', expr: "object.spec.replicas >= 2 && object.metadata.namespace == 'prod'" },
  { name: 'all over containers', expr: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))" },
  { name: 'exists over containers', expr: "object.spec.template.spec.containers.exists(c, c.name == 'sidecar')" },
  { name: 'matches', expr: "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')" },
  { name: 'map().size()', expr: 'object.spec.template.spec.containers.map(c, c.name).size() == 3' },
  { name: 'has() && in', expr: "has(object.metadata.labels) && 'team' in object.metadata.labels && object.metadata.labels.app == 'web'" },
  {
    name: 'quantity comparison',
    expr: "object.spec.template.spec.containers.all(c, quantity(c.resources.limits.memory).isLessThan(quantity('1Gi')))",
    kubernetesOnly: true,
  },
];

type Runner = {
  /** the engine's compile entry point; the function it returns evaluates the expression once */
  compile(expr: string): () => unknown;
  /** to a type-checked program ready to evaluate, when the engine's compile does not check */
  compileChecked?(expr: string): () => unknown;
  /** the same text again, through the environment's compile cache (kubesim only) */
  compileCached?(expr: string): () => unknown;
};

function kubesimRunner(cache: boolean): (expr: string) => () => unknown {
  return (expr) => {
    const r = kubeEnv.compile(expr, { cache });
    if (!r.program) throw new Error(r.message);
    const p = r.program;
    return () => {
      const res = p.eval(kubeVars, { costLimit: 1_000_000 });
      return res.ok ? res.value : res.error.message;
    };
  };
}

const kubeEnv = newEnvironment('admission');
const kubeVars: Record<string, CelValue> = { object: fromJson(object) };
const bufEnv = celEnv();

const engines: Record<string, Runner> = {
  kubesim: { compile: kubesimRunner(false), compileCached: kubesimRunner(true) },
  '@marcbachmann/cel-js': {
    compile(expr) {
      const f = marcParse(expr);
      return () => f({ object });
    },
    compileChecked(expr) {
      const f = marcParse(expr);
      const r = f.check();
      if (!r.valid) throw r.error;
      return () => f({ object });
    },
  },
  '@bufbuild/cel': {
    compile(expr) {
      const f = bufPlan(bufEnv, bufParse(expr));
      return () => {
        const r = f({ object } as never);
        return r;
      };
    },
  },
  'cel-js': {
    compile(expr) {
      const r = celjsParse(expr);
      if (!r.isSuccess) throw new Error('parse failed');
      const cst = r.cst;
      return () => celjsEvaluate(cst, { object });
    },
  },
};

function timeIt(fn: () => void, minMs: number): number {
  // returns operations per second
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < minMs) {
    for (let i = 0; i < 200; i++) fn();
    n += 200;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/**
 * Microseconds per compile of each compiler: each warmed up, then batches
 * taking turns, keeping each one's best, so load on the shared machine falls
 * on all alike (one compiler timed after another would not see the same load).
 */
function compileTimes(compilers: Record<string, (expr: string) => unknown>, expr: string): Record<string, number> {
  // warm each compiler up for a while first: the first expressions would otherwise be timed while it is still being optimized
  for (const compile of Object.values(compilers)) for (const t0 = performance.now(); performance.now() - t0 < 150; ) for (let i = 0; i < 20; i++) compile(expr);
  const best: Record<string, number> = {};
  for (let round = 0; round < 15; round++) {
    for (const [name, compile] of Object.entries(compilers)) {
      const iters = 200;
      const t0 = performance.now();
      for (let i = 0; i < iters; i++) compile(expr);
      best[name] = Math.min(best[name] ?? Infinity, ((performance.now() - t0) * 1000) / iters);
    }
  }
  return best;
}

const us = (x: number): string => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));

const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0));

const ROUNDS = 3;
/** compile-time columns, each a compiler the engines' batches take turns with */
type CompileWay = 'compile' | 'checked' | 'firstEval' | 'cached';
const geomean = (xs: number[]): number => Math.exp(xs.reduce((t, x) => t + Math.log(x), 0) / xs.length);
const evalRows: string[][] = [];
const compileRows: string[][] = [];
const ratios: Record<string, number[]> = {};
/** other engine's compile µs / kubesim's, per way of compiling (>1 means kubesim compiles faster) */
const compileRatios: Record<string, { compile: number[]; checked: number[]; firstEval: number[]; cached: number[] }> = {};
for (const c of cases) {
  const results: Record<string, { ops: number; us: Partial<Record<CompileWay, number>> } | string> = {};
  const runs: Record<string, () => unknown> = {};
  const compilers: Record<string, (expr: string) => unknown> = {};
  for (const [name, r] of Object.entries(engines)) {
    if (c.kubernetesOnly && name !== 'kubesim') {
      results[name] = 'n/a';
      continue;
    }
    try {
      const run = r.compile(c.expr);
      const v = run();
      const ok = v === true || (typeof v === 'object' && v !== null && (v as { value?: unknown }).value === true);
      if (!ok) {
        results[name] = `wrong: ${String(typeof v === 'object' ? JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))?.slice(0, 40) : v)}`;
        continue;
      }
      if (r.compileChecked && r.compileChecked(c.expr)() !== v) throw new Error('checked program evaluates differently');
      timeIt(run, 100); // warm up
      runs[name] = run;
      results[name] = { ops: 0, us: {} };
      compilers[`${name} compile`] = (e) => r.compile(e);
      compilers[`${name} firstEval`] = (e) => r.compile(e)();
      if (r.compileChecked) compilers[`${name} checked`] = (e) => r.compileChecked!(e);
      if (r.compileCached) compilers[`${name} cached`] = (e) => r.compileCached!(e);
    } catch (e) {
      results[name] = `error: ${String((e as Error).message).slice(0, 40)}`;
    }
  }
  const times = compileTimes(compilers, c.expr);
  for (const name of Object.keys(runs)) {
    const res = results[name] as { us: Partial<Record<CompileWay, number>> };
    for (const way of ['compile', 'checked', 'firstEval', 'cached'] as const) res.us[way] = times[`${name} ${way}`];
  }
  // engines take turns over several rounds and keep their best, so load on the machine affects all alike
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const res = results[name] as { ops: number };
      res.ops = Math.max(res.ops, timeIt(run, 250));
    }
  }
  const base = results.kubesim as { ops: number; us: Record<CompileWay, number> };
  const evalRow = [c.name];
  const compileRow = [c.name];
  for (const name of Object.keys(engines)) {
    const r = results[name]!;
    if (typeof r === 'string') {
      evalRow.push(r);
      compileRow.push(r);
    } else if (name === 'kubesim') {
      evalRow.push(`${fmt(r.ops)}/s`);
      compileRow.push(`${us(r.us.compile!)}µs, +1st eval ${us(r.us.firstEval!)}µs, cached ${us(r.us.cached!)}µs`);
    } else {
      const ratio = base.ops / r.ops;
      (ratios[name] ??= []).push(ratio);
      const cr = (compileRatios[name] ??= { compile: [], checked: [], firstEval: [], cached: [] });
      const compile = r.us.compile! / base.us.compile;
      const firstEval = r.us.firstEval! / base.us.firstEval;
      cr.compile.push(compile);
      cr.firstEval.push(firstEval);
      cr.cached.push(r.us.compile! / base.us.cached);
      // an engine without a checker hands back its compile: kubesim's checked program is compared with that
      const checkedUs = r.us.checked ?? r.us.compile!;
      cr.checked.push(checkedUs / base.us.compile);
      evalRow.push(`${fmt(r.ops)}/s (x${ratio.toFixed(2)})`);
      compileRow.push(
        `${us(r.us.compile!)}µs (x${compile.toFixed(2)})` +
          (r.us.checked !== undefined ? `, checked ${us(r.us.checked)}µs (x${(r.us.checked / base.us.compile).toFixed(2)})` : '') +
          `, +1st eval ${us(r.us.firstEval!)}µs (x${firstEval.toFixed(2)})`,
      );
    }
  }
  evalRows.push(evalRow);
  compileRows.push(compileRow);
}

function printTable(rows: string[][]): void {
  const header = ['expression', ...Object.keys(engines)];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((x, i) => x.padEnd(widths[i]!)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(line(r));
  console.log();
}
console.log('evaluations/s per engine; (xN) = kubesim evaluations/s divided by that engine\'s (>1 means kubesim is faster);');
console.log('kubesim runs with runtime cost tracking and a 1,000,000 per-call limit\n');
printTable(evalRows);
console.log('compile time per engine, best batch; (xN) = that engine\'s time divided by kubesim\'s (>1 means kubesim compiles faster):');
console.log('  first figure: the engine\'s compile entry point (kubesim: parse + check, cache bypassed; @marcbachmann/cel-js: parse,');
console.log('    checking deferred to the first evaluation; @bufbuild/cel: parse + plan, no checker; cel-js: parse to a CST);');
console.log('  checked: to a type-checked program ready to evaluate (@marcbachmann/cel-js: parse + check()), against kubesim\'s compile;');
console.log('  +1st eval: compile and one evaluation, on both sides; cached: kubesim serving a repeated text from its compile cache\n');
printTable(compileRows);
for (const [name, rs] of Object.entries(ratios)) {
  console.log(`geometric mean speedup of kubesim over ${name}: x${geomean(rs).toFixed(2)} (${rs.length} expressions)`);
}
for (const [name, r] of Object.entries(compileRatios)) {
  const checks = name === '@marcbachmann/cel-js';
  console.log(
    `geometric mean compile speedup of kubesim over ${name}: x${geomean(r.compile).toFixed(2)} against its compile entry point` +
      (checks ? `, x${geomean(r.checked).toFixed(2)} to a checked program` : '') +
      `, x${geomean(r.firstEval).toFixed(2)} compile + first evaluation, x${geomean(r.cached).toFixed(2)} cached`,
  );
  const slug = name.replace(/^@/, '').replace(/\/.*$/, '');
  const also = `compile entry point x${geomean(r.compile).toFixed(2)}, compile + first evaluation x${geomean(r.firstEval).toFixed(2)}, cached x${geomean(r.cached).toFixed(2)}`;
  reportFigure(
    checks
      ? { id: `cel.compile.${slug}`, label: `CEL compile of a fresh expression to a checked program, kubesim / ${name} parse + check (geometric mean)`, value: geomean(r.checked), unit: 'ratio', baseline: `${name} in the same run; ${also}` }
      : { id: `cel.compile.${slug}`, label: `CEL compile of a fresh expression, kubesim / ${name} (geometric mean; it has no checker)`, value: geomean(r.compile), unit: 'ratio', baseline: `${name} in the same run; ${also}` },
  );
  reportFigure({ id: `cel.compile.${slug}.firstEval`, label: `CEL compile + first evaluation of a fresh expression, kubesim / ${name} (geometric mean)`, value: geomean(r.firstEval), unit: 'ratio', baseline: `${name} in the same run` });
  if (checks) reportFigure({ id: `cel.compile.${slug}.parse`, label: `CEL compile of a fresh expression, kubesim / ${name} parse only (geometric mean)`, value: geomean(r.compile), unit: 'ratio', baseline: `${name} in the same run; its check runs on the first evaluation` });
}
for (const [name, rs] of Object.entries(ratios)) {
  const slug = name.replace(/^@/, '').replace(/\/.*$/, '');
  reportFigure({ id: `cel.eval.${slug}`, label: `CEL evaluations/s, kubesim / ${name} (geometric mean)`, value: geomean(rs), unit: 'ratio', baseline: `${name} in the same run` });
}

// ---- compile time of a CRD with 50 rules ----
// The API server compiles every x-kubernetes-validations rule of a CRD when the CRD is
// created or updated: each in an environment typed by the rule's schema, then estimates its
// cost (a rule is planned when it is evaluated a second time). kubesim does exactly that here (afresh, cache bypassed); @marcbachmann/cel-js parses
// the same texts. One environment per CRD, as the API server builds one per schema.

// nested schemas carry the API server's bounds too (maxLength, maxItems, maxProperties)
const crdSchema = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    minReplicas: { type: 'integer' },
    maxReplicas: { type: 'integer' },
    name: { type: 'string', maxLength: 63 },
    image: { type: 'string', maxLength: 256 },
    mode: { type: 'string', enum: ['a', 'b', 'c'] },
    labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 }, maxProperties: 64 },
    ports: { type: 'array', maxItems: 16, items: { type: 'object', properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' }, protocol: { type: 'string', maxLength: 8 } } } },
    hosts: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 253 } },
    timeout: { type: 'string', maxLength: 16 },
  },
} as CelSchema;
const ruleTemplates = [
  (i: number) => `self.replicas >= ${i % 5}`,
  (i: number) => `self.minReplicas <= self.maxReplicas || self.maxReplicas == ${i}`,
  (i: number) => `self.name.size() <= ${20 + i} && self.name.startsWith('web')`,
  (i: number) => `self.image.matches('^registry[0-9]*\\\\.example\\\\.com/[a-z]+:${i}$')`,
  (i: number) => `self.ports.all(p, p.port > ${i} && p.port < 65536)`,
  (i: number) => `self.ports.exists(p, p.name == 'http${i}')`,
  (i: number) => `!has(self.labels) || self.labels.all(k, k.size() < ${10 + i})`,
  (i: number) => `self.hosts.map(h, h.lowerAscii()).exists(h, h.endsWith('.example${i}.com'))`,
  (i: number) => `self.mode in ['a', 'b'] || self.replicas == ${i}`,
  (i: number) => `self.ports.filter(p, p.protocol == 'TCP').size() <= ${i + 1}`,
];
const crdRules = Array.from({ length: 50 }, (_, i) => ruleTemplates[i % ruleTemplates.length]!(i));

function compileCrdKubesim(): void {
  const env = newEnvironment('crd', { schema: crdSchema });
  for (const rule of crdRules) {
    const r = env.compile(rule, { cache: false });
    if (!r.program || !r.ast) throw new Error(`${rule}: ${r.message}`);
    estimateCost(r.ast, env.functions);
  }
}
function compileCrdMarc(): void {
  for (const rule of crdRules) marcParse(rule);
}
function compileCrdMarcChecked(): void {
  for (const rule of crdRules) {
    const r = marcParse(rule).check();
    if (!r.valid) throw r.error;
  }
}

/** Milliseconds per CRD: warmed up, then the best of several rounds. */
function crdTime(fn: () => void): number {
  for (const t0 = performance.now(); performance.now() - t0 < 300; ) fn();
  let best = Infinity;
  for (let round = 0; round < 15; round++) {
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) fn();
    best = Math.min(best, (performance.now() - t0) / 5);
  }
  return best;
}

const crdKube = crdTime(compileCrdKubesim);
const crdEnv = crdTime(() => newEnvironment('crd', { schema: crdSchema }));
const crdMarc = crdTime(compileCrdMarc);
const crdMarcChecked = crdTime(compileCrdMarcChecked);
console.log();
console.log(`compile a CRD with ${crdRules.length} rules: kubesim ${crdKube.toFixed(2)}ms (typed by the schema, cost estimated; building the environment ${crdEnv.toFixed(2)}ms of it), @marcbachmann/cel-js ${crdMarc.toFixed(2)}ms (parse), ${crdMarcChecked.toFixed(2)}ms (parse + check, self dynamic)`);
console.log(`  kubesim/@marcbachmann/cel-js compile speed: x${(crdMarc / crdKube).toFixed(2)} against parse, x${(crdMarcChecked / crdKube).toFixed(2)} against parse + check (>1 means kubesim compiles the CRD faster)`);
