// The runtime cost of CRD rules, from apiextensions-apiserver's
// celcoststability_test.go: each rule evaluated against its schema and object
// through the evaluations resource must cost what the API server charges.
import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../evaluations';
import type { CelSchema } from './types';

const str: CelSchema = { type: 'string' };
const bytes: CelSchema = { type: 'string', format: 'byte' };
const int: CelSchema = { type: 'integer' };
const bool: CelSchema = { type: 'boolean' };
const list = (items: CelSchema, listType?: string): CelSchema => ({ type: 'array', items, ...(listType ? { 'x-kubernetes-list-type': listType } : {}) }) as CelSchema;
const listMap = (keys: string[], items: CelSchema): CelSchema => ({ type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys }) as CelSchema;
const map = (values: CelSchema): CelSchema => ({ type: 'object', additionalProperties: values }) as CelSchema;
const obj = (properties: Record<string, CelSchema>): CelSchema => ({ type: 'object', properties }) as CelSchema;
/** val1, val2, ... as the test's objs() and schemas() build them */
const vals = (schemas: CelSchema[], values: unknown[]): [CelSchema, Record<string, unknown>] => [
  obj(Object.fromEntries(schemas.map((s, i) => [`val${i + 1}`, s]))),
  Object.fromEntries(values.map((v, i) => [`val${i + 1}`, v])),
];

interface Group {
  name: string;
  schema: CelSchema;
  self: Record<string, unknown>;
  costs: Record<string, number>;
}

