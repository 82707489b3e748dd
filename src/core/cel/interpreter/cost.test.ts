import { describe, expect, it } from 'vitest';
import { CelEnv } from '../env';
import { newEnvironment } from '../environments';
import { T } from '../common/types';
import { evaluateCel } from '../evaluations';

// Runtime cost as cel-go's CostTracker charges it: idents/selections 1,
// constants 0, comparisons and calls 1, list literals 10, map literals 30,
// has() 0, string and regex operations by size. These programs are built
// without OptOptimize; the API server's (below) fold literals of constants.
const env = newEnvironment('admission', { optimize: false });
const cases: [string, number, Record<string, unknown>?][] = [
  ['1 < 2', 1],
  ['1 == 1 && 2 == 2', 2],
  ['[1, 2, 3]', 10],
  ["{'a': 1}", 30],
  ['object.a', 2, { object: { a: 1 } }],
  ['has(object.a)', 1, { object: { a: 1 } }],
  ["'abc' == 'abc'", 1],
  ["'' == 'x'", 0],
  ["'a'.repeat", -1],
  ["'hello world'.contains('wor')", 2],
  ["'abcdefghij'.matches('^[a-z]+$')", 4],
  ['[1, 2, 3].all(x, x > 0)', 26],
  ['[1, 2, 3].exists(x, x == 2)', 26],
  ['[1, 2, 3].map(x, x * 2)', 63],
  ['[1, 2, 3].filter(x, x > 1)', 54],
];

describe('runtime cost', () => {
  it.each(cases.filter(([, c]) => c >= 0))('[API-CEL-082] [API-CEL-083] %s costs %d', (src, cost, vars) => {
    const r = env.compile(src);
    expect(r.message).toBeUndefined();
    const res = r.program!.evalJson(vars ?? {});
    expect(res.ok).toBe(true);
    expect(res.cost).toBe(cost);
    // deterministic: the same program and input always cost the same
    expect(r.program!.evalJson(vars ?? {}).cost).toBe(cost);
  });

  // API-CEL-084 in the spec gives a list literal a base cost of 40. cel-go's
  // CostTracker, which the API server runs, charges common.ListCreateBaseCost
  // = 10 (40 is StructCreateBaseCost, for message literals), so kubesim keeps
  // 10 to return the cost and the limit outcome the API server would; the id
  // is deliberately not claimed here.
  it('a list literal costs 10 plus its elements, a map literal 30', () => {
    const cost = (src: string): number => env.compile(src).program!.evalJson({ object: { a: 1 } }).cost;
    expect(cost('[]')).toBe(10);
    expect(cost('[object.a, object.a]')).toBe(14);
    expect(cost('{}')).toBe(30);
    expect(cost("{'k': object.a}")).toBe(32);
  });

  it('[API-CEL-082] with OptOptimize, as the API server runs, literals and conversions of constants cost nothing', () => {
    const optimized = newEnvironment('admission');
    const cost = (src: string): number => optimized.compile(src).program!.evalJson({ object: { a: 1, l: ['a'] } }).cost;
    expect(cost('[1, 2, 3]')).toBe(0);
    expect(cost("{'a': [duration('2s'), duration('1s')]}")).toBe(0);
    expect(cost('[object.a]')).toBe(12);
    // `in` a list of constants is a set lookup
    expect(cost("object.l[0] in ['a', 'b']")).toBe(3);
    // comprehensions building a list start from a fresh, free accumulator
    expect(cost('[1, 2, 3].map(x, x * 2)')).toBe(43);
    const twice = optimized.compile('[1, 2].map(x, x)').program!;
    expect(twice.evalJson({})).toMatchObject({ ok: true, value: [1n, 2n] });
    expect(twice.evalJson({})).toMatchObject({ ok: true, value: [1n, 2n] });
  });

  it('[API-CEL-085] regex cost grows with pattern length times input length', () => {
    const cost = (input: string, pattern: string) => env.compile(`'${input}'.matches('${pattern}')`).program!.evalJson({}).cost;
    const small = cost('a'.repeat(10), 'a+');
    const longInput = cost('a'.repeat(1000), 'a+');
    const longBoth = cost('a'.repeat(1000), 'a+'.repeat(50));
    expect(small).toBe(Math.ceil(11 * 0.1) * Math.ceil(2 * 0.25));
    expect(longInput).toBe(Math.ceil(1001 * 0.1) * Math.ceil(2 * 0.25));
    expect(longBoth).toBe(Math.ceil(1001 * 0.1) * Math.ceil(100 * 0.25));
  });

  it('[API-CEL-086] exceeding the per-call limit stops evaluation with an error', () => {
    const s = evaluateCel({ expression: 'object.items.all(x, object.items.all(y, x != y || x == y))', environment: 'admission', variables: { object: { items: Array.from({ length: 500 }, (_, i) => i) } } });
    expect(s.error).toBe('operation cancelled: actual cost limit exceeded');
    expect(s.cost).toBeGreaterThan(1_000_000);
    const ok = evaluateCel({ expression: 'object.items.all(x, x >= 0)', environment: 'admission', variables: { object: { items: [1, 2] } }, perCallLimit: 5 });
    expect(ok.error).toBe('operation cancelled: actual cost limit exceeded');
  });

  it('plain environments charge presence tests (cel-go default); Kubernetes does not', () => {
    const plain = new CelEnv({ variables: { o: T.dyn }, presenceTestHasCost: true });
    expect(plain.compile('has(o.a)').program!.evalJson({ o: { a: 1 } }).cost).toBe(2);
  });
});
