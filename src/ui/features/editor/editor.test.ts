import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../../core';
import { createApiClient, isApiError, warningsOf, type ApiClient, type ResourceKind } from '../../api';
import { describeWritten, writePath } from './manifest';
import { kindSchema, manifestType, openApiPathKey, type OpenApiDocument, type OpenApiRoot } from './schema';

const configMaps: ResourceKind = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: [] };
const deployments: ResourceKind = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: [] };

describe('kubectl output lines', () => {
  it.each([
    [configMaps, 'create', false, 'configmap/a created'],
    [deployments, 'apply', false, 'deployment.apps/a serverside-applied'],
    [configMaps, 'replace', true, 'configmap/a replaced (server dry run)'],
    [configMaps, 'delete', false, 'configmap "a" deleted'],
  ] as const)('%#: %s', (kind, verb, dryRun, line) => {
    expect(describeWritten(kind, 'a', verb, dryRun)).toBe(line);
  });

  it('replace and apply need a name; create posts to the collection', () => {
    const target = { kind: configMaps, namespace: 'dev', path: '/api/v1/namespaces/dev/configmaps' };
    expect(writePath('create', target, {})).toEqual({ ok: true, value: '/api/v1/namespaces/dev/configmaps' });
    expect(writePath('apply', target, { metadata: { name: 'x' } })).toEqual({ ok: true, value: '/api/v1/namespaces/dev/configmaps/x' });
    expect(writePath('replace', target, {})).toEqual({ ok: false, message: 'resource name may not be empty' });
  });
});

describe('Warning headers', () => {
  it('reads the texts of 299 warnings, unquoting them', () => {
    const headers = new Headers();
    headers.append('Warning', '299 - "unknown field \\"bogus\\""');
    headers.append('Warning', '299 - "second, with a comma"');
    expect(warningsOf(headers)).toEqual(['unknown field "bogus"', 'second, with a comma']);
  });
});

describe('manifest schema from /openapi/v3', () => {
  let server: ApiServer;
  let client: ApiClient;
  beforeEach(async () => {
    server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(2) });
    await server.ready;
    client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
  });
  afterEach(() => server.close());

  it('reads apiVersion and kind off the text', () => {
    expect(manifestType('apiVersion: apps/v1\nkind: "Deployment"\n')).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(manifestType('kind: Pod\n')).toBeUndefined();
    expect(openApiPathKey('apps/v1')).toBe('apis/apps/v1');
    expect(openApiPathKey('v1')).toBe('api/v1');
  });

  it('finds the kind by x-kubernetes-group-version-kind, closes known objects, keeps refs resolvable', async () => {
    const root = await client.get<OpenApiRoot>('/openapi/v3');
    const document = await client.get<OpenApiDocument>(root.paths[openApiPathKey('apps/v1')]!.serverRelativeURL);
    const schema = kindSchema(document, 'apps/v1', 'Deployment') as Record<string, unknown> & { properties: Record<string, unknown>; components: { schemas: Record<string, { additionalProperties?: unknown }> } };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata', 'spec', 'status']));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.components.schemas['io.k8s.api.apps.v1.DeploymentSpec']!.additionalProperties).toBe(false);
    expect(kindSchema(document, 'apps/v1', 'NoSuchKind')).toBeUndefined();
  });

  it('API-FV-004 API-FV-002 API-FV-005: a write with fieldValidation=Strict fails with the server Status; Warn returns the warning', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const loose = await client.write('create', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'loose' }, bogus: 1 } as never);
    expect(loose.warnings).toEqual(['unknown field "bogus"']);
    const strict = await client
      .write('create', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, bogus: 1 } as never, { fieldValidation: 'Strict' })
      .catch((e: unknown) => e);
    expect(isApiError(strict) && [strict.code, strict.reason, strict.message]).toEqual([400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"']);
  });
});
