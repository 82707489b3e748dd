// No CEL input produces a server error: random expressions, well-formed or not,
// in every environment, go through POST .../evaluations and come back 201 with
// a value or a CEL error (position included) in the status.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

const literal = fc.oneof(
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  fc.bigInt({ min: 0n, max: 2n ** 65n }).map((n) => `${n}u`),
  fc.constantFrom('1.0', '-0.0', '1e308', '2.5', "double('NaN')", "double('-Inf')", '0.1'),
  fc.constantFrom('true', 'false', 'null', "b'\\xff\\x00'", "b'abc'", "''", "'é'", "'a b'", "'%zz'", "'\\u00ff'"),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    "timestamp('0001-01-01T00:00:00Z')",
    "timestamp('9999-12-31T23:59:59Z')",
    "duration('1s')",
    "duration('-290y')",
    "'192.168.0.1'",
    "'::1'",
    "'10.0.0.0/8'",
    "'https://example.com/with space/?a=1&a=2'",
    "'1.2.3-rc.1'",
    "'1.5Gi'",
    "'^a+$'",
    "'(['",
  ),
);

const UNARY = ['size', 'string', 'int', 'uint', 'double', 'bytes', 'bool', 'dyn', 'type', 'duration', 'timestamp', 'ip', 'cidr', 'url', 'quantity', 'semver', 'isIP', 'isCIDR', 'isURL', 'isQuantity', 'isSemver', 'optional.of', 'optional.ofNonZeroValue', 'ip.isCanonical', 'format.named', 'lists.range', 'strings.quote', 'math.abs', 'math.ceil', 'base64.encode', 'base64.decode'];
const MEMBER0 = ['sum', 'min', 'max', 'isSorted', 'size', 'lowerAscii', 'upperAscii', 'trim', 'reverse', 'distinct', 'flatten', 'sort', 'getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath', 'getQuery', 'family', 'isLoopback', 'isUnspecified', 'isGlobalUnicast', 'ip', 'masked', 'prefixLength', 'asInteger', 'isInteger', 'asApproximateFloat', 'sign', 'major', 'minor', 'patch', 'value', 'hasValue', 'getFullYear', 'getHours', 'getSeconds'];
const MEMBER1 = ['indexOf', 'lastIndexOf', 'contains', 'startsWith', 'endsWith', 'matches', 'find', 'findAll', 'split', 'join', 'charAt', 'substring', 'containsIP', 'containsCIDR', 'add', 'sub', 'isLessThan', 'isGreaterThan', 'compareTo', 'orValue', 'or', 'validate', 'slice', 'format', 'getHours'];
const BINARY = ['+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '&&', '||', 'in'];

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    fc.constantFrom('self', 'object', 'x', 'request', 'claims', 'authorizer', 'variables'),
    fc.tuple(fc.constantFrom(...UNARY), tie('e')).map(([f, a]) => `${f}(${a})`),
    fc.tuple(tie('e'), fc.constantFrom(...MEMBER0)).map(([t, f]) => `${t}.${f}()`),
    fc.tuple(tie('e'), fc.constantFrom(...MEMBER1), tie('e')).map(([t, f, a]) => `${t}.${f}(${a})`),
    fc.tuple(tie('e'), fc.constantFrom(...BINARY), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom('!', '-'), tie('e')).map(([op, a]) => `${op}${a}`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.array(fc.tuple(tie('e'), tie('e')), { maxLength: 2 }).map((xs) => `{${xs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    fc.tuple(tie('e'), fc.constantFrom('all', 'exists', 'exists_one', 'map', 'filter'), tie('e')).map(([r, m, b]) => `${r}.${m}(v, ${b})`),
    fc.tuple(tie('e'), tie('e')).map(([a, i]) => `${a}[${i}]`),
    fc.tuple(tie('e'), fc.constantFrom('a', 'spec', 'metadata')).map(([a, f]) => `${a}.${f}`),
    fc.tuple(tie('e'), fc.constantFrom('a', 'spec')).map(([a, f]) => `${a}.?${f}`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, t, f]) => `(${c} ? ${t} : ${f})`),
    fc.tuple(tie('e'), fc.constantFrom('a', 'spec')).map(([a, f]) => `has(${a}.${f})`),
  ),
})).e;

const json = fc.jsonValue({ maxDepth: 2 });

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

describe('evaluations: no CEL input produces a server error', () => {
  it('[API-CEL-086] a dynamic list of doubles summed is no such overload, with its position', async () => {
    const r = await t.json('POST', '/apis/cel.kubesim.dev/v1alpha1/evaluations', {
      body: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec: { expression: 'dyn([1.0, 2.0]).sum()', environment: 'crd' } },
    });
    expect(r.status).toBe(201);
    expect(r.body.status.error).toBe('ERROR: <input>:1:20: no such overload\n | dyn([1.0, 2.0]).sum()\n | ...................^');
    // the list and dyn() are folded when the program is planned (OptOptimize): only sum() is charged
    expect(r.body.status.cost).toBe(2);
    expect(r.body.status.estimatedCost).toEqual({ min: 12, max: 12 });
  });

  it('[API-CEL-082] library cost facts and CRD cost facts hold through HTTP, with typeSizes and optimize', async () => {
    const post = async (spec: Record<string, unknown>) =>
      (await t.json('POST', '/apis/cel.kubesim.dev/v1alpha1/evaluations', { body: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec } })).body.status;
    // cost_test.go: 5 strings of 12 characters sorted, sizes assumed 0..12, program not optimized
    const lib = await post({
      expression: "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].isSorted()",
      environment: 'admission',
      typeSizes: { string: { min: 0, max: 12 } },
      optimize: false,
    });
    expect(lib).toMatchObject({ value: true, cost: 15, estimatedCost: { min: 15, max: 25 } });
    // celcoststability_test.go: a literal list compared with a set costs nothing at runtime in the API server
    const crd = await post({
      expression: "self.val1 == ['c', 'b', 'a']",
      environment: 'crd',
      schema: { type: 'object', properties: { val1: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } } },
      variables: { self: { val1: ['a', 'b', 'c'] } },
    });
    expect(crd).toMatchObject({ value: true, cost: 3, estimatedCost: { max: 13 } });
  });

  it('[API-CEL-086] random expressions in every environment answer 201 with a value or a CEL error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 5, arbitrary: expr }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }),
        fc.constantFrom('crd', 'admission', 'authentication', 'authorization', 'plain'),
        json,
        async (expression, environment, value) => {
          const variables = environment === 'crd' ? { self: value } : environment === 'plain' ? { x: value, self: value } : { object: value, claims: {} };
          const spec = { expression, environment, variables, ...(environment === 'crd' ? { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } : {}) };
          const r = await t.json('POST', '/apis/cel.kubesim.dev/v1alpha1/evaluations', { body: { apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec } });
          expect(r.status).toBe(201);
          const s = r.body.status;
          if (s.error !== undefined) {
            expect(s.error).toMatch(/^ERROR: <input>:\d+:\d+: /);
            expect(s.error).not.toMatch(/internal error/);
          }
          else expect(s).toHaveProperty('value');
        },
      ),
      { numRuns: 500, seed: 20, endOnFailure: true },
    );
  });
});
