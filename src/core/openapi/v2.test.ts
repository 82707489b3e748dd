/**
 * /openapi/v2 through handle(): the Swagger 2.0 document in JSON and as
 * gnostic's openapi.v2.Document protobuf (decoded here with protobufjs' own
 * .proto parser and a YAML parser, not with the server's encoder), kube-openapi's
 * negotiation, ETag and 304, and custom resources pruned as apiextensions does.
 */
import protobuf from 'protobufjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { dataNeededBy } from '../http/requestData';
import { newRequestInfo } from '../http/requestInfo';
import { newTestServer, type TestServer } from '../testing/client';
import { openApiV2Proto } from './gnosticProto.test-data';
import { encodeGnosticDocument } from './gnostic';
import type { SwaggerDocument } from './v2Document';
import { toV2CustomResourceSchema } from './v2Schemas';

const KUBECTL_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const DocumentType = protobuf.parse(openApiV2Proto, { keepCase: true }).root.lookupType('openapi.v2.Document');

type M = Record<string, any>;

// The decoded message back to Swagger JSON, field by field as gnostic's ToRawInfo would.
const anyValue = (a: M) => parseYaml(a.yaml);
function extensions(list: M[] | undefined, out: M): M {
  for (const e of list ?? []) out[e.name] = anyValue(e.value);
  return out;
}
function named(list: M[] | undefined, f: (v: M) => unknown): M {
  return Object.fromEntries((list ?? []).map((n) => [n.name, f(n.value)]));
}
function schemaJson(s: M): M {
  const o: M = {};
  if (s._ref) o.$ref = s._ref;
  for (const k of ['format', 'title', 'description', 'pattern', 'discriminator']) if (s[k]) o[k] = s[k];
  if (s.default) o.default = anyValue(s.default);
  const numbers: [string, string][] = [['multiple_of', 'multipleOf'], ['maximum', 'maximum'], ['minimum', 'minimum'], ['max_length', 'maxLength'], ['min_length', 'minLength'], ['max_items', 'maxItems'], ['min_items', 'minItems'], ['max_properties', 'maxProperties'], ['min_properties', 'minProperties']];
  for (const [p, j] of numbers) if (s[p] !== undefined) o[j] = Number(s[p]);
  const bools: [string, string][] = [['exclusive_maximum', 'exclusiveMaximum'], ['exclusive_minimum', 'exclusiveMinimum'], ['unique_items', 'uniqueItems'], ['read_only', 'readOnly']];
  for (const [p, j] of bools) if (s[p]) o[j] = true;
  if (s.required) o.required = s.required;
  if (s.enum) o.enum = s.enum.map(anyValue);
  if (s.additional_properties) o.additionalProperties = 'boolean' in s.additional_properties ? s.additional_properties.boolean : schemaJson(s.additional_properties.schema);
  if (s.type) o.type = s.type.value.length === 1 ? s.type.value[0] : s.type.value;
  if (s.items) o.items = s.items.schema.length === 1 ? schemaJson(s.items.schema[0]) : s.items.schema.map(schemaJson);
  if (s.all_of) o.allOf = s.all_of.map(schemaJson);
  if (s.properties) o.properties = named(s.properties.additional_properties, schemaJson);
  if (s.example) o.example = anyValue(s.example);
  return extensions(s.vendor_extension, o);
}
function parameterJson(item: M): M {
  const p = item.parameter;
  if (p.body_parameter) {
    const b = p.body_parameter;
    return { name: b.name, in: b.in, ...(b.description ? { description: b.description } : {}), ...(b.required ? { required: true } : {}), schema: schemaJson(b.schema) };
  }
  const q = p.non_body_parameter.query_parameter_sub_schema ?? p.non_body_parameter.path_parameter_sub_schema;
  const o: M = { type: q.type, name: q.name, in: q.in };
  if (q.unique_items) o.uniqueItems = true;
  if (q.description) o.description = q.description;
  if (q.required) o.required = true;
  return o;
}
function operationJson(op: M): M {
  const o: M = { description: op.description, schemes: op.schemes, tags: op.tags, operationId: op.operation_id };
  if (op.consumes) o.consumes = op.consumes;
  if (op.produces) o.produces = op.produces;
  if (op.parameters) o.parameters = op.parameters.map(parameterJson);
  o.responses = named(op.responses.response_code, (v) => {
    const r = v.response;
    return { description: r.description, ...(r.schema ? { schema: schemaJson(r.schema.schema) } : {}) };
  });
  return extensions(op.vendor_extension, o);
}
function documentJson(d: M): M {
  const paths = named(d.paths.path, (item) => {
    const o: M = {};
    for (const m of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) if (item[m]) o[m] = operationJson(item[m]);
    if (item.parameters) o.parameters = item.parameters.map(parameterJson);
    return o;
  });
  return {
    swagger: d.swagger,
    info: { title: d.info.title, version: d.info.version },
    paths,
    definitions: named(d.definitions.additional_properties, schemaJson),
    securityDefinitions: named(d.security_definitions.additional_properties, (v) => {
      const k = v.api_key_security;
      return { description: k.description, in: k.in, name: k.name, type: k.type };
    }),
    security: d.security.map((r: M) => named(r.additional_properties, (v) => v.value ?? [])),
  };
}
function decode(bytes: Uint8Array): M {
  return DocumentType.toObject(DocumentType.decode(bytes), { longs: Number, defaults: false });
}

