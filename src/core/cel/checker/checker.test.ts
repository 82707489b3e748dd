import { describe, expect, it } from 'vitest';
import { T, typeToString } from '../common/types';
import { debugString } from '../debug';
import { CelEnv } from '../env';
import { newEnvironment } from '../environments';
import { estimateCost } from './cost';

const env = new CelEnv({ variables: { m: T.map(T.string, T.int), l: T.list(T.string), d: T.dyn } });

describe('checker golden output (types adorned)', () => {
  const cases: [string, string][] = [
    ["m['a'] + 1", "_+_(_[_](m^#1:map(string, int), \"a\"^#2:string)^#3:int, 1^#4:int)^#5:int"],
    ['l.size() > 0 && d', '_&&_(_>_(l^#1:list(string).size()^#2:int, 0^#3:int)^#4:bool, d^#5:dyn)^#6:bool'],
    ['[1, 2][0]', '_[_]([1^#1:int, 2^#2:int]^#3:list(int), 0^#4:int)^#5:int'],
    ['optional.of(1).orValue(2)', 'optional^#1.of(1^#2:int)^#3:optional_type(int).orValue(2^#4:int)^#5:int'],
  ];
  it.each(cases)('%s', (src, want) => {
    const r = env.compile(src);
    expect(r.message).toBeUndefined();
    const ast = r.ast!;
    expect(debugString(ast.expr, (e) => (ast.typeMap.has(e.id) ? `:${typeToString(ast.typeMap.get(e.id)!)}` : ''))).toBe(want);
  });
});

describe('checker errors (cel-go wording)', () => {
  const cases: [string, string][] = [
    ['x', "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^"],
    ["1 + 'a'", "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^"],
    ["'a'.contains(1)", "ERROR: <input>:1:13: found no matching overload for 'contains' applied to 'string.(int)'\n | 'a'.contains(1)\n | ............^"],
    ['1.f', "ERROR: <input>:1:2: type 'int' does not support field selection\n | 1.f\n | .^"],
  ];
  it.each(cases)('%s', (src, want) => {
    expect(env.compile(src).message).toBe(want);
  });

  it('Kubernetes environments reject mixed-type literals (HomogeneousAggregateLiterals)', () => {
    const k = newEnvironment('crd');
    expect(k.compile("[1, 'a']").message).toBe("ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^");
    expect(env.compile("[1, 'a']").ast!.type).toEqual(T.list(T.dyn));
  });
});

describe('static cost estimates', () => {
  const k = newEnvironment('crd', {
    schema: {
      type: 'object',
      properties: {
        s: { type: 'string', maxLength: 10 },
        l: { type: 'array', maxItems: 4, items: { type: 'integer' } },
        names: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 8 } },
      },
    } as never,
  });
  const cases: [string, { min: number; max: number }][] = [
    ['self.s == "abc"', { min: 3, max: 3 }],
    ["self.s.matches('^[a-z]+$')", { min: 4, max: 6 }],
    ['self.l.all(x, x > 0)', { min: 3, max: 23 }],
    // an item of a list of integers is a scalar of the schema, with no elements: comparing it is free (celcoststability)
    ['self.l.exists(x, x == 1)', { min: 3, max: 23 }],
    ['self.l.map(x, x + 1).size() > 0', { min: 15, max: 71 }],
    ["has(self.s) && self.s.startsWith('a')", { min: 1, max: 4 }],
    ["self.names.all(n, n.size() < 5)", { min: 3, max: 15 }],
  ];
  it.each(cases)('%s', (src, want) => {
    const r = k.compile(src);
    expect(r.message).toBeUndefined();
    expect(estimateCost(r.ast!, k.functions)).toEqual(want);
  });
});
