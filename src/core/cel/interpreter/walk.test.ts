import { describe, expect, it } from 'vitest';
import { CelEnv, type CelResult } from '../env';
import { newEnvironment } from '../environments';
import { fromJson, type CelValue } from '../common/values';
import type { CelSchema } from '../schema/types';

// A program's first evaluation walks the AST; later ones run the plan. The
// walk must be invisible: for every expression and input, the same value,
// error, failing node and cost as the plan, and the same reported cost at
// every limit below the full cost.

const objects: Record<string, unknown>[] = [
  {
    metadata: { name: 'web', namespace: 'prod', labels: { app: 'web', team: 'a' } },
    spec: { replicas: 3, ratio: 0.5, flag: true, none: null, list: [1, 2, 3], names: ['a', 'bb', 'ccc'], nested: { a: { b: 'x'.repeat(25) } }, containers: [{ name: 'app', image: 'registry/app:1', limit: '512Mi' }, { name: 'side', image: 'other/side:2', limit: '2Gi' }] },
  },
  { metadata: { name: '', namespace: 'ns' }, spec: { replicas: 2.5, list: [], names: [], containers: [{ name: 7 }], nested: { a: 'not an object' } } },
  { metadata: { name: 7 }, spec: { replicas: '3', list: { a: 1 }, names: 'abc', containers: {}, nested: [] } },
  { metadata: null, spec: 5 },
  {},
];

const admissionExprs = [
  'object.spec.replicas >= 2',
  "object.spec.replicas >= 2 && object.metadata.namespace == 'prod'",
  "object.spec.containers.all(c, c.image.startsWith('registry/'))",
  "object.spec.containers.exists(c, c.name == 'side')",
  "object.spec.containers.exists_one(c, c.name == 'app')",
  "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
  "matches(object.metadata.namespace, 'p.*d')",
  'object.spec.containers.map(c, c.name).size() == 2',
  'object.spec.list.map(x, x > 1, x * 2)',
  'object.spec.list.filter(x, x > 1)',
  'object.spec.list.filter(x, x / 0 > 1)',
  'object.spec.list.map(x, 10 / (x - 2))',
  'object.spec.names.map(n, [n, n])',
  'object.spec.list.map(x, 1)',
  'object.spec.list.all(i, v, v > i)',
  'object.spec.names.transformList(i, n, n + string(i))',
  'object.metadata.labels.transformMap(k, v, v + k)',
  'object.metadata.labels.all(k, k.size() < 5)',
  "has(object.metadata.labels) && 'team' in object.metadata.labels && object.metadata.labels.app == 'web'",
  'has(object.spec.nope)',
  "object.metadata.namespace in ['prod', 'dev']",
  'object.spec.replicas in [1, 2, 3]',
  "object.metadata.name in [object.metadata.namespace, 'x']",
  "object.spec.replicas > 2 ? 'big' : 'small'",
  'object.spec.flag ? object.spec.list : []',
  'object.spec.list[1]',
  'object.spec.list.exists(x, x == 1)',
  'object.spec.list.all(x, x < 2)',
  '[10, 20, 30][object.spec.list.size() - 2]',
  'object.spec.names.map(n, n)[0]',
  'object.spec.list[5]',
  "object.metadata.labels['app']",
  'object.spec.names[object.spec.list.size() - 2]',
  "object.metadata['na' + 'me']",
  'object.spec.list.size() + object.spec.names.size()',
  "object.spec.containers.all(c, quantity(c.limit).isLessThan(quantity('1Gi')))",
  "[1, 2, 3].map(x, x * 2) + [4]",
  "{'a': 1, 'b': object.spec.replicas}",
  "{'a': 1, 'a': 2}",
  "int('12') + int(object.spec.replicas)",
  "int('x') == 1",
  "duration('1s') < duration('2s')",
  "string(object.spec.ratio) + 'x'",
  'dyn(object.spec.list).size()',
  'object.spec.missing == null',
  'object.nope.deeper',
  "object.metadata.toString == 'x'",
  'request.name == "n"',
  "!(object.spec.flag) || object.spec.replicas / 0 == 1",
  'object.spec.replicas == 3 || object.spec.x.y',
  "object.spec.nested.a.b.size() > 20 && object.spec.nested.a.b.contains('xx')",
  "object.spec.names.join(',')",
  'object.spec.list.sum()',
  "['b', 'a'].sort()",
  "object.spec.names.exists(n, n.matches('^c+$'))",
  'type(object.spec.replicas) == int',
  "optional.of(1).hasValue()",
  "object.?spec.?replicas.orValue(0) > 1",
  "[?optional.none(), 1].size()",
];

function norm(r: CelResult): unknown {
  return r.ok ? { ok: true, cost: r.cost, value: r.value } : { ok: false, cost: r.cost, message: r.error.message, exprId: r.error.exprId };
}

