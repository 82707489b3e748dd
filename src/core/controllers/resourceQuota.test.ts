/** The resourcequota controller, driven through HTTP: status.hard mirrors spec.hard, status.used is recounted. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';

const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...extra } });
const getQuota = async (s: TestServer, name: string) => (await s.json('GET', `${ns}/resourcequotas/${name}`)).body;

describe('resourcequota-controller', () => {
  it('fills status.hard and status.used for a new quota, counting what the namespace holds', async () => {
    t = await newTestServer({ controllers: ['*', '-deployment-controller', '-replicaset-controller'] });
    const s = t;
    await eventually(() => s.json('GET', `${ns}/configmaps/kube-root-ca.crt`), (r) => r.status === 200, 'the root CA ConfigMap');
    await s.json('POST', `${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } } });
    const created = await s.json('POST', `${ns}/resourcequotas`, { body: quota('objects', { configmaps: '10', 'count/secrets': '5', services: '4', 'services.nodeports': '3', pods: '2', 'count/deployments.apps': '1' }) });
    expect(created.status).toBe(201);
    expect(created.body.status).toEqual({});
    const q = await eventually(() => getQuota(s, 'objects'), (x) => x.status?.used !== undefined, 'quota status');
    expect(q.status).toEqual({
      hard: { configmaps: '10', 'count/deployments.apps': '1', 'count/secrets': '5', pods: '2', services: '4', 'services.nodeports': '3' },
      // The bootstrap `kubernetes` Service lives in default.
      used: { configmaps: '1', 'count/deployments.apps': '0', 'count/secrets': '1', pods: '0', services: '1', 'services.nodeports': '0' },
    });
  });

  it('a spec change is mirrored; a delete gives back what it used', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', `${ns}/resourcequotas`, { body: quota('q', { 'count/configmaps': '3' }) });
    await eventually(() => getQuota(s, 'q'), (x) => x.status?.used?.['count/configmaps'] === '0', 'initial status');
    await s.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } });
    await eventually(() => getQuota(s, 'q'), (x) => x.status.used['count/configmaps'] === '1', 'charged');
    await s.json('PATCH', `${ns}/resourcequotas/q`, { body: { spec: { hard: { 'count/configmaps': '5', secrets: '1' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const q = await eventually(() => getQuota(s, 'q'), (x) => x.status.hard.secrets === '1' && x.status.used.secrets === '0', 'spec change mirrored');
    expect(q.status).toEqual({ hard: { 'count/configmaps': '5', secrets: '1' }, used: { 'count/configmaps': '1', secrets: '0' } });
    await s.json('DELETE', `${ns}/configmaps/a`);
    await eventually(() => getQuota(s, 'q'), (x) => x.status.used['count/configmaps'] === '0', 'replenished after delete');
  });

  it('the 5-minute resync (--resource-quota-sync-period) recounts what no event brought back', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', `${ns}/resourcequotas`, { body: quota('q', { 'count/configmaps': '3' }) });
    const q = await eventually(() => getQuota(s, 'q'), (x) => x.status?.used !== undefined, 'initial status');
    // A status write leaves the spec alone: no event asks for a recount.
    await s.json('PUT', `${ns}/resourcequotas/q/status`, { body: { ...q, status: { hard: q.status.hard, used: { 'count/configmaps': '2' } } } });
    expect((await getQuota(s, 'q')).status.used).toEqual({ 'count/configmaps': '2' });
    s.clock.advance(5 * 60_000);
    await eventually(() => getQuota(s, 'q'), (x) => x.status.used['count/configmaps'] === '0', 'recounted at resync');
  });
});
