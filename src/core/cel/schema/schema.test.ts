import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../evaluations';
import { escapePropertyName, unescapePropertyName } from './escaping';
import { withTypeAndObjectMeta, type CelSchema } from './types';
import { newEnvironment } from '../environments';
import { typeToString } from '../common/types';

const obj = (properties: Record<string, CelSchema>, extra: Partial<CelSchema> = {}): CelSchema => ({ type: 'object', properties, ...extra }) as CelSchema;

function crd(expression: string, schema: CelSchema, self: unknown) {
  return evaluateCel({ expression, environment: 'crd', schema, variables: { self, oldSelf: self } });
}

describe('schema to CEL type mapping', () => {
  const cases: [string, string, CelSchema, unknown][] = [
    ['API-CEL-054', 'self.a == 1', obj({ a: { type: 'integer' } }), { a: 1 }],
    ['API-CEL-055', "'k' in self.m && self.m['k'] == 'v'", obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }), { m: { k: 'v' } }],
    ['API-CEL-056', "self.emb.kind == 'Foo' && self.emb.metadata.name != ''", obj({ emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } as CelSchema }), { emb: { apiVersion: 'v1', kind: 'Foo', metadata: { name: 'x' } } }],
    ['API-CEL-058', 'type(self.v) == int || type(self.v) == string', obj({ v: { 'x-kubernetes-int-or-string': true } }), { v: '5%' }],
    ['API-CEL-058', 'type(self.v) == int', obj({ v: { 'x-kubernetes-int-or-string': true } }), { v: 5 }],
    ['API-CEL-059', 'self.l.size() <= 3', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
    ['API-CEL-060', "self.s == ['b','a']", obj({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }), { s: ['a', 'b'] }],
    ['API-CEL-061', 'self.s.size() == self.s.map(x,x).size()', obj({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }), { s: ['a', 'b'] }],
    ['API-CEL-062', 'self.b == true', obj({ b: { type: 'boolean' } }), { b: true }],
    ['API-CEL-063', 'self.n == 1.5 && type(self.w) == double', obj({ n: { type: 'number' }, w: { type: 'number' } }), { n: 1.5, w: 2 }],
    ['API-CEL-064', 'self.i == 9223372036854775807', obj({ i: { type: 'integer' } }), { i: 9223372036854775807n }],
    ['API-CEL-065', 'type(self.i) == int', obj({ i: { type: 'integer' } }), { i: 3 }],
    ['API-CEL-066', 'self.n == null', obj({ n: { type: 'string', nullable: true } }), { n: null }],
    ['API-CEL-067', "self.s.startsWith('a')", obj({ s: { type: 'string' } }), { s: 'abc' }],
    ['API-CEL-068', 'self.b == b"abc"', obj({ b: { type: 'string', format: 'byte' } }), { b: 'YWJj' }],
    ['API-CEL-069', "self.d > timestamp('2000-01-01T00:00:00Z')", obj({ d: { type: 'string', format: 'date' } }), { d: '2020-02-03' }],
    ['API-CEL-070', "self.t > timestamp('2000-01-01T00:00:00Z')", obj({ t: { type: 'string', format: 'date-time' } }), { t: '2020-02-03T04:05:06Z' }],
    ['API-CEL-071', "self.dur < duration('1h')", obj({ dur: { type: 'string', format: 'duration' } }), { dur: '30m' }],
    ['API-CEL-072', 'self.a + self.b == [1,2,3]', obj({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } }, b: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } } }), { a: [1, 2], b: [2, 3] }],
    [
      'API-CEL-073',
      "(self.x + self.y).filter(e, e.k == 'a')[0].v == 2 && (self.x + self.y).size() == 2",
      obj({
        x: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: { type: 'string' }, v: { type: 'integer' } }) },
        y: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: { type: 'string' }, v: { type: 'integer' } }) },
      }),
      { x: [{ k: 'a', v: 1 }, { k: 'b', v: 1 }], y: [{ k: 'a', v: 2 }] },
    ],
    ['API-CEL-075', 'self.a__underscores__b == 1', obj({ a__b: { type: 'integer' } }), { a__b: 1 }],
    ['API-CEL-076', 'self.a__dot__b == 1', obj({ 'a.b': { type: 'integer' } }), { 'a.b': 1 }],
    ['API-CEL-077', 'self.a__dash__b == 1', obj({ 'a-b': { type: 'integer' } }), { 'a-b': 1 }],
    ['API-CEL-078', 'self.a__slash__b == 1', obj({ 'a/b': { type: 'integer' } }), { 'a/b': 1 }],
    ['API-CEL-079', 'self.__in__ == 1 && self.__namespace__ == 2', obj({ in: { type: 'integer' }, namespace: { type: 'integer' } }), { in: 1, namespace: 2 }],
    ['API-CEL-080', 'self.index == 1', obj({ index: { type: 'integer' } }), { index: 1 }],
    ['API-CEL-051', 'self.?a.orValue(1) >= 0', obj({ a: { type: 'integer' } }), {}],
    ['API-CEL-052', 'self.i > 1.5', obj({ i: { type: 'integer' } }), { i: 2 }],
    ['API-CEL-003', 'has(self.a)', obj({ a: { type: 'integer' } }), { a: 1 }],
    ['API-CEL-004', 'self.l.all(x, x > 0)', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
    ['API-CEL-005', 'self.l.exists(x, x == 1)', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
    ['API-CEL-006', 'self.l.exists_one(x, x == 1)', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
    ['API-CEL-007', 'self.l.map(x, x * 2)[0] == 2', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
    ['API-CEL-008', 'self.l.filter(x, x > 1).size() >= 0', obj({ l: { type: 'array', items: { type: 'integer' } } }), { l: [1, 2] }],
  ];
  it.each(cases)('[%s] %s', (_id, expression, schema, self) => {
    const s = crd(expression, schema, self);
    expect(s.error).toBeUndefined();
    expect(s.value).toBe(true);
  });

  it('[API-CEL-057] unknown fields of preserve-unknown-fields objects are not reachable', () => {
    const s = crd('self.extra == 1', obj({ a: { type: 'string' } }, { 'x-kubernetes-preserve-unknown-fields': true }), { a: 'x', extra: 1 });
    expect(s.error).toBe("ERROR: <input>:1:5: undefined field 'extra'\n | self.extra == 1\n | ....^");
  });

  it('[API-CEL-074] properties outside [a-zA-Z_.-/][a-zA-Z0-9_.-/]* are not accessible', () => {
    expect(escapePropertyName('1abc')).toBeUndefined();
    expect(escapePropertyName('a b')).toBeUndefined();
    expect(crd('self.a == 1', obj({ '1abc': { type: 'integer' }, a: { type: 'integer' } }), { '1abc': 1, a: 1 }).value).toBe(true);
  });

  it('escaping round-trips', () => {
    for (const n of ['a__b', 'a.b-c/d', 'in', 'return', 'index', 'x__dash__y']) {
      expect(unescapePropertyName(escapePropertyName(n)!)).toBe(n);
    }
    expect(escapePropertyName('x__dash__y')).toBe('x__underscores__dash__underscores__y');
  });

  it('a field typed from the schema rejects operations its type does not support', () => {
    const s = crd("self.a + 'x'", obj({ a: { type: 'integer' } }), { a: 1 });
    expect(s.error).toContain("found no matching overload for '_+_' applied to '(int, string)'");
  });
});

describe('resource roots', () => {
  const root = obj({ spec: obj({ replicas: { type: 'integer' } }) });

  it('[API-CEL-056] a resource root declares apiVersion, kind, metadata.name and metadata.generateName', () => {
    const env = newEnvironment('crd', { schema: root, resourceRoot: true });
    const r = env.compile("self.kind == 'Foo' && self.apiVersion != '' && self.metadata.name != self.metadata.generateName");
    expect(r.message).toBeUndefined();
    expect(typeToString(r.ast!.type)).toBe('bool');
    expect(newEnvironment('crd', { schema: root }).compile("self.kind == 'Foo'").message).toContain("undefined field 'kind'");
  });

  it('a root schema that declares them all is used as it is', () => {
    const str = { type: 'string', maxLength: 3 } as CelSchema;
    const full = obj({ kind: str, apiVersion: str, metadata: obj({ name: str, generateName: str, labels: { type: 'object', additionalProperties: str } as CelSchema }) });
    expect(withTypeAndObjectMeta(full)).toBe(full);
    const env = newEnvironment('crd', { schema: full, resourceRoot: true });
    expect(env.compile('size(self.metadata.labels) > 0').message).toBeUndefined();
    // without generateName the metadata schema is replaced, as the API server does
    const partial = obj({ metadata: obj({ name: str, labels: { type: 'object', additionalProperties: str } as CelSchema }) });
    const replaced = withTypeAndObjectMeta(partial);
    expect(Object.keys((replaced.properties!.metadata as CelSchema).properties!)).toEqual(['name', 'generateName']);
    expect(newEnvironment('crd', { schema: partial, resourceRoot: true }).compile('size(self.metadata.labels) > 0').message).toContain("undefined field 'labels'");
  });
});