/** Compares first (walked) evaluations with the planned program's, for every input and every lower limit. */
function agree(env: CelEnv, expr: string, inputs: Record<string, CelValue>[]): void {
  const planned = new CelEnv({ ...env.options, tiered: false }).compile(expr, { cache: false });
  expect(planned.message).toBeUndefined();
  const fresh = (): NonNullable<typeof planned.program> => env.compile(expr, { cache: false }).program!;
  // what the walk leaves to the plan: blocks, optional syntax, the type of a schema object
  const walkable = !/cel\.block|\.\?|\[\?|orValue|type\(self\)/.test(expr);
  for (const vars of inputs) {
    const want = norm(planned.program!.eval(vars));
    const first = fresh();
    expect(norm(first.eval(vars)), JSON.stringify(vars, (_k, x) => (typeof x === 'bigint' ? String(x) : x))).toEqual(want);
    // a fault of the engine (a value not of its schema type reaching a typed overload) is the plan's to report
    const fault = String((want as { message?: string }).message).startsWith('internal error');
    expect(first.planned).toBe(!walkable || fault);
    const full = (want as { cost: number }).cost;
    for (let limit = 0; limit < full; limit++) expect(norm(fresh().eval(vars, { costLimit: limit }))).toEqual(norm(planned.program!.eval(vars, { costLimit: limit })));
  }
}

describe('the first evaluation (a walk over the AST) agrees with the plan', () => {
  const inputs = objects.map((o) => ({ object: fromJson(o), request: fromJson({ name: 'n' }) }));
  for (const optimize of [true, false]) {
    const env = newEnvironment('admission', { optimize });
    for (const expr of admissionExprs) it(`${optimize ? 'optimized' : 'unoptimized'}: ${expr}`, () => agree(env, expr, inputs));
  }

  const schema = {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      ratio: { type: 'number' },
      name: { type: 'string', maxLength: 63 },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
    },
  } as CelSchema;
  const crd = newEnvironment('crd', { schema });
  const selves = [
    { replicas: 3, ratio: 1.5, name: 'web-1', labels: { a: 'b' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] },
    { replicas: 2.5, name: 'x', ports: [{ port: 70000 }] },
    { name: 5, labels: [] },
  ];
  const crdExprs = [
    'self.replicas >= 2',
    'self.replicas + 1 > self.ports.size()',
    'self.ratio * 2.0 > 1.0',
    "self.name.startsWith('web') && self.name.size() <= 10",
    'self.ports.all(p, p.port > 0 && p.port < 65536)',
    "self.ports.exists(p, p.name == 'http')",
    "!has(self.labels) || self.labels.all(k, k.size() < 10)",
    'self.ports.map(p, p.port).sum() > 100',
    'self.replicas == oldSelf.replicas',
    'type(self) == type(oldSelf)',
  ];
  for (const expr of crdExprs) {
    it(`crd: ${expr}`, () => agree(crd, expr, selves.map((s) => ({ self: fromJson(s), oldSelf: fromJson({ ...s, replicas: 4 }) }))));
  }

  const plain = newEnvironment('plain', { variables: {} });
  const plainExprs = ["cel.bind(x, 'abc', x + x).size()", 'cel.block([1, cel.index(0) + 1], cel.index(1) * 2)', "[1, 2].exists(x, x == 2) ? 'y' : 'n'", 'lists.range(4).map(x, x * x)', 'math.greatest(1, 2, [3].size())', "{'a': 1}.transformMapEntry(k, v, {k + 'x': v + 1})"];
  for (const expr of plainExprs) it(`plain: ${expr}`, () => agree(plain, expr, [{}]));
});

describe('tiered programs', () => {
  it('are planned on their second evaluation, not when compiled', () => {
    const env = newEnvironment('admission');
    const p = env.compile("object.spec.replicas >= 2 && object.metadata.namespace == 'prod'", { cache: false }).program!;
    const vars = { object: fromJson(objects[0]!) };
    expect(p.planned).toBe(false);
    expect(p.eval(vars)).toEqual({ ok: true, value: true, cost: 8 });
    expect(p.planned).toBe(false);
    expect(p.eval(vars)).toEqual({ ok: true, value: true, cost: 8 });
    expect(p.planned).toBe(true);
  });

  it('leave a block or optional syntax to the plan from the first evaluation', () => {
    const plain = newEnvironment('plain', { variables: {} });
    const p = plain.compile('cel.block([1], cel.index(0) + 1)', { cache: false }).program!;
    expect(p.eval({}).ok).toBe(true);
    expect(p.planned).toBe(true);
  });

  it('are planned when compiled with tiered: false', () => {
    const env = new CelEnv({ ...newEnvironment('admission').options, tiered: false });
    expect(env.compile('1 + 1').program!.planned).toBe(true);
  });
});
