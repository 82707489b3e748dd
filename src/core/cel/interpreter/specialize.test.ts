import { describe, expect, it } from 'vitest';
import { type CelResult } from '../env';
import { newEnvironment } from '../environments';
import { fromJson, type CelValue } from '../common/values';
import { CelEnv } from '../env';
import { kubernetesLibraries } from '../environments';

// Fused attribute chains (`object.spec.replicas` read in one step) and
// comparisons specialized by the literal's type must be invisible: same
// value, same error and failing node, same cost, and the same cost at which
// a limit stops evaluation, as the node-by-node plan.

// both planned when compiled (a program's first evaluation is otherwise a walk over its AST, compared with the plan in walk.test.ts)
const fast = new CelEnv({ ...newEnvironment('admission').options, tiered: false });
const slow = new CelEnv({ ...fast.options, libraries: kubernetesLibraries(), variables: Object.fromEntries(fast.variables), unspecialized: true });

const objects: Record<string, unknown>[] = [
  { metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' } }, spec: { replicas: 3, ratio: 0.5, big: 2 ** 60, neg: -4, flag: true, none: null, list: [1, 2, 3], nested: { a: { b: 'x'.repeat(25) } } } },
  { metadata: { name: '', namespace: 'ns-é😀' }, spec: { replicas: 2.5, ratio: 2, big: -(2 ** 60), flag: false, list: [], nested: { a: 'not an object' } } },
  { metadata: { name: 7 }, spec: { replicas: '3', list: {}, nested: [] } },
  { metadata: { name: 'a'.repeat(30), namespace: '😀'.repeat(12) }, spec: { replicas: 1 } },
  { metadata: null, spec: 5 },
  {},
];

const exprs = [
  'object.spec.replicas >= 2',
  '2 < object.spec.replicas',
  'object.spec.replicas == 3',
  'object.spec.replicas != 3',
  'object.spec.ratio <= 1',
  'object.spec.ratio == 2',
  'object.spec.big > 1',
  'object.spec.neg < -3',
  'object.spec.replicas > 2.5',
  "object.metadata.namespace == 'prod'",
  "object.metadata.namespace != ''",
  "object.metadata.name == 'web'",
  "object.metadata.name < 'x'",
  "'a' <= object.metadata.name",
  "object.spec.nested.a.b == 'xxxxxxxxxxxxxxxxxxxxxxxxx'",
  "object.spec.nested.a.b == 'short'",
  "object.metadata.namespace == 'a-long-namespace-literal'",
  'object.spec.flag == true',
  'object.spec.none == null',
  'object.spec.missing == null',
  'object.spec.list.size() == 3',
  'object.spec.list.exists(x, x == 2)',
  'object.spec.list.all(x, x > 0)',
  'object.spec.list.map(x, x * 2).size() == 3',
  "has(object.metadata.labels) && object.metadata.labels.app == 'web'",
  'object.nope.deeper',
  'object.spec.nested.a',
  "object.metadata.toString == 'x'",
  'request.name == "n"',
  // literal patterns compiled at plan time
  "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
  "object.metadata.namespace.matches('é😀')",
  "object.metadata.namespace.matches('^😀+$')",
  "matches(object.metadata.namespace, 'p.*d')",
  "object.spec.nested.a.b.matches('x{20,}')",
  "('a' + object.metadata.name).matches('^a')",
  "object.spec.list.exists(x, string(x).matches('[23]'))",
  "object.metadata.name.matches('(')",
  "object.metadata.name.matches('')",
];

function norm(r: CelResult): unknown {
  return r.ok ? { ok: true, cost: r.cost, value: r.value } : { ok: false, cost: r.cost, message: r.error.message, exprId: r.error.exprId };
}

describe('specialized plans agree with node-by-node plans', () => {
  for (const expr of exprs) {
    it(expr, () => {
      const pf = fast.compile(expr).program!;
      const ps = slow.compile(expr).program!;
      for (const o of objects) {
        const vars: Record<string, CelValue> = { object: fromJson(o), request: fromJson({ name: 'n' }) };
        const want = norm(ps.eval(vars));
        expect(norm(pf.eval(vars)), JSON.stringify(o)).toEqual(want);
        // every limit below the full cost stops both at the same reported cost
        const full = (want as { cost: number }).cost;
        for (let limit = 0; limit < full; limit++) expect(norm(pf.eval(vars, { costLimit: limit }))).toEqual(norm(ps.eval(vars, { costLimit: limit })));
      }
    });
  }

  it('an undeclared variable at run time is the same error', () => {
    const pf = fast.compile('object.spec.replicas > 1').program!;
    const ps = slow.compile('object.spec.replicas > 1').program!;
    expect(norm(pf.eval({}))).toEqual(norm(ps.eval({})));
  });
});
