/**
 * The API server with its large tables shipped apart, as the service worker's
 * build does (the JSON replaced by `{ deferredUrl }`): reads in JSON are
 * answered without fetching them; the first request that reads a schema, a
 * protobuf descriptor or a column description fetches it once, and gets the answer a server with the
 * tables bundled gives. A failed fetch answers 503 and is retried by the next
 * request.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiServer } from './apiserver';

const data = vi.hoisted(() => ({
  definitionsUrl: '/assets/registry.definitions-test.json',
  operationParametersUrl: '/assets/registry.operationParameters-test.json',
  descriptorUrl: '/assets/descriptor-test.json',
  descriptionsUrl: '/assets/descriptions-test.json',
  bootstrapPolicyUrl: '/assets/bootstrapPolicy-test.json',
  files: new Map<string, unknown>(),
}));

vi.mock('./registry/generated/registry.json', async (importOriginal) => {
  const json = (await importOriginal<{ default: Record<string, unknown> }>()).default;
  data.files.set(data.definitionsUrl, json['definitions']);
  data.files.set(data.operationParametersUrl, json['operationParameters']);
  return { default: { ...json, definitions: { deferredUrl: data.definitionsUrl }, operationParameters: { deferredUrl: data.operationParametersUrl } } };
});
vi.mock('./http/serializers/protobuf/generated/descriptor.json', async (importOriginal) => {
  data.files.set(data.descriptorUrl, (await importOriginal<{ default: unknown }>()).default);
  return { default: { deferredUrl: data.descriptorUrl } };
});

vi.mock('./printers/descriptions.json', async (importOriginal) => {
  data.files.set(data.descriptionsUrl, (await importOriginal<{ default: unknown }>()).default);
  return { default: { deferredUrl: data.descriptionsUrl } };
});

vi.mock('./auth/rbac/generated/bootstrapPolicy.json', async (importOriginal) => {
  data.files.set(data.bootstrapPolicyUrl, (await importOriginal<{ default: unknown }>()).default);
  return { default: { deferredUrl: data.bootstrapPolicyUrl } };
});

const BASE = 'http://127.0.0.1';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra });

/** The schemas and the operation parameters: the files a write or /openapi loads. */
const schemas = () => [data.definitionsUrl, data.operationParametersUrl];

let api: ApiServer;
let fetched: string[];
let offline: boolean;
let core: typeof import('./index');

async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = init.body ? { 'content-type': 'application/json', ...init.headers } : init.headers;
  return api.handle(new Request(BASE + path, { method, body: init.body, headers }));
}

