/**
 * Discovery documents through handle(): the same content negotiation as every
 * endpoint (q-values, wildcards, JSON / YAML / protobuf, CBOR where kube's
 * group version codecs carry it), aggregated discovery v2 and v2beta1 in each
 * encoding it is served in, kube's cache headers, and 406 otherwise. Protobuf
 * bodies are read with protobufjs from the upstream .proto files.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { plain, readCbor } from './http/serializers/cbor/cborReader.test-data';
import { decodeEnvelope, decodeRaw, protoFilesAvailable } from './http/serializers/protobuf/protoFiles.test-data';
import { newTestServer, type TestServer } from './testing/client';

const PB = 'application/vnd.kubernetes.protobuf';
const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
/** What kubectl 1.32's discovery client sends for /api and /apis. */
const KUBECTL_ACCEPT = `${V2},${V2BETA1},application/json`;
const LEGACY_TYPES = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

async function get(path: string, accept?: string, headers: Record<string, string> = {}) {
  const r = await t.request('GET', path, { headers: accept === undefined ? headers : { ...headers, accept } });
  return { r, bytes: new Uint8Array(await r.arrayBuffer()) };
}
/** protobufjs reads the named slice `Verbs` as its wrapper message ({items: [...]}); Go's JSON writes the array. */
function unwrapVerbs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapVerbs);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'verbs' && x && typeof x === 'object' && !Array.isArray(x) ? ((x as { items?: unknown[] }).items ?? []) : unwrapVerbs(x)]));
}
const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