/** Top-level (field number, wire type) pairs, read with a varint reader of our own. */
function topLevelFields(bytes: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  while (i < bytes.length) {
    const key = varint();
    out.push([Math.floor(key / 8), key % 8]);
    if (key % 8 !== 2) throw new Error(`unexpected wire type ${key % 8}`);
    const length = varint();
    i += length;
  }
  return out;
}

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

async function get(headers: Record<string, string> = {}) {
  return t.request('GET', '/openapi/v2', { headers });
}

describe('/openapi/v2 in JSON', () => {
  let doc: SwaggerDocument;
  let res: Response;
  beforeAll(async () => {
    res = await get();
    doc = JSON.parse(await res.text());
  });

  it('is the default (no Accept) with kube-openapi headers: ETag of the JSON, Vary Accept-Encoding and Accept, Last-Modified', async () => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept');
    expect(res.headers.get('cache-control')).toBe('no-cache, private');
    expect(Date.parse(res.headers.get('last-modified')!)).not.toBeNaN();
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-512', new TextEncoder().encode(JSON.stringify(doc))));
    expect(res.headers.get('etag')).toBe(`"${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('').toUpperCase()}"`);
  });

  it('is one Swagger 2.0 document for every group version, with the bearer token security definition', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'v1.36.0' });
    expect(doc.securityDefinitions).toEqual({ BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } });
    expect(doc.security).toEqual([{ BearerToken: [] }]);
    for (const p of ['/api/', '/apis/', '/apis/apps/', '/api/v1/', '/apis/apps/v1/', '/api/v1/namespaces/{namespace}/pods/{name}', '/apis/authentication.k8s.io/v1/selfsubjectreviews']) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(Object.keys(doc.paths)).toEqual(Object.keys(doc.paths).sort());
    expect(Object.keys(doc.definitions)).toEqual(Object.keys(doc.definitions).sort());
    expect(doc.paths['/apis/apps/'].get).toMatchObject({ operationId: 'getAppsAPIGroup', tags: ['apps'] });
    expect(doc.paths['/apis/rbac.authorization.k8s.io/'].get?.operationId).toBe('getRbacAuthorizationAPIGroup');
  });

  it('writes operations in v2 form: body parameter, consumes, produces, schemes, inline parameter types, #/definitions refs', () => {
    const item = doc.paths['/apis/authentication.k8s.io/v1/selfsubjectreviews'];
    expect(item.post).toEqual({
      description: 'create a SelfSubjectReview',
      consumes: ['*/*'],
      produces: ['application/cbor', 'application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'],
      schemes: ['https'],
      tags: ['authentication_v1'],
      operationId: 'createAuthenticationV1SelfSubjectReview',
      parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.authentication.v1.SelfSubjectReview' } }],
      responses: {
        '200': { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.authentication.v1.SelfSubjectReview' } },
        '201': { description: 'Created', schema: { $ref: '#/definitions/io.k8s.api.authentication.v1.SelfSubjectReview' } },
        '202': { description: 'Accepted', schema: { $ref: '#/definitions/io.k8s.api.authentication.v1.SelfSubjectReview' } },
        '401': { description: 'Unauthorized' },
      },
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' },
    });
    expect(item.parameters?.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'pretty']);
    expect(item.parameters?.[0]).toMatchObject({ uniqueItems: true, type: 'string', name: 'dryRun', in: 'query' });

    const pod = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}'];
    expect(pod.parameters).toEqual([
      { uniqueItems: true, type: 'string', description: 'name of the Pod', name: 'name', in: 'path', required: true },
      { uniqueItems: true, type: 'string', description: 'object name and auth scope, such as for teams and projects', name: 'namespace', in: 'path', required: true },
      expect.objectContaining({ name: 'pretty', in: 'query' }),
    ]);
    expect(pod.patch?.consumes).toContain('application/strategic-merge-patch+json');
    expect(pod.patch?.parameters?.map((p) => p.name)).toEqual(['body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(pod.delete?.parameters?.[0]).toEqual({ name: 'body', in: 'body', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' } });
    expect(doc.paths['/api/v1/namespaces/{namespace}/pods'].get?.produces).toContain('application/json;stream=watch');
  });

  it('holds every definition a path refers to (closed under $ref), with the kinds tagged by their GVK', () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref' && typeof value === 'string') refs.add(value);
      return value;
    });
    for (const ref of refs) {
      expect(ref.startsWith('#/definitions/'), ref).toBe(true);
      expect(doc.definitions[ref.slice('#/definitions/'.length)], ref).toBeDefined();
    }
    expect(doc.definitions['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect(doc.definitions['io.k8s.api.authorization.v1.SubjectAccessReview'].required).toEqual(['spec']);
    expect(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
  });
});

