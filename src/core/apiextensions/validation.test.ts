/**
 * Validation through HTTP: the CRD itself (apiextensions validation,
 * structural schemas, CEL rule compilation and cost), and custom objects
 * against their schema (types, formats, enums, bounds, required, pruning,
 * defaulting, list types) and their x-kubernetes-validations rules.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

function crdWith(schema: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }],
    },
  };
}

const specSchema = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...more } },
});

const widget = (spec: unknown, name = 'w') => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

async function createCrd(body: unknown) {
  const r = await t.json('POST', CRDS, { body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

describe('CRD validation', () => {
  it('[API-VER-133] spec.scope is required; the name must be <plural>.<group>; the group needs a dot', async () => {
    const crd = crdWith({ type: 'object' });
    (crd.spec as Record<string, unknown>).scope = '';
    crd.spec.group = 'example';
    const r = await t.json('POST', CRDS, { body: crd });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group', field: 'metadata.name' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "example": should be a domain with at least one dot', field: 'spec.group' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.scope' },
    ]);
  });

  it('exactly one storage version', async () => {
    const crd = crdWith({ type: 'object' });
    crd.spec.versions.push({ ...crd.spec.versions[0]!, name: 'v2' });
    const r = await t.json('POST', CRDS, { body: crd });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{');
    expect(r.body.message).toContain(': must have exactly one version marked as storage version');
  });

  it('[API-VER-137] a version without a schema is rejected', async () => {
    const crd = crdWith({ type: 'object' });
    delete (crd.spec.versions[0] as Record<string, unknown>).schema;
    const r = await t.json('POST', CRDS, { body: crd });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required');
  });

  it('[API-VER-138] a property without a type makes the schema non-structural', async () => {
    const r = await t.json('POST', CRDS, { body: crdWith(specSchema({ size: { description: 'no type' } })) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    );
  });

  it('[API-VER-139] spec.preserveUnknownFields=true is refused', async () => {
    const crd = crdWith({ type: 'object' });
    (crd.spec as Record<string, unknown>).preserveUnknownFields = true;
    const r = await t.json('POST', CRDS, { body: crd });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toContainEqual({ reason: 'FieldValueInvalid', field: 'spec.preserveUnknownFields', message: 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead' });
  });

  it('[API-CRD-003] list-map-keys need list-type map', async () => {
    const r = await t.json('POST', CRDS, {
      body: crdWith(specSchema({ items: { type: 'array', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } } })),
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.validation.openAPIV3Schema.properties[spec].properties[items].x-kubernetes-list-type', message: 'Required value: must be map if x-kubernetes-list-map-keys is non-empty' },
    ]);
  });

  it('[API-CRD-004] list-map key fields must be scalar', async () => {
    const r = await t.json('POST', CRDS, {
      body: crdWith(specSchema({ items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'object' } } } } })),
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].message).toBe('Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map');
  });

  it('[API-CRD-009] a rule that does not type-check is rejected with the compiler error', async () => {
    const r = await t.json('POST', CRDS, { body: crdWith(specSchema({ size: { type: 'integer' } }, { 'x-kubernetes-validations': [{ rule: 'self.nope > 0' }] })) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ' +
        'apiextensions.ValidationRule{Rule:"self.nope > 0", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ' +
        "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 0\n | ....^",
    );
  });

  it('[API-CRD-008] a rule whose estimated cost is over the limit is rejected naming the rule and the cost', async () => {
    const r = await t.json('POST', CRDS, {
      body: crdWith(specSchema({ list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } })),
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0]).toMatchObject({
      reason: 'FieldValueForbidden',
      field: 'spec.validation.openAPIV3Schema.properties[spec].properties[list].x-kubernetes-validations[0].rule',
    });
    expect(r.body.details.causes[0].message).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of /);
  });

  it('names are immutable once established; storedVersions follow the storage version', async () => {
    await createCrd(crdWith({ type: 'object' }));
    const got = await t.json('GET', `${CRDS}/widgets.example.com`);
    const changed = structuredClone(got.body);
    changed.spec.names.kind = 'Gadget';
    changed.spec.scope = 'Cluster';
    const r = await t.json('PUT', `${CRDS}/widgets.example.com`, { body: changed });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.scope', 'spec.names.kind']);
    const next = structuredClone(got.body);
    next.spec.versions = [{ ...next.spec.versions[0], storage: false }, { ...next.spec.versions[0], name: 'v2', storage: true }];
    const ok = await t.json('PUT', `${CRDS}/widgets.example.com`, { body: next });
    expect(ok.status).toBe(200);
    expect(ok.body.status.storedVersions).toEqual(['v1', 'v2']);
  });
});

describe('custom object validation', () => {
  const props = {
    size: { type: 'integer', minimum: 1, maximum: 10 },
    color: { type: 'string', enum: ['red', 'blue'] },
    name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
    when: { type: 'string', format: 'date-time' },
    port: { 'x-kubernetes-int-or-string': true },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3, 'x-kubernetes-list-type': 'set' },
    ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
    mode: { type: 'string', default: 'auto' },
    note: { type: 'string', nullable: true },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  };
  beforeEach(async () => {
    await createCrd(crdWith(specSchema(props, { required: ['size'] })));
  });

  it('types, enums, bounds, patterns, formats and required fields, formatted as kube-openapi errors', async () => {
    const r = await t.json('POST', WIDGETS, { body: widget({ size: 'big', color: 'green', name: 'ABCDEFG', when: 'yesterday', port: true }) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Widget.example.com "w" is invalid: [spec.size: Invalid value: "string": spec.size in body must be of type integer: "string", ' +
        'spec.color: Unsupported value: "green": supported values: "red", "blue", ' +
        'spec.name: Too long: may not be more than 5 bytes, ' +
        "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$', " +
        'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday", ' +
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"]',
    );
    const bounds = await t.json('POST', WIDGETS, { body: widget({ size: 11 }) });
    expect(bounds.body.message).toBe('Widget.example.com "w" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10');
    const missing = await t.json('POST', WIDGETS, { body: widget({ color: 'red' }) });
    expect(missing.body.message).toBe('Widget.example.com "w" is invalid: spec.size: Required value');
    const nulls = await t.json('POST', WIDGETS, { body: widget({ size: 1, note: null, name: null }) });
    expect(nulls.body.message).toBe('Widget.example.com "w" is invalid: spec.name: Invalid value: "null": spec.name in body must be of type string: "null"');
  });

  it('[API-CRD-001][API-CRD-002] set and map lists reject duplicates', async () => {
    const r = await t.json('POST', WIDGETS, { body: widget({ size: 1, tags: ['a', 'a'], ports: [{ name: 'x', port: 1 }, { name: 'x', port: 2 }] }) });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'spec.tags[1]' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: map[string]interface {}{"name":"x"}', field: 'spec.ports[1]' },
    ]);
    const many = await t.json('POST', WIDGETS, { body: widget({ size: 1, tags: ['a', 'b', 'c', 'd'] }) });
    expect(many.body.message).toBe('Widget.example.com "w" is invalid: spec.tags: Too many: 4: must have at most 3 items');
  });

  it('defaults, int-or-string, nullable, embedded resources; unknown fields pruned unless preserved', async () => {
    const r = await t.json('POST', WIDGETS, {
      body: widget({ size: 2, port: 'http', note: null, bogus: 1, free: { any: { thing: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } } }),
    });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ size: 2, port: 'http', note: null, mode: 'auto', free: { any: { thing: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } } });
    const strict = await t.json('POST', `${WIDGETS}?fieldValidation=Strict`, { body: widget({ size: 2, bogus: 1 }, 'w2') });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"');
    const embedded = await t.json('POST', WIDGETS, { body: widget({ size: 2, template: { metadata: { name: 'p' } } }, 'w3') });
    expect(embedded.body.message).toBe('Widget.example.com "w3" is invalid: [spec.template.apiVersion: Required value: must not be empty, spec.template.kind: Required value: must not be empty]');
  });
});

describe('x-kubernetes-validations rules', () => {
  it('[API-CEL-001][API-CRD-005] a failing rule is 422 naming the field, with message, reason and fieldPath', async () => {
    await createCrd(crdWith(specSchema({ replicas: { type: 'integer' }, min: { type: 'integer' } }, {
      'x-kubernetes-validations': [
        { rule: 'self.replicas >= 0' },
        { rule: 'self.replicas >= self.min', message: 'replicas must be at least min', reason: 'FieldValueForbidden', fieldPath: '.replicas' },
        { rule: 'self.replicas < 100', messageExpression: "self.replicas > 99 ? 'replicas is too high' : 'replicas'" },
      ],
    })));
    const r = await t.json('POST', WIDGETS, { body: widget({ replicas: -1, min: 0 }) });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: self.replicas >= 0', field: 'spec' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: replicas must be at least min', field: 'spec.replicas' },
    ]);
    const big = await t.json('POST', WIDGETS, { body: widget({ replicas: 100, min: 0 }) });
    expect(big.body.message).toBe('Widget.example.com "w" is invalid: spec: Invalid value: "object": replicas is too high');
    expect((await t.json('POST', WIDGETS, { body: widget({ replicas: 3, min: 1 }) })).status).toBe(201);
  });

  it('[API-CRD-006] transition rules see oldSelf only on update', async () => {
    await createCrd(crdWith(specSchema({ name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] } })));
    const created = await t.json('POST', WIDGETS, { body: widget({ name: 'a' }) });
    expect(created.status).toBe(201);
    const r = await t.json('PATCH', `${WIDGETS}/w`, { body: { spec: { name: 'b' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.name: Invalid value: "string": name is immutable');
  });

  it('optionalOldSelf rules also run on create, with oldSelf none', async () => {
    await createCrd(crdWith(specSchema({ name: { type: 'string', 'x-kubernetes-validations': [{ rule: "oldSelf.hasValue() ? self == oldSelf.value() : self != 'forbidden'", optionalOldSelf: true, message: 'bad name' }] } })));
    expect((await t.json('POST', WIDGETS, { body: widget({ name: 'forbidden' }) })).body.message).toBe('Widget.example.com "w" is invalid: spec.name: Invalid value: "string": bad name');
    expect((await t.json('POST', WIDGETS, { body: widget({ name: 'a' }) })).status).toBe(201);
    const r = await t.json('PATCH', `${WIDGETS}/w`, { body: { spec: { name: 'b' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.name: Invalid value: "string": bad name');
  });

  it('rules at the root see metadata.name', async () => {
    await createCrd(crdWith({ type: 'object', 'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w')" }] }));
    const r = await t.json('POST', WIDGETS, { body: widget({}, 'x1') });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "x1" is invalid: <nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith(\'w\')');
  });

  it('[API-CRD-007] the per-rule runtime limit stops an expensive rule', async () => {
    await createCrd(crdWith(specSchema({ list: { type: 'array', maxItems: 1000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x <= y || x > y))' }] } })));
    const r = await t.json('POST', WIDGETS, { body: widget({ list: Array.from({ length: 1000 }, (_, i) => i) }) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.list: Invalid value: "array": call cost exceeds limit for rule: self.all(x, self.all(y, x <= y || x > y))');
  });

  it('[API-CRD-007] rules each within their limit stop when the per-object budget runs out', async () => {
    const rules = Array.from({ length: 12 }, (_, i) => ({ rule: `self.all(x, self.all(y, x <= y || x > y)) || self.size() == ${-i - 1}` }));
    await createCrd(crdWith(specSchema({ list: { type: 'array', maxItems: 350, items: { type: 'integer' }, 'x-kubernetes-validations': rules } })));
    const r = await t.json('POST', WIDGETS, { body: widget({ list: Array.from({ length: 350 }, (_, i) => i) }) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Widget.example.com "w" is invalid: spec.list: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run');
    expect((await t.json('POST', WIDGETS, { body: widget({ list: [1, 2, 3] }) })).status).toBe(201);
  });
});

describe('CRD v1 field layout', () => {
  it('[API-VER-134] a top-level spec.validation is an unknown field; per-version schemas are accepted', async () => {
    const crd = crdWith({ type: 'object' });
    (crd.spec as Record<string, unknown>).validation = { openAPIV3Schema: { type: 'object' } };
    const r = await t.json('POST', `${CRDS}?fieldValidation=Strict`, { body: crd });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "spec.validation"');
    await createCrd(crdWith({ type: 'object' }));
  });

  it('[API-VER-135][API-VER-136] webhook conversion lives under conversion.webhook; conversionReviewVersions is required', async () => {
    const crd = crdWith({ type: 'object' });
    (crd.spec as Record<string, unknown>).conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com/' } } };
    const r = await t.json('POST', CRDS, { body: crd });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.conversion.conversionReviewVersions: Required value');
    (crd.spec as Record<string, unknown>).conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com/' }, conversionReviewVersions: ['v1'] } };
    await createCrd(crd);
  });

  it('[API-VER-140] printer columns take jsonPath; JSONPath is unknown', async () => {
    const bad = crdWith({ type: 'object' }, { additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.spec.a' }] });
    const r = await t.json('POST', `${CRDS}?fieldValidation=Strict`, { body: bad });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "spec.versions[0].additionalPrinterColumns[0].JSONPath"');
    await createCrd(crdWith({ type: 'object' }, { additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }] }));
  });
});
