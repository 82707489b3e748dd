/**
 * ApiServerOptions.scheduleControllers: the host decides when
 * kube-controller-manager's controllers start (the service worker: after its
 * first answer, src/sw/afterFirstAnswer.ts). The service account controller
 * starts before `ready` all the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
};

async function replicaSets(s: TestServer, atLeast: number): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const n = (await s.json('GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items.length as number;
    if (n >= atLeast) return n;
    await new Promise((r) => setTimeout(r, 2));
  }
  return (await s.json('GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items.length as number;
}

describe('scheduleControllers', () => {
  it('starts the controller manager when the host calls start; default ServiceAccounts exist before ready', async () => {
    const starts: (() => void)[] = [];
    t = await newTestServer({ controllers: ['*'], scheduleControllers: (start) => starts.push(start) });
    expect(starts).toHaveLength(1);
    expect((await t.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status).toBe(200);

    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status).toBe(201);
    // No deployment controller yet: a short wait sees no ReplicaSet.
    await new Promise((r) => setTimeout(r, 20));
    expect((await t.json('GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items).toEqual([]);

    starts[0]!();
    expect(await replicaSets(t, 1)).toBe(1);
  });
});
