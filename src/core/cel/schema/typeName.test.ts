import { describe, expect, it } from 'vitest';
import { newEnvironment } from '../environments';
import { evaluateCel } from '../evaluations';
import { schemaValue, type CelSchema } from './types';

// type(self) reports the object type the API server declares for the rule's
// schema: a generated `selfType<n>` for self, extended with the (escaped)
// property names for nested objects; objects under list items and map
// values keep the declaration name `object`.
const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { 'a-b': { type: 'object', properties: { x: { type: 'integer' } } } } },
    items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
    m: { type: 'object', additionalProperties: { type: 'object', properties: { n: { type: 'string' } } } },
  },
} as CelSchema;
const self = { spec: { 'a-b': { x: 1 } }, items: [{ n: 'a' }], m: { k: { n: 'b' } } };

describe('type(self) names the schema object type', () => {
  const env = newEnvironment('crd', { schema, selfTypeName: 'selfType42' });
  const cases: [string, unknown][] = [
    ['type(self)', 'selfType42'],
    ['type(self.spec)', 'selfType42.spec'],
    ['type(self.spec.a__dash__b)', 'selfType42.spec.a__dash__b'],
    ['type(self.items[0])', 'object'],
    ["type(self.m['k'])", 'object'],
    ['type(self) == type(oldSelf)', true],
    ['type(self) == map', false],
    ['type(self.spec.a__dash__b.x) == int', true],
  ];
  it.each(cases)('%s', (expr, want) => {
    const c = env.compile(expr);
    expect(c.message).toBeUndefined();
    const v = schemaValue(self, schema);
    const r = c.program!.eval({ self: v, oldSelf: v });
    expect(r.ok).toBe(true);
    const got = r.ok ? r.value : undefined;
    expect(typeof got === 'object' && got !== null && 'name' in got ? (got as { name: string }).name : got).toBe(want);
  });

  it('type errors name the object types', () => {
    expect(env.compile('self.spec + 1').message).toBe("ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(selfType42.spec, int)'\n | self.spec + 1\n | ..........^");
  });

  it('without a given name each environment generates selfType<nanoseconds>', () => {
    const s = evaluateCel({ expression: 'type(self)', environment: 'crd', schema, variables: { self, oldSelf: self } });
    expect(s.value).toMatch(/^selfType\d{1,9}$/);
    expect(s.type).toBe(`type(${String(s.value)})`);
  });
});
