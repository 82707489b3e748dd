import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../core';
import { rawApiControllers } from '../../core/testing/client';
import { ApiError, createApiClient, isApiError, ResponseDecodeError, statusFrom, type ApiClient } from './client';
import { BAD_PREFIX_MESSAGE, isProtobufResponse } from './protobufGuard';
import { WatchError, watchCollection } from './watch';
import type { KubeList } from './types';

let server: ApiServer;
let client: ApiClient;

beforeEach(async () => {
  server = createApiServer({ storage: createMemoryStorage(), clock: new FakeClock(), random: seededRandom(7), controllers: rawApiControllers });
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

describe('[API-ENC-009] a protobuf body without the k8s\\0 prefix is rejected', () => {
  const PB = 'application/vnd.kubernetes.protobuf';
  /** A server (or proxy) that answers every request with these bytes labelled protobuf. */
  const answering = (status: number, bytes: number[]) =>
    createApiClient(async () => new Response(new Uint8Array(bytes), { status, headers: { 'Content-Type': PB } }), 'http://kubesim.test');

  it('a get whose body starts 00 00 00 00 fails with the prefix error, never parsed', async () => {
    const error = await failure(answering(200, [0, 0, 0, 0, 0x0a, 0x00]).get('/api/v1/namespaces/default/configmaps/x'));
    expect(error).toBeInstanceOf(ResponseDecodeError);
    expect(error.message).toBe(BAD_PREFIX_MESSAGE);
    expect(BAD_PREFIX_MESSAGE).toBe('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    expect(error.code).toBe(200);
  });

  it('writes and failed requests too; an enveloped body this JSON client cannot read is reported as such', async () => {
    const write = await failure(answering(201, [1, 2, 3, 4]).write('create', '/api/v1/namespaces/default/configmaps', configMap('x')));
    expect(write.message).toBe(BAD_PREFIX_MESSAGE);
    const status = await statusFrom(new Response(new Uint8Array([0, 0, 0, 0]), { status: 500, headers: { 'Content-Type': PB } }));
    expect(status).toMatchObject({ code: 500, reason: 'InternalError', message: BAD_PREFIX_MESSAGE });
    const enveloped = await failure(answering(200, [0x6b, 0x38, 0x73, 0x00, 0x0a, 0x00]).get('/api/v1/namespaces/default/configmaps/x'));
    expect(enveloped.message).toBe('the server answered application/vnd.kubernetes.protobuf to a request for application/json');
  });

  it('a watch answered in protobuf without the prefix ends with a WatchError', async () => {
    const events: unknown[] = [];
    const error = await watchCollection(answering(200, [0, 0, 0, 0]), '/api/v1/namespaces/default/configmaps', '1', '', (e) => events.push(e), new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WatchError);
    expect((error as WatchError).message).toBe(BAD_PREFIX_MESSAGE);
    expect(events).toEqual([]);
  });

  it('the real server never answers this client in protobuf: it asks for JSON', async () => {
    await client.create('/api/v1/namespaces/default/configmaps', configMap('plain'));
    const response = await client.fetch('/api/v1/namespaces/default/configmaps/plain', { headers: { Accept: 'application/json' } });
    expect(isProtobufResponse(response)).toBe(false);
  });
});
