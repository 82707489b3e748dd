import { describe, expect, it } from 'vitest';
import type { SchemaObject } from '../../registry/types';
import { Schema } from '../schema';
import { definition, definitions, DEPLOYMENT, SERVICE } from '../testing/schemas';
import type { JsonValue } from '../value';
import { validate, ValidationErrors, type ValidationOptions } from './index';

const schema = new Schema(definitions);
const text = (root: SchemaObject | undefined, v: JsonValue, opts?: ValidationOptions) => {
  const errs = validate(schema, schema.rootNode(root), v, opts);
  return errs.length ? new ValidationErrors(errs).message : '';
};

const str: SchemaObject = { type: 'string' };
const custom: SchemaObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        known: str,
        open: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { inner: { type: 'object', properties: { a: str } }, meta: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } },
        },
        when: { type: 'string', format: 'date-time' },
        blob: { type: 'string', format: 'byte' },
        size: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object' },
        tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: str } },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
        },
      },
    },
  },
};
const cr = (spec: JsonValue) => ({ apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'a' }, spec });

describe('validating a value against its schema (the typed patch object)', () => {
  const cases: [name: string, root: SchemaObject | undefined, value: JsonValue, expected: string][] = [
    ['a valid Deployment', definition(DEPLOYMENT), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 2 } }, ''],
    ['null fits any type', definition(DEPLOYMENT), { metadata: null, spec: { replicas: null, selector: null, template: { spec: { containers: null } } } }, ''],
    ['an undeclared field', definition(DEPLOYMENT), { spec: { foo: 'bar' } }, '.spec.foo: field not declared in schema'],
    ['an undeclared field in ObjectMeta', definition(DEPLOYMENT), { metadata: { nam: 'x' } }, '.metadata.nam: field not declared in schema'],
    ['a number for a string', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [{ name: 'c', image: 5 }] } } } }, '.spec.template.spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:5}'],
    ['a map for a string', definition(DEPLOYMENT), { spec: { template: { spec: { serviceAccountName: { b: [1.5, null], a: 'x' } } } } }, '.spec.template.spec.serviceAccountName: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"a":"x", "b":[]interface {}{1.5, interface {}(nil)}}}'],
    ['a large number prints as Go prints a float64', definition(DEPLOYMENT), { spec: { minReadySeconds: 1, revisionHistoryLimit: 2, paused: 1234567 } }, '.spec.paused: expected boolean, got &{1.234567e+06}'],
    ['a string for a number', definition(DEPLOYMENT), { spec: { replicas: '3' } }, '.spec.replicas: expected numeric (int or float), got string'],
    ['a list for a number', definition(DEPLOYMENT), { spec: { replicas: [3] } }, '.spec.replicas: expected numeric (int or float), got []interface {}'],
    ['a scalar for a struct', definition(DEPLOYMENT), { spec: { strategy: 'Recreate' } }, '.spec.strategy: expected map, got &{Recreate}'],
    ['a map for a list', definition(DEPLOYMENT), { spec: { template: { spec: { containers: { name: 'c' } } } } }, '.spec.template.spec.containers: expected list, got &{map[name:c]}'],
    ['a repeated key', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } }, '.spec.template.spec.containers: duplicate entries for key [name="a"]'],
    ['a repeated two-field key (with the protocol default)', definition(SERVICE), { spec: { ports: [{ port: 80 }, { port: 80, protocol: 'TCP' }] } }, '.spec.ports: duplicate entries for key [port=80,protocol="TCP"]'],
    ['a repeated set value', definition(DEPLOYMENT), { metadata: { finalizers: ['a', 'b', 'a'] } }, '.metadata.finalizers: duplicate entries for key [="a"]'],
    ['a keyed item without its key stops the list', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [{ image: 5 }, { name: 'b', image: 6 }] } } } }, '.spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)'],
    ['a keyed item that is not a map', definition(DEPLOYMENT), { spec: { template: { spec: { containers: ['c'] } } } }, '.spec.template.spec.containers: element 0: associative list with keys may not have non-map elements'],
    ['a null keyed item', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [null] } } } }, '.spec.template.spec.containers: element 0: associative list with keys may not have a null element'],
    ['a map in a set', definition(DEPLOYMENT), { metadata: { finalizers: [{ a: 1 }] } }, ".metadata.finalizers: element 0: associative list without keys has an element that's a map type"],
    ['a list in a set', definition(DEPLOYMENT), { metadata: { finalizers: [[]] } }, '.metadata.finalizers: element 0: not supported: associative list with lists as elements'],
    ['null in a set', definition(DEPLOYMENT), { metadata: { finalizers: [null] } }, ".metadata.finalizers: element 0: associative list without keys has an element that's an explicit null"],
    ['a quantity as a number or a string', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 1, memory: '1Gi' } } }] } } } }, ''],
    ['a quantity as a map', definition(DEPLOYMENT), { spec: { template: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: { v: 1 } } } }] } } } }, '.spec.template.spec.containers[name="c"].resources.limits.cpu: expected any scalar, got &{map[v:1]}'],
    ['int-or-string as a list', definition(DEPLOYMENT), { spec: { strategy: { rollingUpdate: { maxSurge: [1] } } } }, '.spec.strategy.rollingUpdate.maxSurge: expected any scalar, got &{[1]}'],
    ['a timestamp as a number', definition(DEPLOYMENT), { metadata: { creationTimestamp: 5 } }, ''],
    ['several errors, one struct reporting its first undeclared field only', definition(DEPLOYMENT), { spec: { replicas: 'x', foo: 1, bar: 2 }, status: { replicas: true } }, 'errors:\n  .spec.replicas: expected numeric (int or float), got string\n  .spec.foo: field not declared in schema\n  .status.replicas: expected numeric (int or float), got bool'],
    ['schemaless: anything but ObjectMeta', undefined, { metadata: { name: 'x' }, a: { b: [1, { c: null }] }, d: 'e' }, ''],
    ['schemaless: ObjectMeta is still typed', undefined, { metadata: { name: 1 } }, '.metadata.name: expected string, got &value.valueUnstructured{Value:1}'],
    ['a custom resource: apiVersion and kind are always declared', custom, cr({ known: 'x' }), ''],
    ['a custom resource: undeclared field', custom, cr({ other: 'x' }), '.spec.other: field not declared in schema'],
    ['preserve-unknown-fields reaches inline types below it', custom, cr({ open: { extra: { deep: 1 }, inner: { a: 'x', b: 'y' } } }), ''],
    ['... but not named types', custom, cr({ open: { meta: { bogus: 1 } } }), '.spec.open.meta.bogus: field not declared in schema'],
    ['... and declared fields keep their type', custom, cr({ open: { inner: { a: 1 } } }), '.spec.open.inner.a: expected string, got &value.valueUnstructured{Value:1}'],
    ['formatted strings admit any scalar, byte strings are strings', custom, cr({ when: 5, blob: 5 }), '.spec.blob: expected string, got &value.valueUnstructured{Value:5}'],
    ['x-kubernetes-int-or-string', custom, cr({ size: '1Gi' }), ''],
    ['a free-form object must be a map', custom, cr({ free: 'x' }), '.spec.free: expected map, got &{x}'],
    ['a free-form object holds anything', custom, cr({ free: { a: [{ b: 1 }], c: null } }), ''],
    ['a string with quotes and escapes', custom, cr({ known: { k: 'a"b\n' } }), '.spec.known: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"k":"a\\"b\\n"}}'],
    ['a repeated multi-key entry', custom, cr({ ports: [{ port: 1, protocol: 'UDP' }, { protocol: 'UDP', port: 1 }] }), '.spec.ports: duplicate entries for key [port=1,protocol="UDP"]'],
  ];
  for (const [name, root, value, expected] of cases) {
    it(name, () => expect(text(root, value)).toBe(expected));
  }

  it('repeated keys are accepted when duplicates are allowed (stored objects)', () => {
    const d: JsonValue = { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a', image: 1 }] } } } };
    expect(text(definition(DEPLOYMENT), d, { allowDuplicates: true })).toBe('.spec.template.spec.containers[name="a"].image: expected string, got &value.valueUnstructured{Value:1}');
  });
});
