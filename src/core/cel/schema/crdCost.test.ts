import { describe, expect, it } from 'vitest';
import { costErrorMessage, estimateCrdCost, maxCardinality, minSerializedSize } from './crdCost';
import type { CelSchema } from './types';
import { fieldErrorString } from '../../errors/fieldErrors';

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

describe('CRD rule typing and size estimates (apiextensions DeclTypes)', () => {
  const costOf = (schema: CelSchema, path: string) => ruleCost(schema, path)?.estimatedCost;

  it('[API-CEL-056] rules at the resource root see apiVersion, kind, metadata.name and metadata.generateName', () => {
    const s = obj({ spec: { type: 'object' } }, rule("self.metadata.name == self.metadata.generateName && self.kind != '' && self.apiVersion != ''"));
    // three selections each side of ==, compared over an unbounded string: ceil((3 MiB - 2) × 0.1) = 314573; the two != '' cost 2 each
    expect(costOf(s, '.x-kubernetes-validations[0].rule')).toBe(3 + 3 + 314573 + 2 + 2);
  });

  it('below the root they are not declared, and such a rule does not compile', () => {
    expect(estimateCrdCost(obj({ spec: obj({ a: { type: 'string' } }, rule("self.kind != ''")) }), ROOT).expressions).toEqual([]);
  });

  it('a root metadata schema lacking generateName is replaced by name and generateName alone', () => {
    const s = obj(
      { metadata: obj({ name: { type: 'string', maxLength: 5 }, labels: { type: 'object', additionalProperties: { type: 'string' } } }) },
      { 'x-kubernetes-validations': [{ rule: 'size(self.metadata.labels) > 0' }, { rule: 'self.metadata.name.size() > 0' }] },
    );
    const r = estimateCrdCost(s, ROOT);
    expect(r.expressions.map((e) => e.path)).toEqual([`${ROOT}.x-kubernetes-validations[1].rule`]);
  });

  it('[API-CRD-008] unbounded lists of formatted strings: items are as many as the minimal size allows, each as long as the format allows', () => {
    // self.all(x, x == x): 2 + n × (2 condition + 1 accumulator + 2 idents + equality ceil(maxLength × 0.1))
    const listOf = (format?: string) => obj({ l: { type: 'array', items: { type: 'string', ...(format ? { format } : {}) }, ...rule('self.all(x, x == x)') } });
    const n = (minSize: number) => Math.floor((3 * 1024 * 1024 - 2) / (minSize + 1));
    const path = '.properties[l].x-kubernetes-validations[0].rule';
    expect(costOf(listOf('date-time'), path)).toBe(2 + n(21) * (5 + 4)); // min 21, max 32
    expect(costOf(listOf('date'), path)).toBe(2 + n(12) * (5 + 2)); // 12 and 12
    expect(costOf(listOf('duration'), path)).toBe(2 + n(3) * (5 + 4)); // min 3, max 32
    // the same rule over plain strings is far over the per-rule limit
    const plain = estimateCrdCost(listOf(), ROOT);
    expect(plain.errors[0]).toMatchObject({ type: 'FieldValueForbidden', field: `${ROOT}${path}` });
    expect(estimateCrdCost(listOf('date-time'), ROOT).errors).toEqual([]);
  });

  it('required properties without a default add name, quotes, colon, comma and their minimal value to an object', () => {
    const items = (nameSchema: Record<string, unknown>) =>
      obj({ l: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: nameSchema } }, ...rule("self.all(x, x.name == 'a')") } });
    const path = '.properties[l].x-kubernetes-validations[0].rule';
    // {"name":""}: 2 + 4 + 2 + 4 = 12; per item 2 + 1 + 3
    expect(costOf(items({ type: 'string' }), path)).toBe(2 + Math.floor((3 * 1024 * 1024 - 2) / 13) * 6);
    // a defaulted property is filled in by the server: {} only
    expect(costOf(items({ type: 'string', default: 'x' }), path)).toBe(2 + Math.floor((3 * 1024 * 1024 - 2) / 3) * 6);
    expect(minSerializedSize(obj({ a: { type: 'string', format: 'date' } }, { required: ['a'] }))).toBe(2 + 1 + 12 + 4);
  });

  it('unbounded maps hold (3 MiB - 2) / (minimal value size + 6) entries', () => {
    const s = obj({ m: { type: 'object', additionalProperties: { type: 'integer' }, ...rule('self.all(k, self[k] > 0)') } });
    expect(costOf(s, '.properties[m].x-kubernetes-validations[0].rule')).toBe(2 + Math.floor((3 * 1024 * 1024 - 2) / 7) * 7);
  });
});

describe('messageExpression must evaluate to a string', () => {
  const rules = (validations: Record<string, unknown>[], extra: Record<string, unknown> = { type: 'integer' }) => obj({ f: { ...extra, 'x-kubernetes-validations': validations } });
  const path = (i: number) => `${ROOT}.properties[f].x-kubernetes-validations[${i}].messageExpression`;

  it('a non-string messageExpression is Invalid, shown with the rule as the API server prints it, and not costed', () => {
    const r = estimateCrdCost(rules([{ rule: 'self == 5', messageExpression: '42' }]), ROOT);
    expect(r.errors).toEqual([
      {
        type: 'FieldValueInvalid',
        field: path(0),
        valueText: 'apiextensions.ValidationRule{Rule:"self == 5", Message:"", MessageExpression:"42", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}',
        detail: 'messageExpression must evaluate to a string',
      },
    ]);
    expect(fieldErrorString(r.errors[0]!)).toBe(
      `${path(0)}: Invalid value: apiextensions.ValidationRule{Rule:"self == 5", Message:"", MessageExpression:"42", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string`,
    );
    expect(r.expressions.map((e) => e.path)).toEqual([`${ROOT}.properties[f].x-kubernetes-validations[0].rule`]);
    // self (1) == 5 (0: an integer of the schema has no elements to compare)
    expect(r.total).toBe(1);
  });

  it('dyn is not a string either (int-or-string self)', () => {
    const r = estimateCrdCost(rules([{ rule: 'self == 5', messageExpression: 'self' }], { 'x-kubernetes-int-or-string': true }), ROOT);
    expect(r.errors.map((e) => [e.field, e.detail])).toEqual([[path(0), 'messageExpression must evaluate to a string']]);
  });

  it('string messageExpressions are costed, unmultiplied', () => {
    const r = estimateCrdCost(rules([{ rule: 'self == 5', messageExpression: "'bad'", reason: 'FieldValueInvalid' }]), ROOT);
    expect(r.errors).toEqual([]);
    expect(r.expressions.find((e) => e.path === path(0))).toMatchObject({ estimatedCost: 0, cardinality: 1 });
  });
});
