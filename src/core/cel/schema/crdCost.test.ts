import { describe, expect, it } from 'vitest';
import { costErrorMessage, estimateCrdCost, maxCardinality, minSerializedSize } from './crdCost';
import type { CelSchema } from './types';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';
const rule = (r: string, messageExpression?: string) => ({ 'x-kubernetes-validations': [{ rule: r, ...(messageExpression ? { messageExpression } : {}) }] });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): CelSchema => ({ type: 'object', properties, ...extra }) as CelSchema;
const intItems = (extra: Record<string, unknown> = {}) => ({ type: 'array', items: { type: 'integer', ...rule('self > 0') }, ...extra });
const ruleCost = (schema: CelSchema, path: string) => estimateCrdCost(schema, ROOT).expressions.find((e) => e.path === `${ROOT}${path}`);

describe('CRD rule cost: the estimate is multiplied by the rule cardinality', () => {
  // `self > 0` on an int estimates 2 (identifier 1, comparison 1)
  const cases: [string, CelSchema, string, number][] = [
    ['a rule on the root runs once', obj({ a: { type: 'integer' } }, rule('self.a > 0')), '.x-kubernetes-validations[0].rule', 1],
    ['list items with maxItems run maxItems times', obj({ l: intItems({ maxItems: 10 }) }), '.properties[l].items.x-kubernetes-validations[0].rule', 10],
    ['nested bounded lists multiply', obj({ l: { type: 'array', maxItems: 5, items: intItems({ maxItems: 10 }) } }), '.properties[l].items.items.x-kubernetes-validations[0].rule', 50],
    ['map values with maxProperties', obj({ m: { type: 'object', maxProperties: 7, additionalProperties: { type: 'integer', ...rule('self > 0') } } }), '.properties[m].additionalProperties.x-kubernetes-validations[0].rule', 7],
    ['object properties do not multiply', obj({ l: { type: 'array', maxItems: 4, items: obj({ o: obj({ i: { type: 'integer' } }, rule('self.i > 0')) }) } }), '.properties[l].items.properties[o].x-kubernetes-validations[0].rule', 4],
    // unbounded: 3 MiB / (min JSON size of an int (1) + one comma) = 1572864 occurrences
    ['unbounded list items: the request-size estimate for the rule type', obj({ l: intItems() }), '.properties[l].items.x-kubernetes-validations[0].rule', 1572864],
    ['an unbounded list above a bounded one is unbounded', obj({ l: { type: 'array', items: intItems({ maxItems: 10 }) } }), '.properties[l].items.items.x-kubernetes-validations[0].rule', 1572864],
  ];
  it.each(cases)('%s', (_name, schema, path, cardinality) => {
    const e = ruleCost(schema, path)!;
    expect(e.cardinality).toBe(cardinality);
    expect(e.cost).toBe(e.estimatedCost * cardinality);
  });

  it('the request-size cardinality uses the minimal JSON size of the rule type', () => {
    const sizes: [CelSchema, number][] = [
      [{ type: 'string' } as CelSchema, 2],
      [{ type: 'boolean' } as CelSchema, 4],
      [{ type: 'string', format: 'date' } as CelSchema, 12],
      [{ type: 'string', format: 'date-time' } as CelSchema, 21],
      [{ type: 'string', format: 'duration' } as CelSchema, 3],
      [obj({}), 2],
    ];
    for (const [s, n] of sizes) expect(minSerializedSize(s)).toBe(n);
    expect(maxCardinality(2)).toBe(1048576);
  });

  it('messageExpression costs are not multiplied', () => {
    const s = obj({ l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, ...rule('self.size() > 0', "'bad: ' + self") } } });
    const r = estimateCrdCost(s, ROOT);
    const m = r.expressions.find((e) => e.path.endsWith('messageExpression'))!;
    expect(m.cardinality).toBe(1);
    expect(m.cost).toBe(m.estimatedCost);
    expect(r.total).toBe(r.expressions.reduce((t, e) => t + e.cost, 0));
  });
});

describe('CRD rule cost errors (apiextensions texts)', () => {
  it('factor formatting follows getCostErrorMessage', () => {
    const tail = ' (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    expect(costErrorMessage('estimated rule cost', 12_000_000, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of 1.200000x${tail}`);
    expect(costErrorMessage('estimated rule cost', 25_000_000, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of 2.5x${tail}`);
    expect(costErrorMessage('estimated rule cost', 2_000_000_000, 10_000_000)).toBe(`estimated rule cost exceeds budget by factor of more than 100x${tail}`);
  });

  it('a bounded schema has no errors', () => {
    expect(estimateCrdCost(obj({ l: intItems({ maxItems: 10 }) }), ROOT).errors).toEqual([]);
  });

  it('a rule over the per-rule limit, and the total over the per-CRD limit with its largest contributors', () => {
    // contains() over unbounded strings: 314574 per evaluation, 1048576 evaluations
    const s = obj({
      small: intItems({ maxItems: 10 }),
      s: { type: 'array', items: { type: 'string', ...rule("self.contains('x')") } },
    });
    const r = estimateCrdCost(s, ROOT);
    const tail = ' (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    const path = `${ROOT}.properties[s].items.x-kubernetes-validations[0].rule`;
    expect(r.expressions.find((e) => e.path === path)).toMatchObject({ estimatedCost: 314574, cardinality: 1048576, cost: 314574 * 1048576 });
    expect(r.errors).toEqual([
      { type: 'FieldValueForbidden', field: path, detail: `estimated rule cost exceeds budget by factor of more than 100x${tail}` },
      // the small rule (20) is under 1% of the limit and is not named
      { type: 'FieldValueForbidden', field: path, detail: 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema' },
      { type: 'FieldValueForbidden', field: ROOT, detail: `x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x${tail}` },
    ]);
  });

  it('rules under the per-rule limit can still exceed the total together; at most four are named', () => {
    // each: `self > 0` (2) over 3_000_000 ints = 6_000_000, under 10_000_000; 20 of them = 120_000_000
    const props: Record<string, unknown> = {};
    for (let i = 0; i < 20; i++) props[`p${i}`] = intItems({ maxItems: 3_000_000 });
    const r = estimateCrdCost(obj(props), ROOT);
    expect(r.total).toBe(120_000_000);
    const contributed = r.errors.filter((e) => e.detail?.startsWith('contributed'));
    expect(contributed).toHaveLength(4);
    expect(r.errors.at(-1)!.detail).toContain('exceeds budget by factor of 1.200000x');
  });

  it('rules that do not compile are left to the compiler errors', () => {
    expect(estimateCrdCost(obj({ a: { type: 'integer' } }, rule('self.nope > 0')), ROOT).expressions).toEqual([]);
  });
});
