import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../core';
import { ApiError, createApiClient, isApiError, statusFrom, type ApiClient } from './client';
import type { KubeList } from './types';

let server: ApiServer;
let client: ApiClient;

beforeEach(async () => {
  server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(7) });
  await server.ready;
  client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
});

afterEach(() => server.close());

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe('ApiClient against the core', () => {
  it('creates an object and lists it with its resourceVersion', async () => {
    const created = await client.create('/api/v1/namespaces/default/configmaps', configMap('settings'), { fieldManager: 'kubesim-workbench' });
    expect(created.metadata).toMatchObject({ name: 'settings', namespace: 'default' });
    expect(created.metadata?.uid).toBeTruthy();
    const list = await client.get<KubeList>('/api/v1/namespaces/default/configmaps');
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['settings']);
    expect(list.items[0]!.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('[API-META-002] a second create of the same name throws the whole 409 AlreadyExists Status', async () => {
    await client.create('/api/v1/namespaces/default/configmaps', configMap('twice'));
    const error = await failure(client.create('/api/v1/namespaces/default/configmaps', configMap('twice')));
    expect(error.code).toBe(409);
    expect(error.reason).toBe('AlreadyExists');
    expect(error.message).toBe('configmaps "twice" already exists');
    expect(error.status).toMatchObject({ kind: 'Status', status: 'Failure', details: { name: 'twice', kind: 'configmaps' } });
  });

  it('keeps the causes of a 422 Invalid, field by field', async () => {
    const error = await failure(client.create('/api/v1/namespaces/default/configmaps', configMap('Not_Valid')));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.status.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'metadata.name', reason: 'FieldValueInvalid' })]),
    );
  });

  it('throws NotFound for a missing object', async () => {
    const error = await failure(client.get('/api/v1/namespaces/default/configmaps/missing'));
    expect(error.code).toBe(404);
    expect(error.reason).toBe('NotFound');
  });

  it('turns an unreachable server into a ServiceUnavailable ApiError with code 0', async () => {
    const offline = createApiClient(() => Promise.reject(new TypeError('Failed to fetch')), 'http://kubesim.test');
    const error = await failure(offline.get('/api/v1/namespaces'));
    expect(error.code).toBe(0);
    expect(error.reason).toBe('ServiceUnavailable');
    expect(error.message).toContain('Failed to fetch');
  });
});

describe('statusFrom', () => {
  it('synthesises a Status from a body that is not one, as client-go does', async () => {
    const status = await statusFrom(new Response('<html>nope</html>', { status: 404 }));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
  });

  it('keeps a Status body as it is', async () => {
    const body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', message: 'no', code: 403 };
    expect(await statusFrom(new Response(JSON.stringify(body), { status: 403 }))).toEqual(body);
  });
});
