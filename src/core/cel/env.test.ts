import { describe, expect, it } from 'vitest';
import { fromJson, type CelValue } from './common/values';
import { CelEnv, type CelResult } from './env';
import { compileKubernetes, newEnvironment } from './environments';

// The compiled-program cache is keyed by source text: a cached program must
// behave exactly like a fresh compile of the same text (value, error, failing
// node, cost, and where every lower cost limit stops it), errors are cached
// too, and the cache stays within its bound, dropping the least recently used.

const objects: unknown[] = [
  { metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' } }, spec: { replicas: 3, containers: [{ name: 'a', image: 'registry/a:1' }] } },
  { metadata: { name: 'x'.repeat(40) }, spec: { replicas: '3', containers: [{ name: 7 }] } },
  { spec: null },
];

const exprs = [
  "object.spec.replicas >= 2 && object.metadata.namespace == 'prod'",
  "object.spec.containers.all(c, c.image.startsWith('registry/'))",
  "object.metadata.name.matches('^[a-z]+$')",
  'object.spec.containers.map(c, c.name).size() == 1',
  "has(object.metadata.labels) && 'app' in object.metadata.labels",
  'object.spec.missing.deeper',
];

function norm(r: CelResult): unknown {
  return r.ok ? { ok: true, cost: r.cost, value: r.value } : { ok: false, cost: r.cost, message: r.error.message, exprId: r.error.exprId, sub: r.error.subExpression };
}

describe('compiled-program cache', () => {
  it.each(exprs)('a cached program evaluates like a fresh compile: %s', (expr) => {
    const env = newEnvironment('admission');
    const first = env.compile(expr);
    const again = env.compile(expr);
    expect(again).toBe(first);
    const fresh = env.compile(expr, { cache: false });
    expect(fresh).not.toBe(first);
    for (const o of objects) {
      const vars: Record<string, CelValue> = { object: fromJson(o) };
      const want = norm(fresh.program!.eval(vars));
      expect(norm(again.program!.eval(vars))).toEqual(want);
      const full = (want as { cost: number }).cost;
      for (let limit = 0; limit < full; limit++) expect(norm(again.program!.eval(vars, { costLimit: limit }))).toEqual(norm(fresh.program!.eval(vars, { costLimit: limit })));
    }
  });

  it('one cached program serves several callers, each with its own variables', () => {
    const env = newEnvironment('plain', { variables: { f: { kind: 'dyn' } } });
    const p = env.compile('f.size() + 1').program!;
    const q = env.compile('f.size() + 1').program!;
    expect(q).toBe(p);
    const outer = p.eval({ f: fromJson([1, 2]) });
    const inner = q.eval({ f: fromJson([1, 2, 3]) });
    expect(outer.ok && outer.value).toBe(3n);
    expect(inner.ok && inner.value).toBe(4n);
  });

  it('compile errors are cached with their message', () => {
    const env = newEnvironment('admission');
    const r1 = env.compile('object.spec.replicas >');
    const r2 = env.compile('object.spec.replicas >');
    expect(r2).toBe(r1);
    expect(r1.program).toBeUndefined();
    expect(r1.message).toMatch(/^ERROR: <input>:1:23: Syntax error/);
    const c1 = env.compile('request.nope');
    expect(env.compile('request.nope')).toBe(c1);
    expect(c1.message).toContain("undefined field 'nope'");
  });

  it('holds at most compileCacheSize results, dropping the least recently used', () => {
    const env = new CelEnv({ compileCacheSize: 3, variables: { x: { kind: 'int' } } });
    const a = env.compile('x + 1');
    const b = env.compile('x + 2');
    env.compile('x + 3');
    expect(env.cachedPrograms).toBe(3);
    expect(env.compile('x + 1')).toBe(a); // refreshed: x + 2 is now the oldest
    env.compile('x + 4');
    expect(env.cachedPrograms).toBe(3);
    expect(env.compile('x + 1')).toBe(a);
    expect(env.compile('x + 2')).not.toBe(b);
  });

  it('cache: false and compileCacheSize: 0 compile afresh and store nothing', () => {
    const env = newEnvironment('admission');
    const r = env.compile('object.a == 1', { cache: false });
    expect(env.cachedPrograms).toBe(0);
    expect(env.compile('object.a == 1', { cache: false })).not.toBe(r);
    const off = new CelEnv({ compileCacheSize: 0 });
    expect(off.compile('1 + 1')).not.toBe(off.compile('1 + 1'));
    expect(off.cachedPrograms).toBe(0);
  });

  it('an extended environment has its own cache: the same text may mean something else there', () => {
    const base = new CelEnv({ variables: { x: { kind: 'int' } } });
    expect(base.compile('y + 1').program).toBeUndefined();
    const ext = base.extend({ y: { kind: 'int' } });
    const r = ext.compile('y + 1');
    expect(r.program).toBeDefined();
    expect(r.program!.eval({ y: 2n }).ok && (r.program!.eval({ y: 2n }) as { value: unknown }).value).toBe(3n);
    expect(base.compile('y + 1').program).toBeUndefined();
  });

  it('an extended environment resolves qualified function names of the base libraries', () => {
    const ext = newEnvironment('plain').extend({ v: { kind: 'dyn' } });
    const r = ext.compile('optional.of(v).hasValue()');
    expect(r.message).toBeUndefined();
    expect(r.program!.eval({ v: 1n })).toMatchObject({ ok: true, value: true });
  });

  it('compileKubernetes validates literals on a cached result too', () => {
    const env = newEnvironment('admission');
    const text = "object.metadata.name.matches('(')";
    expect(env.compile(text).program).toBeDefined();
    const r = compileKubernetes(env, text);
    expect(r.program).toBeUndefined();
    expect(r.message).toMatch(/invalid matches argument/);
    expect(compileKubernetes(env, text).message).toBe(r.message);
  });
});
