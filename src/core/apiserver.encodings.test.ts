/**
 * Encodings and content negotiation through handle(): protobuf (lists, watch
 * frames, partial metadata), CBOR behind CBORServingAndStorage (objects,
 * cbor-seq watches, apply-patch+cbor), Accept lists with q-values, wildcards
 * and `;stream=watch`, and the 406 / 415 answers. Every body is decoded with an
 * independent decoder: protobufjs from the upstream .proto files, and cborg.
 */
import { encode as cborgEncode } from 'cborg';
import { plain, readCbor, readCborSequence } from './http/serializers/cbor/cborReader.test-data';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeEnvelope, decodeRaw, decodeWatchFrame, protoFilesAvailable, splitFrames } from './http/serializers/protobuf/protoFiles.test-data';
import { parseTokenFile } from './auth/authenticator/tokenfile';
import { newTestServer, type TestServer } from './testing/client';

const PB = 'application/vnd.kubernetes.protobuf';
const CBOR = 'application/cbor';
const NS = '/api/v1/namespaces/ns1';
const cm = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function bytesOf(r: Response): Promise<Uint8Array> {
  return new Uint8Array(await r.arrayBuffer());
}

/** Reads a binary watch body until `parse` finds `n` events in it, then stops the watch. */
async function readEvents<T>(r: Response, abort: AbortController, n: number, parse: (bytes: Uint8Array) => T[]): Promise<T[]> {
  const reader = r.body!.getReader();
  let buf = new Uint8Array();
  for (;;) {
    const events = parse(buf);
    if (events.length >= n) {
      abort.abort();
      return events;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`watch ended after ${events.length} of ${n} events`);
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
  }
}

function cborSequence(bytes: Uint8Array): unknown[] {
  if (bytes.length === 0) return [];
  try {
    return readCborSequence(bytes).map(plain);
  } catch {
    return []; // an item is still arriving
  }
}

let t: TestServer;

