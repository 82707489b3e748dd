/**
 * An apply starts from the object the previous apply of the same object
 * wrote, kept decoded beside its stored value (Store.update with
 * currentIntact). These tests drive chains of writes through handle() and
 * check that what the next write sees, and what every answer carries, is
 * exactly the stored object: writes of other kinds in between, a no-op
 * apply, deletion and re-creation under the same name.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
  await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
});

const DEPLOY = '/apis/apps/v1/namespaces/ns1/deployments';
const CM = '/api/v1/namespaces/ns1/configmaps';

const deployment = (image: string, replicas?: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd1', labels: { app: 'd1' } },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: { matchLabels: { app: 'd1' } },
    template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image, env: [{ name: 'A', value: image }] }] } },
  },
});

async function apply(path: string, body: unknown, manager: string, force = false, accept?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/apply-patch+yaml' };
  if (accept) headers['accept'] = accept;
  return t.request('PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, { body: JSON.stringify(body), headers });
}

async function getText(path: string): Promise<string> {
  const res = await t.request('GET', path);
  expect(res.status).toBe(200);
  return res.text();
}

describe('apply after apply', () => {
  it('[API-SSA-003] each answer of a chain of applies is the stored object, byte for byte, and ownership follows the writers', async () => {
    expect((await apply(`${DEPLOY}/d1`, deployment('nginx:1'), 'alice')).status).toBe(201);
    let previousRv = '';
    for (const [i, manager] of ['bob', 'alice', 'bob'].entries()) {
      t.clock.advance(1000);
      const res = await apply(`${DEPLOY}/d1`, deployment(`nginx:${i + 2}`), manager, true);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toBe(await getText(`${DEPLOY}/d1`));
      const body = JSON.parse(text);
      expect(body.metadata.resourceVersion).not.toBe(previousRv);
      previousRv = body.metadata.resourceVersion;
      expect(body.spec.template.spec.containers[0].image).toBe(`nginx:${i + 2}`);
      // Apply entries are sorted by time: the writer of this apply comes last.
      const owners = body.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`);
      expect(owners).toEqual([manager === 'alice' ? 'bob/Apply' : 'alice/Apply', `${manager}/Apply`]);
      // The writer of this apply owns the image; the other one lost it to the force.
      const owns = (m: string) => JSON.stringify(body.metadata.managedFields.find((e: { manager: string }) => e.manager === m).fieldsV1).includes('"f:image"');
      expect(owns(manager)).toBe(true);
      expect(owns(manager === 'alice' ? 'bob' : 'alice')).toBe(false);
    }
  });

  it('[API-SSA-003] an apply that changes nothing keeps the resourceVersion and answers the stored object, in JSON and in YAML', async () => {
    await apply(`${DEPLOY}/d1`, deployment('nginx:1'), 'alice');
    const second = await apply(`${DEPLOY}/d1`, deployment('nginx:2'), 'alice');
    const written = await second.text();
    t.clock.advance(1000);
    const again = await apply(`${DEPLOY}/d1`, deployment('nginx:2'), 'alice');
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(written);
    expect(await getText(`${DEPLOY}/d1`)).toBe(written);
    const yaml = await apply(`${DEPLOY}/d1`, deployment('nginx:2'), 'alice', false, 'application/yaml');
    expect(yaml.status).toBe(200);
    const text = await yaml.text();
    expect(text).toContain(`resourceVersion: "${JSON.parse(written).metadata.resourceVersion}"`);
    expect(text).toContain('image: nginx:2');
  });

  it('[API-SSA-051] an apply after a PUT and after a merge patch starts from what they wrote', async () => {
    await apply(`${DEPLOY}/d1`, deployment('nginx:1'), 'alice');
    await apply(`${DEPLOY}/d1`, deployment('nginx:2'), 'alice');
    const live = JSON.parse(await getText(`${DEPLOY}/d1`));
    live.metadata.annotations = { put: 'yes' };
    const put = await t.json('PUT', `${DEPLOY}/d1?fieldManager=editor`, { body: live });
    expect(put.status).toBe(200);
    const applied = await apply(`${DEPLOY}/d1`, deployment('nginx:3'), 'alice');
    const afterPut = JSON.parse(await applied.text());
    expect(afterPut.metadata.annotations).toEqual({ put: 'yes' });
    expect(afterPut.spec.template.spec.containers[0].image).toBe('nginx:3');
    expect(afterPut.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['alice', 'editor']);

    const merge = await t.request('PATCH', `${DEPLOY}/d1?fieldManager=scaler`, {
      body: JSON.stringify({ spec: { replicas: 4 } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(merge.status).toBe(200);
    const last = JSON.parse(await (await apply(`${DEPLOY}/d1`, deployment('nginx:4'), 'alice')).text());
    expect(last.spec.replicas).toBe(4);
    expect(last.metadata.annotations).toEqual({ put: 'yes' });
    expect(last.spec.template.spec.containers[0].image).toBe('nginx:4');
    expect(JSON.stringify(last) + '\n').toBe(await getText(`${DEPLOY}/d1`));
  });

  it('[API-SSA-003] an object deleted and created again under the same name is applied onto as the new object', async () => {
    await apply(`${CM}/c1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } }, 'alice');
    await apply(`${CM}/c1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '2' } }, 'alice');
    expect((await t.json('DELETE', `${CM}/c1`)).status).toBe(200);
    const created = await t.json('POST', `${CM}?fieldManager=maker`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { b: '1' } } });
    expect(created.status).toBe(201);
    const res = await apply(`${CM}/c1`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '3' } }, 'alice');
    expect(res.status).toBe(200);
    const body = JSON.parse(await res.text());
    expect(body.metadata.uid).toBe(created.body.metadata.uid);
    expect(body.data).toEqual({ a: '3', b: '1' });
    expect(body.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`)).toEqual(['alice/Apply', 'maker/Update']);
  });
});