const groups: Group[] = [
  {
    name: 'unicode strings',
    ...(([schema, self]) => ({ schema, self }))(vals([str, str], ['Rook takes 👑', 'Rook takes 👑'])),
    costs: {
      "self.val1.startsWith('Rook')": 4,
      "!self.val1.startsWith('knight')": 5,
      "self.val1.matches('^[^0-9]*$')": 8,
      "!self.val1.matches('^[0-9]*$')": 7,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 4,
      "self.val1.indexOf('o', 2) == 2": 4,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 7,
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'": 7,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 6,
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']": 6,
      "self.val1.substring(5) == 'takes 👑'": 5,
      "self.val1.substring(0, 4) == 'Rook'": 5,
      "self.val1.substring(4, 10).trim() == 'takes'": 6,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 6,
      "self.val1.lowerAscii() == 'rook takes 👑'": 6,
    },
  },
  {
    name: 'bytes',
    ...(([schema, self]) => ({ schema, self }))(vals([bytes, bytes], ['QUI=', 'QUI='])),
    costs: { 'self.val1 == self.val2': 5, "self.val1 == b'AB'": 3, 'type(self.val1) == bytes': 4, 'size(self.val1) == 2': 4 },
  },
  {
    name: 'booleans',
    ...(([schema, self]) => ({ schema, self }))(vals([bool, bool, bool, bool], [true, true, false, false])),
    costs: { 'self.val1 != self.val4': 5, 'type(self.val1) == bool': 4 },
  },
  {
    name: 'lists',
    ...(([schema, self]) => ({ schema, self }))(vals([list(int), list(int)], [[1, 2, 3], [1, 2, 3]])),
    costs: {
      '1 in self.val1': 5,
      'self.val2[0] in self.val1': 8,
      '!(0 in self.val1)': 6,
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 6,
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 4,
    },
  },
  {
    name: 'listSets',
    ...(([schema, self]) => ({ schema, self }))(vals([list(str, 'set'), list(str, 'set')], [['a', 'b', 'c'], ['a', 'c', 'b']])),
    costs: {
      "self.val1 == ['c', 'b', 'a']": 3,
      'self.val1 == self.val2': 5,
      "'a' in self.val1": 5,
      'self.val2[0] in self.val1': 8,
      "!('x' in self.val1)": 6,
      "self.val1 + self.val2 == ['a', 'b', 'c']": 6,
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']": 4,
    },
  },
  {
    name: 'maps',
    ...(([schema, self]) => ({ schema, self }))(vals([map(str), map(str)], [{ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }])),
    costs: { 'self.val1 == self.val2': 5, "'k1' in self.val1": 3, "!('k3' in self.val1)": 4, "self.val1 == {'k1': 'a', 'k2': 'b'}": 3 },
  },
  {
    name: 'map access',
    schema: obj({ val: map(int) }),
    self: { val: { b: 1, d: 2 } },
    costs: {
      "!('a' in self.val)": 4,
      "'b' in self.val": 3,
      '!has(self.val.a)': 3,
      'has(self.val.b)': 2,
      'self.val.all(k, self.val[k] > 0)': 17,
      'self.val.exists_one(k, self.val[k] == 2)': 14,
      '!self.val.exists_one(k, self.val[k] > 0)': 17,
      'size(self.val) == 2': 4,
      'size(self.val.filter(k, self.val[k] > 1)) == 1': 26,
    },
  },
  {
    name: 'listMap access',
    schema: obj({ listMap: listMap(['k'], obj({ k: str, v: str, v2: str })) }),
    self: { listMap: [{ k: 'a1', v: 'b1' }, { k: 'a2', v: 'b2' }, { k: 'a3', v: 'b3', v2: 'z' }] },
    costs: {
      'has(self.listMap[0].v)': 3,
      "self.listMap.all(m, m.k.startsWith('a'))": 21,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 21,
      "self.listMap.exists(m, m.k.endsWith('1'))": 13,
      "self.listMap.exists_one(m, m.k == 'a3')": 15,
      "!self.listMap.all(m, m.k.endsWith('1'))": 18,
      "!self.listMap.exists(m, m.v == 'x')": 25,
      "!self.listMap.exists_one(m, m.k.startsWith('a'))": 20,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 27,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 16,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 55,
      "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')": 21,
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')": 10,
      "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')": 12,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 24,
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1": 25,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 39,
      "self.listMap.exists(m, m.v2 == 'z')": 24,
      "!self.listMap.all(m, m.v2 != 'z')": 22,
    },
  },
  {
    name: 'list access',
    schema: obj({ array: list(int) }),
    self: { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    costs: {
      '2 in self.array': 10,
      'self.array.all(e, e > 0)': 43,
      'self.array.exists(e, e > 2)': 36,
      'self.array.exists_one(e, e > 4)': 22,
      '!self.array.all(e, e < 2)': 21,
      '!self.array.exists(e, e < 0)': 52,
      '!self.array.exists_one(e, e == 2)': 25,
      'self.array.all(e, e < 100)': 43,
      'size(self.array.filter(e, e%2 == 0)) == 3': 68,
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)': 194,
      'size(self.array) == 8': 4,
    },
  },
];

describe("CRD rule runtime costs (celcoststability_test.go) through the evaluations resource", () => {
  for (const g of groups) {
    it.each(Object.entries(g.costs))(`[API-CEL-082] ${g.name}: %s costs %d`, (expression, cost) => {
      const s = evaluateCel({ expression, environment: 'crd', schema: g.schema, variables: { self: g.self, oldSelf: g.self } });
      expect(s.error).toBeUndefined();
      expect(s.value).toBe(true);
      expect(s.cost).toBe(cost);
    });
  }
});