describe('protobuf', () => {
  beforeEach(async () => {
    t = await newTestServer();
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  });

  it.skipIf(!protoFilesAvailable)('[API-ENC-001][API-ENC-002][API-ENC-003][API-ENC-004][API-ENC-005][API-ENC-006] a list is one ConfigMapList envelope', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('a') });
    await t.json('POST', `${NS}/configmaps`, { body: cm('b', { x: 'y' }) });
    const r = await t.request('GET', `${NS}/configmaps`, { headers: { accept: `${PB}, application/json` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(PB);
    const env = decodeEnvelope(await bytesOf(r));
    expect(env).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMapList', contentEncoding: '', contentType: '' });
    const list = decodeRaw('k8s.io.api.core.v1.ConfigMapList', env.raw) as { metadata: { resourceVersion: string }; items: { metadata: { name: string }; data: Record<string, string> }[] };
    expect(list.items.map((i) => [i.metadata.name, i.data])).toEqual([['a', { k: 'v' }], ['b', { x: 'y' }]]);
    const json = await t.json('GET', `${NS}/configmaps`);
    expect(list.metadata.resourceVersion).toBe(json.body.metadata.resourceVersion);
  });

  it.skipIf(!protoFilesAvailable)('[API-ENC-019] PartialObjectMetadataList is served as protobuf too', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('a') });
    const r = await t.request('GET', `${NS}/configmaps`, { headers: { accept: `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json` } });
    expect(r.headers.get('content-type')).toBe(PB);
    const env = decodeEnvelope(await bytesOf(r));
    expect(env).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList' });
    const list = decodeRaw('k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList', env.raw) as { items: { metadata: { name: string; namespace: string } }[] };
    expect(list.items.map((i) => i.metadata)).toMatchObject([{ name: 'a', namespace: 'ns1' }]);
  });

  it('[API-TABLE-011] Tables are JSON or YAML only: protobuf;as=Table alone is 406, with a JSON fallback the plain list', async () => {
    const table = `${PB};as=Table;g=meta.k8s.io;v=v1`;
    const only = await t.json('GET', `${NS}/configmaps`, { headers: { accept: table } });
    expect(only.status).toBe(406);
    expect(only.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', message: `only the following media types are accepted: application/json, application/yaml, ${PB}` });
    const fallback = await t.json('GET', `${NS}/configmaps`, { headers: { accept: `${table}, application/json` } });
    expect(fallback.status).toBe(200);
    expect(fallback.body.kind).toBe('ConfigMapList');
  });

  it.skipIf(!protoFilesAvailable)('[API-PATH-008] the scale subresource answers an autoscaling/v1 Scale in protobuf', async () => {
    const d = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await t.json('POST', '/apis/apps/v1/namespaces/ns1/deployments', { body: d })).status).toBe(201);
    const r = await t.request('GET', '/apis/apps/v1/namespaces/ns1/deployments/web/scale', { headers: { accept: `${PB}, application/json` } });
    expect(r.headers.get('content-type')).toBe(PB);
    const env = decodeEnvelope(await bytesOf(r));
    expect(env).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale' });
    expect(decodeRaw('k8s.io.api.autoscaling.v1.Scale', env.raw)).toMatchObject({ metadata: { name: 'web' }, spec: { replicas: 2 } });
  });

  it.skipIf(!protoFilesAvailable)('[API-WATCH-020] a protobuf watch is length-prefixed WatchEvent frames, each object in the k8s envelope', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('before') });
    const abort = new AbortController();
    const r = await t.request('GET', `${NS}/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, {
      headers: { accept: `${PB}, application/json` },
      signal: abort.signal,
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${PB};stream=watch`);
    const pending = readEvents(r, abort, 5, (b) => splitFrames(b).frames.map(decodeWatchFrame));
    await t.json('POST', `${NS}/configmaps`, { body: cm('after') });
    await t.json('PATCH', `${NS}/configmaps/after`, { body: { data: { k: 'v2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await t.json('DELETE', `${NS}/configmaps/after`);
    const events = await pending;
    expect(events.map((e) => [e.type, e.object.apiVersion, e.object.kind])).toEqual([
      ['ADDED', 'v1', 'ConfigMap'],
      ['BOOKMARK', 'v1', 'ConfigMap'],
      ['ADDED', 'v1', 'ConfigMap'],
      ['MODIFIED', 'v1', 'ConfigMap'],
      ['DELETED', 'v1', 'ConfigMap'],
    ]);
    const objects = events.map((e) => decodeRaw('k8s.io.api.core.v1.ConfigMap', e.object.raw) as { metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> }; data?: Record<string, string> });
    expect(objects.map((o) => o.metadata.name)).toEqual(['before', undefined, 'after', 'after', 'after']);
    expect(objects[1]!.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(objects[3]!.data).toEqual({ k: 'v2' });
  });

  it.skipIf(!protoFilesAvailable)('a metadata informer\'s watch: protobuf frames of PartialObjectMetadata', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('meta', { big: 'x'.repeat(100) }) });
    const abort = new AbortController();
    const r = await t.request('GET', `${NS}/configmaps?watch=1`, {
      headers: { accept: `${PB};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` },
      signal: abort.signal,
    });
    expect(r.headers.get('content-type')).toBe(`${PB};stream=watch`);
    const [event] = await readEvents(r, abort, 1, (b) => splitFrames(b).frames.map(decodeWatchFrame));
    expect(event!.type).toBe('ADDED');
    expect(event!.object).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' });
    const partial = decodeRaw('k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata', event!.object.raw);
    expect(partial).toMatchObject({ metadata: { name: 'meta', namespace: 'ns1' } });
    expect(partial).not.toHaveProperty('data');
  });

  it.skipIf(!protoFilesAvailable)('[API-WATCH-029] a too-old protobuf watch is 200 and an ERROR frame carrying a 410 Status', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('a') });
    const x = (await t.json('GET', `${NS}/configmaps`)).body.metadata.resourceVersion as string;
    await t.json('POST', `${NS}/configmaps`, { body: cm('b') });
    t.clock.advance(6 * 60_000);
    await t.json('POST', `${NS}/configmaps`, { body: cm('c') });
    const abort = new AbortController();
    const r = await t.request('GET', `${NS}/configmaps?watch=1&resourceVersion=${x}`, { headers: { accept: PB }, signal: abort.signal });
    expect(r.status).toBe(200);
    const [event] = await readEvents(r, abort, 1, (b) => splitFrames(b).frames.map(decodeWatchFrame));
    expect(event!.type).toBe('ERROR');
    expect(event!.object.kind).toBe('Status');
    expect(decodeRaw('k8s.io.apimachinery.pkg.apis.meta.v1.Status', event!.object.raw)).toMatchObject({ code: 410, reason: 'Expired' });
  });
});

