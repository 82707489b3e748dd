import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { StatusError } from '../errors';
import type { SchemaObject } from '../registry';
import { findDuplicateFields, yamlDuplicateKeyErrors } from './duplicates';
import {
  checkPatchFields,
  checkRequestFields,
  fieldValidationDirective,
  type CheckRequestFieldsInput,
  type FieldValidationDirective,
} from './fieldValidation';
import { pruneUnknown } from './structural';
import { builtinSchema, resolveBuiltin } from './testing';

const deployment = builtinSchema('apps', 'v1', 'Deployment');
const configMap = builtinSchema('', 'v1', 'ConfigMap');
const service = builtinSchema('', 'v1', 'Service');

function thrown(f: () => unknown): StatusError {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

const request = (body: string, mediaType: 'json' | 'yaml', directive: FieldValidationDirective, schema = deployment, extra: Partial<CheckRequestFieldsInput> = {}) =>
  checkRequestFields<Record<string, any>>({
    body: new TextEncoder().encode(body),
    mediaType,
    decoded: mediaType === 'json' ? JSON.parse(body) : parseYaml(body, { uniqueKeys: false }),
    schema,
    resolve: resolveBuiltin,
    directive,
    ...extra,
  });

// The body kube-apiserver's field-validation integration test posts.
const invalidDeploymentJSON = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "dupename", "name": "d", "labels": {"app": "nginx"}, "unknownMeta": "metaVal"},
  "spec": {
    "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "paused": true, "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{
      "name": "nginx", "image": "nginx:latest", "unknownNested": "val1", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}
  }
}`;
const invalidDeploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: d
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;

const jsonWarnings = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];
const yamlWarnings = [
  'line 5: key "name" already set in map',
  'line 12: key "unknownDupe" already set in map',
  'line 14: key "paused" already set in map',
  'line 28: key "imagePullPolicy" already set in map',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
];

describe('checkRequestFields: built-in kinds', () => {
  it('[API-ERR-004] [API-ERR-005] [API-FV-006] Strict: one 400 listing every unknown and duplicate field, JSON in document order', () => {
    const err = thrown(() => request(invalidDeploymentJSON, 'json', 'Strict'));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'BadRequest',
      code: 400,
      message: `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${jsonWarnings.join(', ')}`,
    });
  });

  it('[API-FV-006] Strict YAML: go-yaml duplicate lines first, then unknown fields in sorted-key order', () => {
    const err = thrown(() => request(invalidDeploymentYAML, 'yaml', 'Strict'));
    expect(err.status.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: yaml: unmarshal errors:\n' +
        '  line 5: key "name" already set in map\n  line 12: key "unknownDupe" already set in map\n' +
        '  line 14: key "paused" already set in map\n  line 28: key "imagePullPolicy" already set in map, ' +
        'unknown field "metadata.unknownMeta", unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", unknown field "spec.unknownDupe"',
    );
  });

  it('[API-FV-005] [API-FV-007] [API-FV-010] [API-FV-014] Warn: one warning per field, unknown fields dropped, last duplicate wins', () => {
    const r = request(invalidDeploymentJSON, 'json', 'Warn');
    expect(r.warnings).toEqual(jsonWarnings);
    expect(r.object.metadata).toEqual({ name: 'd', labels: { app: 'nginx' } });
    expect(Object.keys(r.object.spec).sort()).toEqual(['paused', 'selector', 'template']);
    expect(r.object.spec.template.spec.containers[0]).toEqual({ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' });
    expect(request(invalidDeploymentYAML, 'yaml', 'Warn').warnings).toEqual(yamlWarnings);
  });

  it('[API-FV-009] Ignore: no warnings, unknown fields dropped silently', () => {
    for (const [body, mt] of [[invalidDeploymentJSON, 'json'], [invalidDeploymentYAML, 'yaml']] as const) {
      const r = request(body, mt, 'Ignore');
      expect(r.warnings).toEqual([]);
      expect(r.object.spec.unknown1).toBeUndefined();
      expect(r.object.metadata.unknownMeta).toBeUndefined();
    }
  });

  it('[API-FV-012] a top-level field absent from the schema is unknown', () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"bogus":1,"data":{"a":"b"}}';
    expect(thrown(() => request(body, 'json', 'Strict', configMap)).status.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    );
    expect(request(body, 'json', 'Warn', configMap)).toEqual({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }, warnings: ['unknown field "bogus"'] });
  });

  it('[API-ERR-005] a key repeated in a map is a duplicate field', () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","a":"2"}}';
    expect(request(body, 'json', 'Warn', configMap).warnings).toEqual(['duplicate field "data.a"']);
  });

  it('[API-ERR-006] [API-FV-011] an unknown field together with a type error: 400 naming only the type error, at every level', () => {
    const body = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"bogus":1,"replicas":"x"}}';
    for (const d of ['Strict', 'Warn', 'Ignore'] as const) {
      const err = thrown(() => request(body, 'json', d));
      expect(err.status.code).toBe(400);
      expect(err.status.reason).toBe('BadRequest');
      expect(err.status.message).toBe(
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
    }
  });

  it('int-or-string targetPort accepts a name or a number', () => {
    const body = '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}]}}';
    expect(request(body, 'json', 'Strict', service).warnings).toEqual([]);
  });

  it('a valid body comes back untouched', () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}}';
    for (const d of ['Strict', 'Warn', 'Ignore'] as const) expect(request(body, 'json', d, configMap)).toEqual({ object: JSON.parse(body), warnings: [] });
  });

  it('protobuf bodies are returned as decoded', () => {
    const decoded = { bogus: 1 };
    expect(checkRequestFields({ body: new Uint8Array(), mediaType: 'protobuf', decoded, schema: configMap, resolve: resolveBuiltin, directive: 'Strict' })).toEqual({ object: decoded, warnings: [] });
  });
});

describe('checkRequestFields: custom resources (structural schema)', () => {
  const defs: Record<string, SchemaObject> = {
    'com.example.v1.Noxu': {
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Noxu' }],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            knownField1: { type: 'string' },
            embeddedObj: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { apiversion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } } },
            ports: {
              type: 'array',
              items: { type: 'object', properties: { containerPort: { type: 'integer', format: 'int32' }, hostPort: { type: 'integer', format: 'int32' }, name: { type: 'string' }, protocol: { type: 'string' } } },
            },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            port: { 'x-kubernetes-int-or-string': true },
          },
        },
      },
    },
  };
  const resolve = (ref: string) => defs[ref.replace('#/definitions/', '')] ?? resolveBuiltin(ref);
  const schema = defs['com.example.v1.Noxu']!;
  const body = `{
  "apiVersion": "example.com/v1", "kind": "Noxu",
  "metadata": {"name": "dupename", "name": "n", "unknownMeta": "metaVal"},
  "spec": {
    "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "knownField1": "val1", "knownField1": "val2",
    "ports": [{"name": "portName", "containerPort": 8080, "protocol": "TCP", "hostPort": 8081, "hostPort": 8082, "unknownNested": "val"}],
    "embeddedObj": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "my-cm", "namespace": "my-ns", "unknownEmbeddedMeta": "foo"}},
    "free": {"anything": {"goes": [1, 2]}},
    "port": "http"
  }
}`;
  const crRequest = (directive: FieldValidationDirective) =>
    checkRequestFields<Record<string, any>>({ body, mediaType: 'json', decoded: JSON.parse(body), schema, resolve, directive, custom: true });

  it('[API-FV-013] Strict: duplicates everywhere first, then metadata, pruned and embedded-metadata unknowns; preserve-unknown-fields is not unknown', () => {
    expect(thrown(() => crRequest('Strict')).status.message).toBe(
      'Noxu in version "v1" cannot be handled as a Noxu: strict decoding error: duplicate field "metadata.name", duplicate field "spec.unknownDupe", ' +
        'duplicate field "spec.knownField1", duplicate field "spec.ports[0].hostPort", unknown field "metadata.unknownMeta", unknown field "spec.ports[0].unknownNested", ' +
        'unknown field "spec.unknown1", unknown field "spec.unknownDupe", unknown field "spec.embeddedObj.metadata.unknownEmbeddedMeta"',
    );
  });

  it('[API-FV-013] Warn keeps preserved fields and drops pruned ones', () => {
    const r = crRequest('Warn');
    expect(r.warnings).toHaveLength(9);
    expect(r.object.spec.free).toEqual({ anything: { goes: [1, 2] } });
    expect(r.object.spec.unknown1).toBeUndefined();
    expect(r.object.spec.ports[0].unknownNested).toBeUndefined();
    expect(r.object.metadata).toEqual({ name: 'n' });
    expect(r.object.spec.embeddedObj.metadata).toEqual({ name: 'my-cm', namespace: 'my-ns' });
  });

  it('pruneUnknown with custom semantics', () => {
    expect(pruneUnknown({ apiVersion: 'example.com/v1', kind: 'Noxu', metadata: { name: 'n' }, spec: { free: { x: 1 }, nope: 1 }, top: 1 }, schema, resolve, { custom: true })).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Noxu',
      metadata: { name: 'n' },
      spec: { free: { x: 1 } },
    });
  });
});

describe('checkPatchFields', () => {
  const current = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'x' } } } };
  const mergePatchBody = `{"spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2", "paused": true, "paused": false,
    "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "unknownNested": "val1", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}`;
  const patched = { ...current, spec: { ...current.spec, ...JSON.parse(mergePatchBody).spec } };
  const expected =
    'strict decoding error: duplicate field "spec.unknownDupe", duplicate field "spec.paused", duplicate field "spec.template.spec.containers[0].imagePullPolicy", ' +
    'unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", unknown field "spec.unknownDupe"';

  it('[API-FV-002] [API-ERR-004] merge patch Strict: 400 BadRequest, body duplicates then the patched object\'s unknown fields', () => {
    const err = thrown(() => checkPatchFields({ patchType: 'merge', patchBody: mergePatchBody, patched, schema: deployment, resolve: resolveBuiltin, directive: 'Strict' }));
    expect(err.status.code).toBe(400);
    expect(err.status.reason).toBe('BadRequest');
    expect(err.status.message).toBe(expected);
  });

  it('[API-ERR-004] strategic merge patch Strict is 400 with the strict decoding error', () => {
    const err = thrown(() => checkPatchFields({ patchType: 'strategic', patchBody: '{"spec":{"bogus":1}}', patched: { ...current, spec: { ...current.spec, bogus: 1 } }, schema: deployment, resolve: resolveBuiltin, directive: 'Strict' }));
    expect(err.status.code).toBe(400);
    expect(err.status.message).toBe('strict decoding error: unknown field "spec.bogus"');
  });

  it('merge patch Warn: warnings and a pruned result; Ignore: silent', () => {
    const w = checkPatchFields<Record<string, any>>({ patchType: 'merge', patchBody: mergePatchBody, patched, schema: deployment, resolve: resolveBuiltin, directive: 'Warn' });
    expect(w.warnings).toEqual(expected.replace('strict decoding error: ', '').split(', '));
    expect(w.object.spec.unknown1).toBeUndefined();
    const i = checkPatchFields<Record<string, any>>({ patchType: 'merge', patchBody: mergePatchBody, patched, schema: deployment, resolve: resolveBuiltin, directive: 'Ignore' });
    expect(i.warnings).toEqual([]);
    expect(i.object.spec.unknownDupe).toBeUndefined();
  });

  it('JSON patch: the operations\' own unknown and duplicate fields come first', () => {
    const body = '[{"op":"add","path":"/spec/unknown1","value":"v","foo":"bar"},{"op":"add","path":"/spec/unknown2","path":"/spec/unknown3","value":"v"}]';
    const err = thrown(() =>
      checkPatchFields({ patchType: 'json', patchBody: body, patched: { ...current, spec: { ...current.spec, unknown1: 'v', unknown3: 'v' } }, schema: deployment, resolve: resolveBuiltin, directive: 'Strict' }),
    );
    expect(err.status.message).toBe('strict decoding error: json patch unknown field "[0].foo", json patch duplicate field "[1].path", unknown field "spec.unknown1", unknown field "spec.unknown3"');
  });

  it('a type error in the patched object is 422 at every level', () => {
    for (const d of ['Strict', 'Warn', 'Ignore'] as const) {
      const err = thrown(() => checkPatchFields({ patchType: 'merge', patchBody: '{"spec":{"replicas":"x"}}', patched: { ...current, spec: { ...current.spec, replicas: 'x' } }, schema: deployment, resolve: resolveBuiltin, directive: d }));
      expect(err.status.code).toBe(422);
      expect(err.status.message!.endsWith('": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32')).toBe(true);
    }
  });

  it('apply patch: only YAML duplicate keys, 400 under Strict', () => {
    const body = '{\n  "spec": {\n    "paused": false,\n    "paused": true\n  }\n}';
    expect(thrown(() => checkPatchFields({ patchType: 'apply', patchBody: body, patched: current, schema: deployment, resolve: resolveBuiltin, directive: 'Strict' })).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "paused" already set in map',
    });
    expect(checkPatchFields({ patchType: 'apply', patchBody: body, patched: current, schema: deployment, resolve: resolveBuiltin, directive: 'Warn' }).warnings).toEqual(['line 4: key "paused" already set in map']);
  });
});