// TestCelEstimatedCostStability: the estimate's max for rules over schemas without maxLength,
// maxItems or maxProperties (sizes derived from the 3 MiB request limit).
const I: CelSchema = { type: 'integer' };
const N: CelSchema = { type: 'number' };
const dur: CelSchema = { type: 'string', format: 'duration' };
const estimates: [CelSchema, string, number][] = [
  [vals([I, I, I, I, I, I], [])[0], 'self.val1 == self.val6', 4],
  [vals([I], [])[0], 'type(self.val1) == int', 4],
  [vals([N, N, N, N, N, N, N], [])[0], 'self.val7 == 1.0', 2],
  [vals([N, N, N, N, N, N, N], [])[0], 'type(self.val7) == double', 4],
  [vals([bool, bool, bool, bool], [])[0], 'self.val1 != self.val4', 4],
  [vals([I], [])[0], 'double(5) < 10.0', 2],
  [vals([I, N], [])[0], 'int(self.val2) == self.val1', 5],
  [vals([I, N], [])[0], 'double(self.val1) == self.val2', 5],
  [vals([I, N], [])[0], 'self.val1 < int(self.val2)', 6],
  [vals([I, I, I, I, I, I], [])[0], 'self.val3 + 1 == 2147483647 + 1', 5],
  [vals([str, str], [])[0], "self.val1.startsWith('Rook')", 3],
  [vals([str, str], [])[0], "!self.val1.startsWith('knight')", 4],
  [vals([str, str], [])[0], "self.val1.matches('^[^0-9]*$')", 943721],
  [vals([str, str], [])[0], "!self.val1.matches('^[0-9]*$')", 629149],
  [vals([str, str], [])[0], 'type(self.val1) == string', 4],
  [vals([str, str], [])[0], 'size(self.val1) == 12', 4],
  [vals([str, str], [])[0], "self.val1.charAt(3) == 'k'", 4],
  [vals([str, str], [])[0], "self.val1.indexOf('o') == 1", 314576],
  [vals([str, str], [])[0], "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", 629150],
  [vals([str, str], [])[0], "self.val1.split(' ') == ['Rook', 'takes', '👑']", 629159],
  [vals([str, str], [])[0], "self.val1.substring(4, 10).trim() == 'takes'", 629149],
  [vals([str, str], [])[0], "self.val1.lowerAscii() == 'rook takes 👑'", 314577],
  [vals([str, str], [])[0], 'self.val1.lowerAscii() == self.val1.lowerAscii()', 943723],
  [vals([bytes, bytes], [])[0], 'self.val1 == self.val2', 314577],
  [vals([bytes, bytes], [])[0], "self.val1 == b'AB'", 3],
  [vals([dur, dur], [])[0], "self.val1 == duration('1h2m') + duration('3s4ms')", 6],
  [vals([dur, dur], [])[0], 'self.val1.getHours() == 1', 4],
  [obj({ enumStr: { type: 'string', enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] } as CelSchema }), "self.enumStr in ['Pending', 'Available']", 14],
  [vals([I, N, N, N, bool, str], [])[0], 'string(self.val1) == self.val6', 314578],
  [vals([list(I), list(I)], [])[0], '1 in self.val1', 1572865],
  [vals([list(I), list(I)], [])[0], 'self.val1 + [4, 5] == [1, 2, 3, 4, 5]', 24],
  [vals([list(I), list(I)], [])[0], 'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]', 16],
  [vals([list(I), list(I)], [])[0], 'self.val1.all(k, size(self.val1) > 0)', 11010044],
  [vals([list(I), list(I)], [])[0], 'self.val1.exists_one(k, self.val1 == [2])', 23592949],
  [vals([list(I), list(I)], [])[0], '!self.val1.exists_one(k, size(self.val1) > 0)', 9437183],
  [vals([list(I), list(I)], [])[0], 'size(self.val1.filter(k, size(self.val1) > 1)) == 1', 26738686],
  [vals([list(str, 'set'), list(str, 'set')], [])[0], "self.val1 == ['c', 'b', 'a']", 13],
  [vals([list(str, 'set'), list(str, 'set')], [])[0], 'self.val1 == self.val2', 104862],
  [vals([list(str, 'set'), list(str, 'set')], [])[0], "'a' in self.val1", 1048577],
];

describe('CRD rule estimated costs (celcoststability_test.go TestCelEstimatedCostStability) through the evaluations resource', () => {
  it.each(estimates.map(([schema, expression, max]) => [expression, max, schema] as const))('[API-CEL-082] %s estimates at most %d', (expression, max, schema) => {
    const s = evaluateCel({ expression, environment: 'crd', schema });
    expect(s.estimatedCost?.max).toBe(max);
  });
});
