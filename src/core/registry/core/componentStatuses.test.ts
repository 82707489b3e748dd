import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };

describe('componentstatuses', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.server.close();
    t = undefined;
  });

  it('lists controller-manager, scheduler and etcd-0 Healthy "ok" when the controllers and the simulated scheduler run', async () => {
    t = await newTestServer({ simulatedNodes: 1 });
    const { status, body, headers } = await t.json('GET', '/api/v1/componentstatuses');
    expect(status).toBe(200);
    expect(headers.get('warning')).toContain('v1 ComponentStatus is deprecated in v1.19+');
    expect(body).toEqual({
      kind: 'ComponentStatusList',
      apiVersion: 'v1',
      metadata: {},
      items: ['controller-manager', 'scheduler', 'etcd-0'].map((name) => ({
        kind: 'ComponentStatus',
        apiVersion: 'v1',
        metadata: { name, creationTimestamp: null },
        conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
      })),
    });
  });

  it('reports the scheduler Unhealthy with the refused probe as its message when no simulated nodes run', async () => {
    t = await newTestServer();
    const { status, body } = await t.json('GET', '/api/v1/componentstatuses/scheduler');
    expect(status).toBe(200);
    expect(body).toEqual({
      kind: 'ComponentStatus',
      apiVersion: 'v1',
      metadata: { name: 'scheduler', creationTimestamp: null },
      conditions: [{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused' }],
    });
  });

  it('reports the controller-manager Unhealthy when no controller runs', async () => {
    t = await newTestServer({ controllers: [] });
    const { body } = await t.json('GET', '/api/v1/componentstatuses/controller-manager');
    expect(body.conditions).toEqual([{ type: 'Healthy', status: 'False', message: 'Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused' }]);
  });

  it('answers an unknown component with a 500 "Component not found" and no reason', async () => {
    t = await newTestServer();
    const { status, body } = await t.json('GET', '/api/v1/componentstatuses/etcd-1');
    expect(status).toBe(500);
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', message: 'Component not found: etcd-1', code: 500 });
    expect(body.reason ?? '').toBe('');
  });

  it('serves get and list only: watch and writes are 405', async () => {
    t = await newTestServer();
    expect((await t.request('GET', '/api/v1/componentstatuses?watch=true')).status).toBe(405);
    expect((await t.request('DELETE', '/api/v1/componentstatuses/scheduler')).status).toBe(405);
    expect((await t.request('POST', '/api/v1/componentstatuses', { body: { metadata: { name: 'x' } } })).status).toBe(405);
  });

  it('filters by field selector, and a label selector selects none', async () => {
    t = await newTestServer();
    const byName = await t.json('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name%3Detcd-0');
    expect(byName.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['etcd-0']);
    const byLabel = await t.json('GET', '/api/v1/componentstatuses?labelSelector=a%3Db');
    expect(byLabel.body.items).toEqual([]);
  });

  it('prints the NAME STATUS MESSAGE ERROR Table kubectl shows', async () => {
    t = await newTestServer();
    const { body } = await t.json('GET', '/api/v1/componentstatuses', { headers: tableAccept });
    expect(body.kind).toBe('Table');
    expect(body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Status', 'Message', 'Error']);
    expect(body.rows.map((r: { cells: unknown[] }) => r.cells)).toEqual([
      ['controller-manager', 'Healthy', 'ok', ''],
      ['scheduler', 'Unhealthy', 'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused', ''],
      ['etcd-0', 'Healthy', 'ok', ''],
    ]);
    const one = await t.json('GET', '/api/v1/componentstatuses/etcd-0', { headers: tableAccept });
    expect(one.body.rows.map((r: { cells: unknown[] }) => r.cells)).toEqual([['etcd-0', 'Healthy', 'ok', '']]);
  });

  it('reports etcd-0 Unhealthy with the store error when the store does not answer', async () => {
    const { createMemoryStorage } = await import('../../storage/memory');
    const storage = createMemoryStorage();
    t = await newTestServer({ storage });
    const failing = storage as unknown as { currentRevision(): Promise<number> };
    failing.currentRevision = async () => {
      throw new Error('context deadline exceeded');
    };
    const { body } = await t.json('GET', '/api/v1/componentstatuses/etcd-0');
    expect(body.conditions).toEqual([{ type: 'Healthy', status: 'False', error: 'context deadline exceeded' }]);
  });
});