describe('/openapi/v2 as gnostic protobuf', () => {
  it('answers kubectl\'s Accept with openapi.v2.Document that decodes to the JSON document', async () => {
    const json = await get();
    const doc = JSON.parse(await json.text());
    const res = await get({ accept: KUBECTL_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(PROTOBUF_TYPE);
    // One ETag for both forms, as kube-openapi (the Vary header keeps caches apart).
    expect(res.headers.get('etag')).toBe(json.headers.get('etag'));
    const bytes = new Uint8Array(await res.arrayBuffer());
    const decoded = decode(bytes);
    expect(documentJson(decoded)).toEqual(doc);
    // The maps keep the JSON's order, as gnostic parses it.
    expect(decoded.definitions.additional_properties.map((n: M) => n.name)).toEqual(Object.keys(doc.definitions));
    expect(decoded.paths.path.map((n: M) => n.name)).toEqual(Object.keys(doc.paths));
  });

  it('puts the fields at gnostic\'s numbers: swagger 1, info 2, paths 8, definitions 9, security 12, securityDefinitions 13', async () => {
    const res = await get({ accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Field 1, wire type 2 (0x0a), length 3, "2.0"; then field 2 (0x12).
    expect([...bytes.subarray(0, 6)]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12]);
    expect(topLevelFields(bytes)).toEqual([[1, 2], [2, 2], [8, 2], [9, 2], [12, 2], [13, 2]]);
  });

  it('encodes a one-definition document to the bytes gnostic\'s field numbers give', () => {
    const doc: SwaggerDocument = {
      swagger: '2.0', info: { title: 'T', version: 'v' }, paths: {},
      definitions: { D: { type: 'string', 'x-a': true } }, securityDefinitions: {}, security: [],
    };
    const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
    expect([...encodeGnosticDocument(doc)]).toEqual([
      0x0a, 3, ...ascii('2.0'), // Document.swagger = 1
      0x12, 6, 0x0a, 1, ...ascii('T'), 0x12, 1, ...ascii('v'), // info = 2 { title = 1, version = 2 }
      0x42, 0, // paths = 8, set though empty
      0x4a, 35, 0x0a, 33, 0x0a, 1, ...ascii('D'), 0x12, 28, // definitions = 9 { additional_properties = 1 { name = 1, value = 2 } }
      0xb2, 0x01, 8, 0x0a, 6, ...ascii('string'), // Schema.type = 22 { value = 1 }
      0xfa, 0x01, 14, 0x0a, 3, ...ascii('x-a'), 0x12, 7, 0x12, 5, ...ascii('true\n'), // vendor_extension = 31 { name = 1, value = 2 { yaml = 2 } }
      0x6a, 0, // security_definitions = 13
    ]);
  });

  it('carries extensions as YAML text kubectl finds the kind by, and a PATCH\'s fieldValidation as a query parameter', async () => {
    const decoded = decode(new Uint8Array(await (await get({ accept: KUBECTL_ACCEPT })).arrayBuffer()));
    const path = (name: string) => decoded.paths.path.find((n: M) => n.name === name).value;
    const patch = path('/api/v1/namespaces/{namespace}/pods/{name}').patch;
    const gvk = patch.vendor_extension.find((e: M) => e.name === 'x-kubernetes-group-version-kind');
    expect(parseYaml(gvk.value.yaml)).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    const names = patch.parameters.map((p: M) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name);
    expect(names).toContain('fieldValidation');
    const ssr = decoded.definitions.additional_properties.find((n: M) => n.name === 'io.k8s.api.authentication.v1.SelfSubjectReview').value;
    expect(ssr.type.value).toEqual(['object']);
    expect(ssr.properties.additional_properties.map((n: M) => n.name)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata', 'status']));
    const kinds = ssr.vendor_extension.find((e: M) => e.name === 'x-kubernetes-group-version-kind');
    expect(parseYaml(kinds.value.yaml)).toEqual([{ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', version: 'v1' }]);
  });
});

describe('/openapi/v2 negotiation and caching', () => {
  it('serves JSON for */*, application/* and a preferred application/json; 406 with no body for anything else', async () => {
    for (const accept of ['*/*', 'application/*', 'application/json', `${KUBECTL_ACCEPT};q=0.5, application/json;q=0.9`, 'text/html, application/json;q=0.1']) {
      const res = await get({ accept });
      expect([accept, res.status, res.headers.get('content-type')]).toEqual([accept, 200, 'application/json']);
    }
    expect((await get({ accept: `application/json;q=0.5, ${KUBECTL_ACCEPT}` })).headers.get('content-type')).toBe(PROTOBUF_TYPE);
    for (const accept of ['text/html', 'application/yaml', 'application/vnd.kubernetes.protobuf']) {
      const res = await get({ accept });
      expect(res.status).toBe(406);
      expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept');
      expect(res.headers.get('content-type')).toBeNull();
      expect(await res.text()).toBe('');
    }
  });

  it('answers a matching If-None-Match with 304 and the ETag, in either form', async () => {
    const etag = (await get()).headers.get('etag')!;
    const cases: Record<string, string>[] = [{ 'if-none-match': etag }, { 'if-none-match': `W/${etag}` }, { 'if-none-match': `"other", ${etag}` }, { 'if-none-match': '*' }, { 'if-none-match': etag, accept: KUBECTL_ACCEPT }];
    for (const headers of cases) {
      const res = await get(headers);
      expect(res.status).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept');
      expect(res.headers.get('content-type')).toBeNull();
      expect(await res.text()).toBe('');
    }
    expect((await get({ 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('answers If-Modified-Since at or after Last-Modified with 304 when no If-None-Match is sent', async () => {
    const lastModified = (await get()).headers.get('last-modified')!;
    expect((await get({ 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get({ 'if-modified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' })).status).toBe(200);
    expect((await get({ 'if-modified-since': lastModified, 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('is gzipped for a client that accepts it (the document is far above the threshold)', async () => {
    const res = await get({ accept: KUBECTL_ACCEPT, 'accept-encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept');
    const plain = new Uint8Array(await new Response(res.body!.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
    expect(decode(plain).swagger).toBe('2.0');
  });

  it('is the exact path: /openapi/v2/ is 404, a POST is 405, and / lists it', async () => {
    expect((await t.request('GET', '/openapi/v2/')).status).toBe(404);
    expect((await t.request('POST', '/openapi/v2', { body: {} })).status).toBe(405);
    expect((await t.json('GET', '/')).body.paths).toContain('/openapi/v2');
  });

  it('needs the definitions, not the Kubernetes protobuf descriptors, even when asked for in protobuf', () => {
    const request = new Request('http://127.0.0.1/openapi/v2', { headers: { accept: KUBECTL_ACCEPT } });
    const info = newRequestInfo('GET', new URL(request.url));
    expect(dataNeededBy(request, info)).toEqual({ definitions: true, protobufDescriptors: false, columnDescriptions: false });
  });
});

describe('/openapi/v2 with custom resources', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec: {
                  type: 'object',
                  required: ['size', 'note'],
                  properties: {
                    size: { type: 'integer', minimum: 1, maximum: 10 },
                    note: { type: 'string', nullable: true },
                    mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
                    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { kept: { type: 'string' } } },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  },
                },
              },
            },
          },
        },
        { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };

  it('publishes a served CRD version, pruned of what v2 cannot say, and changes the ETag', async () => {
    const s = await newTestServer();
    const before = (await s.request('GET', '/openapi/v2')).headers.get('etag');
    expect((await s.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const res = await s.request('GET', '/openapi/v2');
    expect(res.headers.get('etag')).not.toBe(before);
    const doc: SwaggerDocument = JSON.parse(await res.text());
    expect(doc.paths['/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}'].patch?.['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', version: 'v1', kind: 'Gadget' });
    expect(doc.paths['/apis/example.com/v2/namespaces/{namespace}/gadgets']).toBeUndefined();
    expect(doc.definitions['com.example.v2.Gadget']).toBeUndefined();
    expect(doc.definitions['com.example.v1.GadgetList']).toBeDefined();
    const gadget = doc.definitions['com.example.v1.Gadget'];
    expect(gadget['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.com', version: 'v1', kind: 'Gadget' }]);
    expect(Object.keys(gadget.properties!).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(gadget.properties!.spec).toEqual({
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        note: {},
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        port: { 'x-kubernetes-int-or-string': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      },
    });
    // The protobuf form carries the same custom definition.
    const proto = decode(new Uint8Array(await (await s.request('GET', '/openapi/v2', { headers: { accept: KUBECTL_ACCEPT } })).arrayBuffer()));
    expect(documentJson(proto).definitions['com.example.v1.Gadget']).toEqual(gadget);
  });

  it('publishes a kind that keeps unknown fields at its root as a bare object, and drops arrays left without items', () => {
    const gvk = [{ group: 'example.com', version: 'v1', kind: 'Thing' }];
    expect(toV2CustomResourceSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } }, 'x-kubernetes-group-version-kind': gvk }))
      .toEqual({ type: 'object', 'x-kubernetes-group-version-kind': gvk });
    expect(toV2CustomResourceSchema({
      type: 'object',
      required: ['m'],
      properties: {
        list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
        m: { type: 'object', additionalProperties: { type: 'string', nullable: true } as never },
      },
    } as never)).toEqual({
      type: 'object',
      required: ['m'],
      properties: { list: { 'x-kubernetes-preserve-unknown-fields': true }, m: { type: 'object', additionalProperties: {} } },
    });
  });
});