describe('discovery negotiation', () => {
  it.each([
    ['kubectl 1.32', '/apis', KUBECTL_ACCEPT, V2, 'APIGroupDiscoveryList'],
    ['v2beta1 only', '/apis', V2BETA1, V2BETA1, 'APIGroupDiscoveryList'],
    ['v2 below json by q', '/apis', `${V2};q=0.5,application/json`, 'application/json', 'APIGroupList'],
    ['v2 beside a wildcard', '/api', `*/*;q=0.8,${V2}`, V2, 'APIGroupDiscoveryList'],
    ['plain json', '/api', 'application/json', 'application/json', 'APIVersions'],
    ['no Accept', '/apis', undefined, 'application/json', 'APIGroupList'],
    ['wildcard', '/apis', '*/*', 'application/json', 'APIGroupList'],
    ['application/* wildcard', '/apis/apps', 'application/*', 'application/json', 'APIGroup'],
    ['a Table request skipped for the next clause', '/apis', `application/json;as=Table;g=meta.k8s.io;v=v1,${V2}`, V2, 'APIGroupDiscoveryList'],
    ['the first acceptable clause wins', '/api', 'text/html,application/json,application/yaml', 'application/json', 'APIVersions'],
    ['json stream=watch is still json', '/api/v1', 'application/json;stream=watch', 'application/json', 'APIResourceList'],
    ['per-version documents ignore the aggregated clauses', '/apis/apps/v1', KUBECTL_ACCEPT, 'application/json', 'APIResourceList'],
  ])('[API-ENC-012] [API-ENC-013] %s: %s as %s', async (_name, path, accept, contentType, kind) => {
    const { r, bytes } = await get(path, accept);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(contentType);
    expect(json(bytes).kind).toBe(kind);
  });

  it.each([
    ['/apis', 'text/html'],
    ['/api', 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'],
    ['/apis', 'application/json;as=Table;g=meta.k8s.io;v=v1'],
    ['/apis/apps/v1', V2],
    ['/apis/apps', 'application/yaml;stream=watch'],
    ['/api/v1', 'application/cbor'],
  ])('[API-ERR-003] %s with Accept %s is 406 with the media types the endpoint offers', async (path, accept) => {
    const { r, bytes } = await get(path, accept);
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(json(bytes)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `only the following media types are accepted: ${LEGACY_TYPES}`,
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  it('[API-ENC-018] YAML: the legacy documents and the aggregated list', async () => {
    const legacy = await get('/apis/batch', 'application/yaml');
    expect(legacy.r.headers.get('content-type')).toBe('application/yaml');
    expect(parseYaml(new TextDecoder().decode(legacy.bytes))).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'batch' });
    const agg = await get('/apis', 'application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(agg.r.headers.get('content-type')).toBe('application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(parseYaml(new TextDecoder().decode(agg.bytes)).kind).toBe('APIGroupDiscoveryList');
  });

  it('pretty printing follows ?pretty and a curl user agent, as on resources', async () => {
    expect(new TextDecoder().decode((await get('/apis/apps?pretty=true')).bytes)).toContain('\n  "kind"');
    expect(new TextDecoder().decode((await get('/api', undefined, { 'user-agent': 'curl/8.5.0' })).bytes)).toContain('\n  "kind"');
    expect(new TextDecoder().decode((await get('/api', undefined, { 'user-agent': 'kubectl/v1.32.0' })).bytes).trim()).not.toContain('\n');
  });
});

describe.skipIf(!protoFilesAvailable)('discovery in protobuf', () => {
  it.each([
    ['/api', 'APIVersions', 'k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions'],
    ['/apis', 'APIGroupList', 'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList'],
    ['/apis/apps', 'APIGroup', 'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup'],
    ['/api/v1', 'APIResourceList', 'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList'],
    ['/apis/apps/v1', 'APIResourceList', 'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList'],
  ])('[API-ENC-019] [API-ENC-001] [API-ENC-003] %s is a v1 %s envelope equal to the JSON', async (path, kind, message) => {
    const { r, bytes } = await get(path, `${PB},application/json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(PB);
    const env = decodeEnvelope(bytes);
    expect([env.apiVersion, env.kind]).toEqual(['v1', kind]);
    const fromJson = json((await get(path, 'application/json')).bytes);
    const { kind: _k, apiVersion: _v, ...fields } = fromJson;
    expect(unwrapVerbs(decodeRaw(message, env.raw))).toEqual(fields);
  });

  it.each([
    ['/apis', 'v2'],
    ['/api', 'v2'],
    ['/apis', 'v2beta1'],
  ] as const)('[API-ENC-019] aggregated %s %s in protobuf, equal to the JSON document', async (path, version) => {
    const params = `;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
    const { r, bytes } = await get(path, `${PB}${params},application/json${params},application/json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${PB}${params}`);
    const env = decodeEnvelope(bytes);
    expect([env.apiVersion, env.kind]).toEqual([`apidiscovery.k8s.io/${version}`, 'APIGroupDiscoveryList']);
    const decoded = decodeRaw(`k8s.io.api.apidiscovery.${version}.APIGroupDiscoveryList`, env.raw);
    const { kind: _k, apiVersion: _v, ...fields } = json((await get(path, `application/json${params}`)).bytes);
    // protobufjs leaves out empty repeated fields and empty messages that Go's JSON writes.
    const scrub = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(scrub) : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).filter(([, x]) => !(Array.isArray(x) && x.length === 0) && !(x && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0)).map(([k, x]) => [k, scrub(x)]))
        : v;
    expect(scrub(unwrapVerbs(decoded))).toEqual(scrub(fields));
    expect((decoded.items as unknown[]).length).toBeGreaterThan(path === '/api' ? 0 : 10);
  });

  it('[API-ENC-013] protobuf discovery is chosen over JSON listed first with a lower q', async () => {
    const { r } = await get('/apis/apps', `application/json;q=0.9,${PB}`);
    expect(r.headers.get('content-type')).toBe(PB);
  });
});

describe('aggregated discovery cache headers', () => {
  it('ETag, Cache-Control public and Vary Accept; 304 for a matching If-None-Match', async () => {
    const first = await get('/apis', V2);
    const etag = first.r.headers.get('etag');
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(first.r.headers.get('cache-control')).toBe('public');
    expect(first.r.headers.get('vary')).toBe('Accept');
    const again = await get('/apis', V2, { 'if-none-match': etag! });
    expect(again.r.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect((await get('/apis', V2, { 'if-none-match': '"other"' })).r.status).toBe(200);
    // The legacy list is not cached that way.
    const legacy = await get('/apis', 'application/json');
    expect(legacy.r.headers.get('etag')).toBeNull();
    expect(legacy.r.headers.get('vary')).toBe('Accept');
  });
});

describe('discovery under CBORServingAndStorage', () => {
  it('[API-ENC-023] group version documents are served in CBOR; root and group documents are not', async () => {
    const c = await newTestServer({ featureGates: { CBORServingAndStorage: true } });
    const r = await c.request('GET', '/api/v1', { headers: { accept: 'application/cbor' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/cbor');
    const doc = plain(readCbor(new Uint8Array(await r.arrayBuffer()))) as { kind: string; groupVersion: string };
    expect([doc.kind, doc.groupVersion]).toEqual(['APIResourceList', 'v1']);
    const root = await c.request('GET', '/apis', { headers: { accept: 'application/cbor' } });
    expect(root.status).toBe(406);
    expect((await root.json()).message).toBe(`only the following media types are accepted: ${LEGACY_TYPES}`);
    const agg = await c.request('GET', '/apis', { headers: { accept: 'application/cbor;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(agg.status).toBe(406);
  });
});
