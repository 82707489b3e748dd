import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const cms = '/api/v1/namespaces/default/configmaps';
const deploys = '/apis/apps/v1/namespaces/default/deployments';
const deployment = (name: string, image = 'nginx:1.27') => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } },
});

async function createCm(name: string, extra: Record<string, unknown> = {}) {
  const r = await t.json('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: '1' } } });
  expect(r.status).toBe(201);
  return r.body;
}

describe('server-owned metadata on update (rest.BeforeUpdate)', () => {
  it.each(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00+00:00', '1999-05-05T05:05:05Z'])(
    'API-META-016: a PUT carrying creationTimestamp %s keeps the stored one (no "field is immutable")',
    async (ts) => {
      const cm = await createCm('c1');
      t.clock.advance(60_000);
      cm.metadata.creationTimestamp = ts;
      cm.data = { a: '2' };
      const r = await t.json('PUT', `${cms}/c1`, { body: cm });
      expect(r.status).toBe(200);
      expect(r.body.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
      expect(r.body.data).toEqual({ a: '2' });
    },
  );

  it('API-META-016: merge and strategic patches and apply that set creationTimestamp keep the stored one', async () => {
    await createCm('c1');
    for (const [type, body] of [
      ['application/merge-patch+json', { metadata: { creationTimestamp: '2000-01-01T00:00:00.000Z' } }],
      ['application/strategic-merge-patch+json', { metadata: { creationTimestamp: '2000-01-01T00:00:00+00:00' } }],
    ] as const) {
      const r = await t.json('PATCH', `${cms}/c1`, { body: JSON.stringify(body), headers: { 'content-type': type } });
      expect(r.status).toBe(200);
      expect(r.body.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
    }
    const apply = await t.json('PATCH', `${cms}/c1?fieldManager=m`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', creationTimestamp: '2000-01-01T00:00:00Z' }, data: { a: '1' } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(200);
    expect(apply.body.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
  });

  it('API-ERR-002: a PUT without uid keeps the stored uid; a PUT with another uid fails its uid precondition (409)', async () => {
    const cm = await createCm('c1');
    const uid = cm.metadata.uid;
    delete cm.metadata.uid;
    const r = await t.json('PUT', `${cms}/c1`, { body: cm });
    expect(r.status).toBe(200);
    expect(r.body.metadata.uid).toBe(uid);
    r.body.metadata.uid = 'a-different-uid';
    const bad = await t.json('PUT', `${cms}/c1`, { body: r.body });
    expect(bad.status).toBe(409);
    expect(bad.body).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on configmaps "c1": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/c1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: a-different-uid, UID in object meta: ${uid}`,
    });
  });

  it('a patch that changes uid is refused as immutable (422)', async () => {
    await createCm('c1');
    const bad = await t.json('PATCH', `${cms}/c1`, { body: JSON.stringify({ metadata: { uid: 'a-different-uid' } }), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('ConfigMap "c1" is invalid: metadata.uid: Invalid value: "a-different-uid": field is immutable');
    expect(bad.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "a-different-uid": field is immutable', field: 'metadata.uid' }]);
  });

  it('a PUT cannot start a deletion: deletionTimestamp on a live object is immutable', async () => {
    const cm = await createCm('c1');
    cm.metadata.deletionTimestamp = '2026-01-01T00:00:10Z';
    const r = await t.json('PUT', `${cms}/c1`, { body: cm });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('ConfigMap "c1" is invalid: metadata.deletionTimestamp: Invalid value: 2026-01-01 00:00:10 +0000 UTC: field is immutable');
  });

  it('API-DEL-004: a PUT of an object being deleted keeps deletionTimestamp and deletionGracePeriodSeconds whatever it sends', async () => {
    await createCm('c1', { finalizers: ['example.com/hold'] });
    t.clock.advance(5000);
    const del = await t.json('DELETE', `${cms}/c1`);
    expect(del.status).toBe(200);
    const live = (await t.json('GET', `${cms}/c1`)).body;
    expect(live.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
    const sent = structuredClone(live);
    delete sent.metadata.deletionTimestamp;
    delete sent.metadata.deletionGracePeriodSeconds;
    sent.data = { a: 'changed' };
    const r = await t.json('PUT', `${cms}/c1`, { body: sent });
    expect(r.status).toBe(200);
    expect(r.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
    expect(r.body.metadata.deletionGracePeriodSeconds).toBe(live.metadata.deletionGracePeriodSeconds);
    const moved = structuredClone(r.body);
    moved.metadata.deletionTimestamp = '2030-01-01T00:00:00.000Z';
    const again = await t.json('PUT', `${cms}/c1`, { body: moved });
    expect(again.status).toBe(200);
    expect(again.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:05Z');
    const grace = structuredClone(again.body);
    grace.metadata.deletionGracePeriodSeconds = 30;
    const bad = await t.json('PUT', `${cms}/c1`, { body: grace });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: 30: field is immutable', field: 'metadata.deletionGracePeriodSeconds' }]);
  });

  it('generation: what the client sends is ignored; a spec change bumps it, a metadata-only change does not', async () => {
    const d = (await t.json('POST', deploys, { body: deployment('d1') })).body;
    expect(d.metadata.generation).toBe(1);
    d.metadata.generation = 42;
    d.metadata.labels = { x: 'y' };
    const meta = await t.json('PUT', `${deploys}/d1`, { body: d });
    expect(meta.status).toBe(200);
    expect(meta.body.metadata.generation).toBe(1);
    meta.body.metadata.generation = 0;
    meta.body.spec.template.spec.containers[0].image = 'nginx:1.28';
    const spec = await t.json('PUT', `${deploys}/d1`, { body: meta.body });
    expect(spec.body.metadata.generation).toBe(2);
  });

  it('a cluster-scoped object sent with a namespace is written without one', async () => {
    const ns = (await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } } })).body;
    ns.metadata.namespace = 'default';
    ns.metadata.creationTimestamp = '2026-01-01T00:00:00.000Z';
    ns.metadata.labels = { ...ns.metadata.labels, team: 'a' };
    const r = await t.json('PUT', '/api/v1/namespaces/n1', { body: ns });
    expect(r.status).toBe(200);
    expect(r.body.metadata.namespace).toBeUndefined();
    expect(r.body.metadata.labels.team).toBe('a');
  });
});