describe('content negotiation', () => {
  beforeEach(async () => {
    t = await newTestServer();
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
    await t.json('POST', `${NS}/configmaps`, { body: cm('c1') });
  });

  const contentType = async (accept: string, path = `${NS}/configmaps/c1`) => (await t.request('GET', path, { headers: { accept } })).headers.get('content-type');

  it('[API-ENC-012] q-values order the alternatives; q=0 rules one out', async () => {
    expect(await contentType('application/json;q=0.5, application/yaml')).toBe('application/yaml');
    expect(await contentType('application/yaml;q=0.2, application/json;q=0.9')).toBe('application/json');
    expect(await contentType(`application/json;q=0, ${PB};q=0.1`)).toBe(PB);
  });

  it('[API-ENC-015] wildcards take JSON, and rank below a concrete type of the same q', async () => {
    expect(await contentType('*/*')).toBe('application/json');
    expect(await contentType('application/*')).toBe('application/json');
    expect(await contentType('*/*, application/yaml')).toBe('application/yaml');
    expect(await contentType('application/*;q=0.8, application/yaml;q=0.8')).toBe('application/yaml');
    expect(await contentType('text/*, */*;q=0.1')).toBe('application/json');
  });

  it('[API-TABLE-009][API-TABLE-010] Table v1 and v1beta1, and Table in YAML', async () => {
    const v1 = await t.json('GET', `${NS}/configmaps`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1, application/json' } });
    expect(v1.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    const beta = await t.json('GET', `${NS}/configmaps`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1beta1' } });
    expect(beta.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    const yaml = await t.request('GET', `${NS}/configmaps`, { headers: { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' } });
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(await yaml.text()).toContain('kind: Table');
    // A Table without its group and version is not a Table request kube can serve.
    const bare = await t.json('GET', `${NS}/configmaps`, { headers: { accept: 'application/json;as=Table' } });
    expect(bare.status).toBe(406);
  });

  it('[API-WATCH-021] `;stream=watch` is accepted where clients send it; another stream schema is not', async () => {
    const w = await t.watch(`${NS}/configmaps?watch=1`, { accept: 'application/json;stream=watch' });
    expect(w.response.headers.get('content-type')).toBe('application/json');
    const [first] = await w.take(1);
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c1' } } });
    w.close();
    const pbAbort = new AbortController();
    const pb = await t.request('GET', `${NS}/configmaps?watch=1`, { headers: { accept: `${PB};stream=watch` }, signal: pbAbort.signal });
    expect(pb.headers.get('content-type')).toBe(`${PB};stream=watch`);
    pbAbort.abort();
    const bad = await t.json('GET', `${NS}/configmaps?watch=1`, { headers: { accept: 'application/json;stream=other' } });
    expect(bad.status).toBe(406);
  });

  it('[API-ERR-003] a watch takes the first acceptable type: YAML first is 406 even with JSON listed after it', async () => {
    const r = await t.request('GET', `${NS}/configmaps?watch=1`, { headers: { accept: 'application/yaml, application/json' } });
    expect(r.status).toBe(406);
    // The Status goes out in the first type the client accepts at all, as kube's error writer negotiates it.
    expect(r.headers.get('content-type')).toBe('application/yaml');
    const text = await r.text();
    expect(text).toContain('reason: NotAcceptable');
    expect(text).toContain(`only the following media types are accepted: application/json, application/yaml, ${PB}`);
  });

  it('[API-ENC-014] Content-Type must match the body: unknown types are 415, malformed bodies 400', async () => {
    const unknown = await t.json('POST', `${NS}/configmaps`, { body: JSON.stringify(cm('x')), headers: { 'content-type': 'text/plain' } });
    expect(unknown.status).toBe(415);
    expect(unknown.body).toMatchObject({
      reason: 'UnsupportedMediaType',
      message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PB}`,
    });
    const yamlAsJson = await t.json('POST', `${NS}/configmaps`, { body: 'kind: ConfigMap\n', headers: { 'content-type': 'application/json' } });
    expect(yamlAsJson.status).toBe(400);
    // A patch names its type: without Content-Type it is no patch at all.
    const untyped = await t.request('PATCH', `${NS}/configmaps/c1`, { body: new TextEncoder().encode('{"data":{"k":"x"}}') });
    expect(untyped.status).toBe(415);
  });
});

describe('CBOR with CBORServingAndStorage off', () => {
  beforeEach(async () => {
    t = await newTestServer();
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
    await t.json('POST', `${NS}/configmaps`, { body: cm('c1') });
  });

  it('[API-ENC-023] Accept application/cbor is 406, its Status in JSON', async () => {
    const r = await t.json('GET', `${NS}/configmaps/c1`, { headers: { accept: CBOR } });
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toMatchObject({ reason: 'NotAcceptable', message: `only the following media types are accepted: application/json, application/yaml, ${PB}` });
  });

  it('[API-ENC-028] a CBOR body is 415', async () => {
    const r = await t.json('POST', `${NS}/configmaps`, { body: cborgEncode(cm('x')), headers: { 'content-type': CBOR } });
    expect(r.status).toBe(415);
    expect(r.body.message).toBe(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PB}`);
  });

  it('[API-SSA-033] apply-patch+cbor is 415, listing the patch types served', async () => {
    const r = await t.json('PATCH', `${NS}/configmaps/c1?fieldManager=m`, { body: cborgEncode(cm('c1')), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(r.status).toBe(415);
    expect(r.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });
});

describe('CBOR with CBORServingAndStorage on', () => {
  beforeEach(async () => {
    t = await newTestServer({ featureGates: { CBORServingAndStorage: true } });
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  });

  it('[API-ENC-023] GET as application/cbor: one self-described data item, byte-string keys and values, equal to the JSON', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('c1', { a: 'b', c: 'grüße' }) });
    const r = await t.request('GET', `${NS}/configmaps/c1`, { headers: { accept: CBOR } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(CBOR);
    const bytes = await bytesOf(r);
    expect([...bytes.subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    const item = readCbor(bytes) as Map<unknown, unknown>;
    expect([...item.keys()].every((k) => k instanceof Uint8Array)).toBe(true);
    // RFC 8949 core deterministic order: shorter keys first.
    expect([...item.keys()].map((k) => plain(k))).toEqual(['data', 'kind', 'metadata', 'apiVersion']);
    expect(plain(item)).toEqual((await t.json('GET', `${NS}/configmaps/c1`)).body);
  });

  it('[API-ENC-028][API-ENC-029] create with a CBOR body (text strings, as any CBOR client writes them); the answer in CBOR', async () => {
    const r = await t.request('POST', `${NS}/configmaps`, { body: cborgEncode(cm('cb', { x: '1' })), headers: { 'content-type': CBOR, accept: CBOR } });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe(CBOR);
    const created = plain(readCbor(await bytesOf(r))) as { metadata: { uid: string }; data: Record<string, string> };
    expect(created.data).toEqual({ x: '1' });
    expect((await t.json('GET', `${NS}/configmaps/cb`)).body.metadata.uid).toBe(created.metadata.uid);
  });

  it('[API-ENC-014] a JSON body labelled application/cbor is a 400 decode error; so are duplicate keys', async () => {
    const json = await t.json('POST', `${NS}/configmaps`, { body: JSON.stringify(cm('x')), headers: { 'content-type': CBOR } });
    expect(json.status).toBe(400);
    expect(json.body.reason).toBe('BadRequest');
    // {"kind": "ConfigMap", "kind": "Secret"} with byte-string keys.
    const dup = new Uint8Array([0xa2, 0x44, ...new TextEncoder().encode('kind'), 0x49, ...new TextEncoder().encode('ConfigMap'), 0x44, ...new TextEncoder().encode('kind'), 0x46, ...new TextEncoder().encode('Secret')]);
    const r = await t.json('POST', `${NS}/configmaps`, { body: dup, headers: { 'content-type': CBOR } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('duplicate map key "kind"');
  });

  it('[API-ERR-003] errors come back in CBOR when CBOR is asked for', async () => {
    const r = await t.request('GET', `${NS}/configmaps/missing`, { headers: { accept: CBOR } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe(CBOR);
    expect(plain(readCbor(await bytesOf(r)))).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    const all = await t.json('GET', `${NS}/configmaps/missing`, { headers: { accept: 'application/x-unknown' } });
    expect(all.body.message).toBe(`only the following media types are accepted: application/json, application/yaml, ${PB}, ${CBOR}`);
  });

  it('[API-ERR-003] errors written before any handler (a rejected token) come back in CBOR too', async () => {
    const auth = await newTestServer({ featureGates: { CBORServingAndStorage: true }, authentication: { tokenFile: parseTokenFile('good,alice,1\n') } });
    const r = await auth.request('GET', '/api/v1/namespaces', { headers: { accept: CBOR, authorization: 'Bearer bad' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe(CBOR);
    expect(plain(readCbor(await bytesOf(r)))).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const off = await newTestServer({ authentication: { tokenFile: parseTokenFile('good,alice,1\n') } });
    const json = await off.request('GET', '/api/v1/namespaces', { headers: { accept: CBOR, authorization: 'Bearer bad' } });
    expect(json.status).toBe(401);
    expect(json.headers.get('content-type')).toBe('application/json');
  });

  it('[API-ENC-023] a list and a Table-free fallback: cbor;as=Table is not served, cbor;as=PartialObjectMetadataList is', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('c1') });
    const table = await t.json('GET', `${NS}/configmaps`, { headers: { accept: `${CBOR};as=Table;g=meta.k8s.io;v=v1` } });
    expect(table.status).toBe(406);
    const partial = await t.request('GET', `${NS}/configmaps`, { headers: { accept: `${CBOR};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } });
    expect(partial.headers.get('content-type')).toBe(CBOR);
    expect(plain(readCbor(await bytesOf(partial)))).toMatchObject({ kind: 'PartialObjectMetadataList', items: [{ metadata: { name: 'c1' } }] });
    const list = await t.request('GET', `${NS}/configmaps`, { headers: { accept: CBOR } });
    expect(plain(readCbor(await bytesOf(list)))).toEqual((await t.json('GET', `${NS}/configmaps`)).body);
  });

  it('[API-SSA-033][API-SSA-031] apply-patch+cbor applies, tracked for its field manager', async () => {
    const body = cborgEncode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ap' }, data: { a: '1' } });
    const r = await t.request('PATCH', `${NS}/configmaps/ap?fieldManager=cbor-applier`, { body, headers: { 'content-type': 'application/apply-patch+cbor', accept: CBOR } });
    expect(r.status).toBe(201);
    const applied = plain(readCbor(await bytesOf(r))) as { data: Record<string, string>; metadata: { managedFields: { manager: string; operation: string }[] } };
    expect(applied.data).toEqual({ a: '1' });
    expect(applied.metadata.managedFields).toMatchObject([{ manager: 'cbor-applier', operation: 'Apply' }]);
    const again = await t.json('PATCH', `${NS}/configmaps/ap?fieldManager=cbor-applier`, {
      body: cborgEncode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ap' }, data: { a: '2' } }),
      headers: { 'content-type': 'application/apply-patch+cbor' },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ a: '2' });
  });

  it('[API-PATCH-009] no CBOR forms of json-patch, merge-patch or strategic-merge-patch: 415', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('c1') });
    for (const type of ['application/json-patch+cbor', 'application/merge-patch+cbor', 'application/strategic-merge-patch+cbor']) {
      const r = await t.json('PATCH', `${NS}/configmaps/c1`, { body: cborgEncode({ data: { k: 'x' } }), headers: { 'content-type': type } });
      expect(r.status).toBe(415);
      expect(r.body.message).toBe(
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
      );
    }
  });

  it('[API-WATCH-033][API-WATCH-011] a watch asked for as application/cbor is an application/cbor-seq of {type, object} items', async () => {
    await t.json('POST', `${NS}/configmaps`, { body: cm('first') });
    const abort = new AbortController();
    const r = await t.request('GET', `${NS}/configmaps?watch=1`, { headers: { accept: CBOR }, signal: abort.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/cbor-seq');
    const pending = readEvents(r, abort, 3, cborSequence);
    await t.json('POST', `${NS}/configmaps`, { body: cm('second') });
    await t.json('DELETE', `${NS}/configmaps/first`);
    const events = (await pending) as { type: string; object: { kind: string; metadata: { name: string } } }[];
    expect(events.map((e) => [e.type, e.object.kind, e.object.metadata.name])).toEqual([
      ['ADDED', 'ConfigMap', 'first'],
      ['ADDED', 'ConfigMap', 'second'],
      ['DELETED', 'ConfigMap', 'first'],
    ]);
  });
});

describe('custom resources', () => {
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
    },
  };
  const widget = (name: string, size: number) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size } });

  beforeEach(async () => {
    t = await newTestServer({ featureGates: { CBORServingAndStorage: true } });
    expect((await t.json('POST', CRDS, { body: crd })).status).toBe(201);
  });

  it('[API-ENC-020][API-ENC-013][API-LIM-007] no protobuf for a custom resource: 406 alone, JSON as the listed fallback', async () => {
    await t.json('POST', WIDGETS, { body: widget('w1', 1) });
    const only = await t.request('GET', `${WIDGETS}/w1`, { headers: { accept: PB } });
    expect(only.status).toBe(406);
    // The Status itself is a built-in kind: it goes out in the protobuf the client asked for.
    expect(only.headers.get('content-type')).toBe(PB);
    const status = new Uint8Array(await only.arrayBuffer());
    expect([...status.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const fallback = await t.request('GET', `${WIDGETS}/w1`, { headers: { accept: `${PB}, application/json` } });
    expect(fallback.headers.get('content-type')).toBe('application/json');
    const body = await t.json('POST', WIDGETS, { body: encodeProtobufLike(), headers: { 'content-type': PB } });
    expect(body.status).toBe(415);
    expect(body.body.message).toBe(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${CBOR}`);
  });

  it.skipIf(!protoFilesAvailable)('[API-ENC-019] a custom resource\'s partial metadata is served in protobuf (a meta.k8s.io message)', async () => {
    await t.json('POST', WIDGETS, { body: widget('w1', 1) });
    const r = await t.request('GET', WIDGETS, { headers: { accept: `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } });
    expect(r.headers.get('content-type')).toBe(PB);
    const env = decodeEnvelope(await bytesOf(r));
    expect(env.kind).toBe('PartialObjectMetadataList');
    expect(decodeRaw('k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList', env.raw)).toMatchObject({ items: [{ metadata: { name: 'w1' } }] });
  });

  it('[API-ENC-028][API-SSA-033][API-PATCH-007] CBOR create, get and apply of a custom resource; strategic merge stays 415', async () => {
    const created = await t.request('POST', WIDGETS, { body: cborgEncode(widget('w2', 2)), headers: { 'content-type': CBOR, accept: CBOR } });
    expect(created.status).toBe(201);
    expect(plain(readCbor(await bytesOf(created)))).toMatchObject({ kind: 'Widget', spec: { size: 2 } });
    const applied = await t.json('PATCH', `${WIDGETS}/w2?fieldManager=m&force=true`, { body: cborgEncode(widget('w2', 3)), headers: { 'content-type': 'application/apply-patch+cbor' } });
    expect(applied.status).toBe(200);
    expect(applied.body.spec).toEqual({ size: 3 });
    const smp = await t.json('PATCH', `${WIDGETS}/w2`, { body: JSON.stringify({ spec: { size: 4 } }), headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
    expect(smp.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
    );
  });
});

/** Any protobuf-looking body: the content type alone decides a custom resource's 415. */
function encodeProtobufLike(): Uint8Array {
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x00]);
}