describe('fieldValidationDirective', () => {
  const url = (q: string) => new URL(`http://x/api/v1/namespaces/default/configmaps${q}`);
  it('[API-FV-003] [API-FV-008] accepts Ignore, Warn, Strict; absent or empty means Warn', () => {
    expect(fieldValidationDirective(url('?fieldValidation=Ignore'))).toBe('Ignore');
    expect(fieldValidationDirective(url('?fieldValidation=Warn'))).toBe('Warn');
    expect(fieldValidationDirective(url('?fieldValidation=Strict'))).toBe('Strict');
    expect(fieldValidationDirective(url(''))).toBe('Warn');
    expect(fieldValidationDirective(url('?fieldValidation='))).toBe('Warn');
  });
  it('anything else (case matters) is 422 on the options kind', () => {
    const err = thrown(() => fieldValidationDirective(url('?fieldValidation=strict'), 'PatchOptions'));
    expect(err.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueNotSupported', field: 'fieldValidation' }] },
    });
  });
});

describe('duplicates', () => {
  it('JSON: every object, document order, upstream paths', () => {
    expect(findDuplicateFields('{"a":1,"a":2,"b":[{"c":1,"c":2}],"d":{"e":{"f":1,"f":1}}}', 'json')).toEqual(['a', 'b[0].c', 'd.e.f']);
  });
  it('YAML: paths and go-yaml line messages', () => {
    const text = 'a: 1\nb:\n  c: 2\n  c: 3\nl:\n- x: 1\n  x: 2\n1: a\n"1": b\n';
    expect(findDuplicateFields(text, 'yaml')).toEqual(['b.c', 'l[0].x']);
    expect(yamlDuplicateKeyErrors(text)).toEqual(['line 4: key "c" already set in map', 'line 7: key "x" already set in map']);
  });
});
