import { describe, expect, it } from 'vitest';
import { decodeJson, decodeUnstructured, maxStrictErrors } from './decoding';
import { GoTypes, goTypesFor } from './goTypes';
import { parseJsonTree, treeOf } from './jsonTree';
import { builtinSchema, resolveBuiltin } from './testing';
import { validateFields } from './fieldValidation';
import type { SchemaObject } from '../registry';

const types = goTypesFor(resolveBuiltin);
const deployment = types.root(builtinSchema('apps', 'v1', 'Deployment'));
const pod = types.root(builtinSchema('', 'v1', 'Pod'));
const service = types.root(builtinSchema('', 'v1', 'Service'));
const configMap = types.root(builtinSchema('', 'v1', 'ConfigMap'));
const secret = types.root(builtinSchema('', 'v1', 'Secret'));

const decode = (type: typeof pod, text: string, strict = true) => decodeJson(parseJsonTree(text), type, strict);

describe('decodeJson: fatal errors carry encoding/json text, whatever the level', () => {
  const cases: { name: string; type: typeof pod; body: string; fatal: string }[] = [
    {
      name: 'string for int32 (pointer field)',
      type: deployment,
      body: '{"spec":{"replicas":"x"}}',
      fatal: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'fraction for int32 quotes the literal',
      type: deployment,
      body: '{"spec":{"replicas":1.5}}',
      fatal: 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'int32 overflow',
      type: deployment,
      body: '{"spec":{"replicas":3000000000}}',
      fatal: 'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'string for bool',
      type: deployment,
      body: '{"spec":{"paused":"yes"}}',
      fatal: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool',
    },
    {
      name: 'array elements keep no index in the Go field path',
      type: pod,
      body: '{"spec":{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}}',
      fatal: 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    },
    {
      name: 'object for a slice',
      type: deployment,
      body: '{"spec":{"template":{"spec":{"containers":{}}}}}',
      fatal: 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    },
    {
      name: 'array for a struct',
      type: deployment,
      body: '{"spec":[]}',
      fatal: 'json: cannot unmarshal array into Go struct field Deployment.spec of type v1.DeploymentSpec',
    },
    {
      name: 'number for a map value names the map field',
      type: configMap,
      body: '{"data":{"a":1}}',
      fatal: 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    },
    {
      name: 'string for a map',
      type: configMap,
      body: '{"metadata":{"labels":"x"}}',
      fatal: 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    },
    {
      name: 'object for a string',
      type: configMap,
      body: '{"metadata":{"name":{"a":1}}}',
      fatal: 'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.name of type string',
    },
    {
      name: 'int-or-string rejects a bool as its int32',
      type: service,
      body: '{"spec":{"ports":[{"port":80,"targetPort":true}]}}',
      fatal: 'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    },
    {
      name: 'Quantity parse error',
      type: pod,
      body: '{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"abc"}}}]}}',
      fatal: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
    {
      name: 'Time parse error',
      type: configMap,
      body: '{"metadata":{"creationTimestamp":"yesterday"}}',
      fatal: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    },
    {
      name: 'Time that is not a string',
      type: configMap,
      body: '{"metadata":{"creationTimestamp":5}}',
      fatal: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    },
    {
      name: '[]byte that is not base64',
      type: secret,
      body: '{"data":{"a":"!!!!"}}',
      fatal: 'illegal base64 data at input byte 0',
    },
    {
      name: 'only the first saved error is reported',
      type: deployment,
      body: '{"spec":{"paused":"x","replicas":"y"}}',
      fatal: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool',
    },
    {
      name: 'an error returned by a custom unmarshaler wins over an earlier saved one',
      type: pod,
      body: '{"spec":{"hostNetwork":"x","containers":[{"name":"a","resources":{"limits":{"cpu":"abc"}}}]}}',
      fatal: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
  ];
  for (const c of cases) {
    it(`${c.name} [API-ERR-006]`, () => {
      expect(decode(c.type, c.body)).toEqual({ strict: [], fatal: c.fatal });
      expect(decode(c.type, c.body, false).fatal).toBe(c.fatal);
    });
  }

  it('accepts what Go accepts: null anywhere, int-or-string both ways, numeric quantities, RFC 3339 with fractions', () => {
    expect(decode(service, '{"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}],"selector":null}}')).toEqual({ strict: [] });
    expect(decode(pod, '{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":1,"memory":"1Gi"},"requests":{"cpu":"500m"}}}]}}')).toEqual({ strict: [] });
    expect(decode(configMap, '{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.123Z","deletionTimestamp":null}}')).toEqual({ strict: [] });
    expect(decode(secret, '{"data":{"a":"aGVsbG8="}}')).toEqual({ strict: [] });
  });

  it('RawExtension, FieldsV1 and empty objects of opaque types accept anything', () => {
    const cr = types.root(builtinSchema('apps', 'v1', 'ControllerRevision'));
    expect(decode(cr, '{"data":{"anything":{"x":1,"x":2}},"revision":1}')).toEqual({ strict: [] });
    expect(decode(configMap, '{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]}}')).toEqual({ strict: [] });
  });
});

describe('decodeJson: strict errors', () => {
  it('reports unknown and duplicate fields in document order with upstream paths, each once', () => {
    const r = decode(
      deployment,
      '{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"},"bogus":1,"bogus":2},"spec":{"template":{"spec":{"containers":[{"name":"c"},{"name":"d","bogus":{"deep":{"x":1,"x":1}}}]}}}}',
    );
    expect(r).toEqual({
      strict: [
        'duplicate field "metadata.name"',
        'duplicate field "metadata.labels.x"',
        'unknown field "metadata.bogus"',
        'unknown field "spec.template.spec.containers[1].bogus"',
      ],
    });
  });

  it('field names are case-sensitive', () => {
    expect(decode(configMap, '{"Data":{"a":"b"}}').strict).toEqual(['unknown field "Data"']);
  });

  it('stops collecting at 100 strict errors', () => {
    const body = `{${Array.from({ length: 150 }, (_, i) => `"f${i}":1`).join(',')}}`;
    expect(decode(configMap, body).strict).toHaveLength(maxStrictErrors);
  });

  it('non-strict decoding reports no strict errors', () => {
    expect(decode(configMap, '{"bogus":1,"data":{"a":"1","a":"2"}}', false)).toEqual({ strict: [] });
  });
});

describe('decodeUnstructured (after a strategic merge patch)', () => {
  const cases: [string, unknown, string][] = [
    ['string for int32', { spec: { replicas: 'x' } }, 'unrecognized type: int32'],
    ['fraction for int32', { spec: { replicas: 1.5 } }, 'cannot convert float64 to int32'],
    ['integer for string', { metadata: { name: 5 } }, 'cannot convert int64 to string'],
    ['string for a struct', { spec: 'x' }, 'cannot restore struct from: string'],
    ['string for a slice', { spec: { template: { spec: { containers: 'x' } } } }, 'cannot restore slice from string'],
    ['string for a map', { metadata: { labels: 'x' } }, 'cannot restore map from string'],
    ['int-or-string as JSON, without context', { spec: { strategy: { rollingUpdate: { maxSurge: true } } } }, 'json: cannot unmarshal bool into Go value of type int32'],
  ];
  for (const [name, value, fatal] of cases) {
    it(name, () => expect(decodeUnstructured(treeOf(value), deployment, true)).toEqual({ strict: [], fatal }));
  }

  it('sorts unknown fields by message', () => {
    expect(decodeUnstructured(treeOf({ spec: { zz: 1, template: { spec: { containers: [{ name: 'a', q: 1 }] } }, aa: 1 } }), deployment, true)).toEqual({
      strict: ['unknown field "spec.aa"', 'unknown field "spec.template.spec.containers[0].q"', 'unknown field "spec.zz"'],
    });
  });
});

describe('validateFields', () => {
  it('lists unknown paths of a decoded object and the fatal error', () => {
    const schema = builtinSchema('', 'v1', 'Pod');
    expect(validateFields({ metadata: { foo: 1 }, spec: { containers: [{ name: 'a', bogus: 1 }] } }, schema, resolveBuiltin)).toEqual({
      unknown: ['metadata.foo', 'spec.containers[0].bogus'],
    });
    expect(validateFields({ spec: { containers: [{ name: 1 }] } }, schema, resolveBuiltin)).toEqual({
      unknown: [],
      fatal: 'json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string',
    });
  });

  it('resolves each definition once however often it is used (50 containers)', () => {
    let calls = 0;
    const counting = (ref: string) => {
      calls++;
      return resolveBuiltin(ref);
    };
    const fresh = new GoTypes(counting);
    const containers = Array.from({ length: 50 }, (_, i) => ({
      name: `c${i}`,
      image: 'nginx',
      ports: [{ containerPort: 80 + i }],
      env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      resources: { limits: { cpu: '1' } },
      volumeMounts: [{ name: 'v', mountPath: '/v' }],
      bogus: i,
    }));
    const body = { metadata: { name: 'd' }, spec: { selector: {}, template: { spec: { containers } } } };
    const r = decodeJson(treeOf(body), fresh.root(builtinSchema('apps', 'v1', 'Deployment')), true);
    expect(r.strict).toHaveLength(50);
    const afterFirst = calls;
    // A second pass over the same object resolves nothing new beyond cheap identity checks per ref use site.
    decodeJson(treeOf(body), fresh.root(builtinSchema('apps', 'v1', 'Deployment')), true);
    expect(calls).toBe(afterFirst);
    // The first pass needed at most a few lookups per distinct definition it met, not one per container.
    expect(afterFirst).toBeLessThan(40);
  });

  it('honours x-kubernetes-preserve-unknown-fields on built-in-like schemas', () => {
    const defs: Record<string, SchemaObject> = {
      Root: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } } } },
    };
    const t = new GoTypes((ref) => defs[ref.replace('#/definitions/', '')]).of({ $ref: '#/definitions/Root' });
    expect(decodeJson(treeOf({ spec: { a: 'x', extra: { y: 1 } }, other: 1 }), t, true)).toEqual({ strict: ['unknown field "other"'] });
  });
});