describe('deferred data (the service worker build)', () => {
  beforeEach(async () => {
    // Fresh modules per test: the deferred tables are module state, loaded at most once.
    vi.resetModules();
    const { setDataFetcher } = await import('./util/deferredData');
    core = await import('./index');
    fetched = [];
    offline = false;
    setDataFetcher(async (url) => {
      if (offline) throw new TypeError('Failed to fetch');
      fetched.push(url);
      return structuredClone(data.files.get(url));
    });
    api = core.createApiServer({ storage: core.createMemoryStorage() });
    await api.ready;
    return () => api.close();
  }, 60_000);

  it('answers reads in JSON, discovery and /version without fetching either table', async () => {
    expect((await call('GET', CMS)).status).toBe(200);
    expect((await call('GET', `${CMS}/missing`)).status).toBe(404);
    expect((await call('GET', '/api/v1')).status).toBe(200);
    expect((await call('GET', '/apis')).status).toBe(200);
    expect((await call('GET', '/version')).status).toBe(200);
    const watch = new AbortController();
    const res = await api.handle(new Request(`${BASE}${CMS}?watch=1`, { signal: watch.signal }));
    expect(res.status).toBe(200);
    watch.abort();
    expect(fetched).toEqual([]);
  });

  it('fetches the schemas once, on the first write, and validates with them as a bundled server does', async () => {
    const created = await call('POST', CMS, { body: cm('a') });
    expect(created.status).toBe(201);
    expect(fetched).toEqual(schemas());
    const obj = (await created.json()) as { metadata: { managedFields: { fieldsV1: unknown }[] } };
    expect(obj.metadata.managedFields[0]!.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
    // Strict field validation reads the kind's schema: the unknown field is refused by name.
    const strict = await call('POST', `${CMS}?fieldValidation=Strict`, { body: cm('b', { spec: {} }) });
    expect(strict.status).toBe(400);
    expect(await strict.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"' });
    // A strategic merge patch merges the containers list by name, which only the schema says.
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } };
    expect((await call('POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(pod) })).status).toBe(201);
    const patched = await call('PATCH', '/api/v1/namespaces/default/pods/p', { body: JSON.stringify({ spec: { containers: [{ name: 'b', image: 'b:2' }] } }), headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    expect(patched.status).toBe(200);
    const images = ((await patched.json()) as { spec: { containers: { name: string; image: string }[] } }).spec.containers.map((c) => `${c.name}=${c.image}`);
    expect(images).toEqual(['a=a:1', 'b=b:2']);
    expect((await call('GET', '/openapi/v3/api/v1')).status).toBe(200);
    expect(fetched).toEqual(schemas());
  });

  it('serves /openapi after fetching the schemas', async () => {
    const res = await call('GET', '/openapi/v3/apis/apps/v1');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas['io.k8s.api.apps.v1.Deployment']).toBeDefined();
    // The standard query parameters come from the operation parameters file.
    const deployments = JSON.stringify(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']);
    expect(deployments).toContain('"name":"pretty"');
    expect(deployments).toContain('"name":"limit"');
    expect(fetched).toEqual(schemas());
  });

  it('serves /openapi/v2 as gnostic protobuf after fetching the schemas, not the Kubernetes protobuf descriptors', async () => {
    const res = await call('GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // Document.swagger (field 1, length-delimited) comes first: "2.0".
    expect([...new Uint8Array(await res.arrayBuffer()).subarray(0, 5)]).toEqual([0x0a, 0x03, 0x32, 0x2e, 0x30]);
    expect(fetched).toEqual(schemas());
  });

  it('fetches the protobuf descriptors on the first protobuf request only', async () => {
    expect((await call('POST', CMS, { body: cm('a') })).status).toBe(201);
    expect(fetched).toEqual(schemas());
    const res = await call('GET', `${CMS}/a`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    // The envelope's magic number, then the object.
    expect([...new Uint8Array(await res.arrayBuffer()).subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(fetched).toEqual([...schemas(), data.descriptorUrl]);
  });

  it('fetches the column descriptions on the first Table only', async () => {
    expect((await call('GET', '/api/v1/namespaces')).status).toBe(200);
    expect(fetched).toEqual([]);
    const res = await call('GET', '/api/v1/namespaces', { headers: { accept: TABLE } });
    expect(res.status).toBe(200);
    const table = (await res.json()) as { kind: string; columnDefinitions: { name: string; description: string }[]; rows: { cells: unknown[] }[] };
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(table.columnDefinitions[0]!.description).toMatch(/^Name must be unique within a namespace/);
    expect(table.columnDefinitions[2]!.description).toMatch(/^CreationTimestamp is a timestamp/);
    expect(fetched).toEqual([data.descriptionsUrl]);
  });

  it('an RBAC server fetches the bootstrap policy and the schemas while starting: its roles are reconciled and aggregated', async () => {
    expect(fetched).toEqual([]);
    const { authorizerFromModes, parseAuthorizationModes } = await import('./auth/authorizer/modes');
    const rbac = core.createApiServer({ storage: core.createMemoryStorage(), authorizer: authorizerFromModes(parseAuthorizationModes('RBAC')), rbacBootstrap: true });
    try {
      await rbac.ready;
      expect([...fetched].sort()).toEqual([...schemas(), data.bootstrapPolicyUrl].sort());
      const stored = await rbac.storage.get('/registry/rbac.authorization.k8s.io/clusterroles/admin');
      const admin = JSON.parse(stored!.value) as { rules: unknown[]; metadata: { managedFields: { manager: string }[] } };
      // The aggregation controller's forced apply (server-side apply: it reads the ClusterRole schema) set the rules.
      expect(admin.rules.length).toBeGreaterThan(0);
      expect(admin.metadata.managedFields.map((m) => m.manager)).toContain('clusterrole-aggregation-controller');
    } finally {
      await rbac.close();
    }
  });

  it('answers 503 while a table cannot be fetched, and fetches it on the next request', async () => {
    offline = true;
    const res = await call('POST', CMS, { body: cm('a') });
    expect(res.status).toBe(503);
    const status = (await res.json()) as { reason: string; message: string };
    expect(status.reason).toBe('ServiceUnavailable');
    expect(status.message).toContain(data.definitionsUrl);
    // Reads go on meanwhile.
    expect((await call('GET', CMS)).status).toBe(200);
    // In JSON even for a protobuf client: its Status would need the descriptors that failed to load.
    const pb = await call('GET', `${CMS}/a`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(pb.status).toBe(503);
    expect(pb.headers.get('content-type')).toBe('application/json');
    expect(((await pb.json()) as { message: string }).message).toContain(data.descriptorUrl);
    offline = false;
    expect((await call('POST', CMS, { body: cm('a') })).status).toBe(201);
    expect(fetched).toEqual(schemas());
  });
});
