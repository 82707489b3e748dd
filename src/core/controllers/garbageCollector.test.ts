import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../api/types';
import { Store } from '../registry/generic/store';
import { registryBundle } from '../registry/generated';
import { ResourceRegistry } from '../registry/registry';
import { strategyFor } from '../registry/strategies';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import { createMemoryStorage } from '../storage/memory';
import { newTestServer, type TestServer } from '../testing/client';
import { FakeClock, seededRandom, type Clock } from '../util/clock';
import { startGarbageCollector } from './garbageCollector';

let t: TestServer;
/** Registry stores over a bare storage, for collectors started without a server (no schemas: no field managers needed here). */
function storesOver(storage: Storage, clock: Clock): (type: ResourceType) => Store {
  const stores = new Map<string, Store>();
  return (type) => {
    const key = `${type.group}/${type.version}/${type.resource}`;
    let store = stores.get(key);
    if (!store) {
      store = new Store(type, strategyFor(type), { storage, clock, random: seededRandom(7), checkNamespace: async () => {} });
      stores.set(key, store);
    }
    return store;
  };
}

// createApiServer starts the collector; these tests drive it through HTTP.
beforeEach(async () => {
  t = await newTestServer();
});

afterEach(async () => {
  await t.server.close();
});

const cms = (ns = 'default') => `/api/v1/namespaces/${ns}/configmaps`;
const deployments = '/apis/apps/v1/namespaces/default/deployments';

function ref(owner: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>, extraFields: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, ...extraFields };
}

async function createCm(name: string, meta: Record<string, unknown> = {}, ns = 'default') {
  const r = await t.json('POST', cms(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { a: '1' } } });
  expect(r.status).toBe(201);
  return r.body;
}

async function createDeployment(name: string) {
  const labels = { app: name };
  const r = await t.json('POST', deployments, {
    body: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    },
  });
  expect(r.status).toBe(201);
  return r.body;
}

async function status(path: string): Promise<number> {
  return (await t.request('GET', path)).status;
}

/** Polls with short real waits: the collector runs on watch events, not on the clock. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Gives queued collector work a chance to run (used before asserting that something did NOT happen). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
}

const gone = (path: string) => eventually(async () => (await status(path)) === 404, `${path} to be deleted`);

describe('garbage collector', () => {
  it('[API-DEL-009] Background: a ConfigMap owned by a Deployment is deleted after the Deployment', async () => {
    const d = await createDeployment('web');
    await createCm('web-config', { ownerReferences: [ref(d, { controller: true, blockOwnerDeletion: true })] });
    const del = await t.json('DELETE', `${deployments}/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(del.status).toBe(200);
    // The owner is removed at once; its dependent afterwards.
    expect(await status(`${deployments}/web`)).toBe(404);
    await gone(`${cms()}/web-config`);
  });

  it('a delete without options collects dependents too (Background is the default for apps/v1)', async () => {
    const d = await createDeployment('api');
    await createCm('api-config', { ownerReferences: [ref(d)] });
    await createCm('unrelated');
    expect((await t.request('DELETE', `${deployments}/api`)).status).toBe(200);
    await gone(`${cms()}/api-config`);
    expect(await status(`${cms()}/unrelated`)).toBe(200);
  });

  it('collection is recursive: dependents of collected dependents go as well', async () => {
    const root = await createCm('root');
    const mid = await createCm('mid', { ownerReferences: [ref(root)] });
    await createCm('leaf', { ownerReferences: [ref(mid)] });
    expect((await t.request('DELETE', `${cms()}/root`)).status).toBe(200);
    await gone(`${cms()}/mid`);
    await gone(`${cms()}/leaf`);
  });

  it('[API-DEL-009] Foreground: the owner stays Terminating with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await createCm('owner');
    await createCm('blocker', { ownerReferences: [ref(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    await createCm('free', { ownerReferences: [ref(owner)] });
    const del = await t.json('DELETE', `${cms()}/owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    expect(del.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(del.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');

    // Both dependents are deleted; the blocking one is held by its own finalizer.
    await gone(`${cms()}/free`);
    await eventually(async () => (await t.json('GET', `${cms()}/blocker`)).body.metadata.deletionTimestamp !== undefined, 'blocker to be Terminating');
    await settle();
    const held = await t.json('GET', `${cms()}/owner`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(held.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');

    // Releasing the blocker lets it go, and then the owner.
    const blocker = (await t.json('GET', `${cms()}/blocker`)).body;
    const put = await t.json('PUT', `${cms()}/blocker`, { body: { ...blocker, metadata: { ...blocker.metadata, finalizers: [] } } });
    expect(put.status).toBe(200);
    await gone(`${cms()}/blocker`);
    await gone(`${cms()}/owner`);
  });

  it('Foreground: an owner whose dependents do not block disappears once they are deleted', async () => {
    const owner = await createCm('owner');
    await createCm('dep', { ownerReferences: [ref(owner)] });
    await t.json('DELETE', `${cms()}/owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    await gone(`${cms()}/owner`);
    await gone(`${cms()}/dep`);
  });

  it('Foreground: an owner without dependents loses its finalizer and disappears', async () => {
    await createCm('lonely');
    const del = await t.json('DELETE', `${cms()}/lonely`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    expect(del.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await gone(`${cms()}/lonely`);
  });

  it('Foreground propagates: a dependent with its own dependents is deleted in the foreground too', async () => {
    const a = await createCm('a');
    const b = await createCm('b', { ownerReferences: [ref(a, { blockOwnerDeletion: true })] });
    await createCm('c', { ownerReferences: [ref(b, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    await t.json('DELETE', `${cms()}/a`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    await eventually(async () => (await t.json('GET', `${cms()}/c`)).body.metadata.deletionTimestamp !== undefined, 'c to be Terminating');
    const mid = await t.json('GET', `${cms()}/b`);
    expect(mid.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(mid.body.metadata.deletionTimestamp).toBeDefined();
    expect(await status(`${cms()}/a`)).toBe(200);

    const c = (await t.json('GET', `${cms()}/c`)).body;
    await t.json('PUT', `${cms()}/c`, { body: { ...c, metadata: { ...c.metadata, finalizers: [] } } });
    await gone(`${cms()}/b`);
    await gone(`${cms()}/a`);
  });

  it('[API-DEL-009] Orphan: dependents lose the ownerReference and stay; the owner disappears', async () => {
    const d = await createDeployment('web');
    const other = await createCm('other-owner');
    await createCm('only', { ownerReferences: [ref(d, { controller: true, blockOwnerDeletion: true })] });
    await createCm('shared', { ownerReferences: [ref(d), ref(other)] });
    const del = await t.json('DELETE', `${deployments}/web`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['orphan']);
    await gone(`${deployments}/web`);

    const only = await t.json('GET', `${cms()}/only`);
    expect(only.status).toBe(200);
    expect(only.body.metadata.ownerReferences).toBeUndefined();
    const shared = await t.json('GET', `${cms()}/shared`);
    expect(shared.status).toBe(200);
    expect(shared.body.metadata.ownerReferences).toEqual([ref(other)]);
    await settle();
    expect(await status(`${cms()}/only`)).toBe(200);
  });

  it('[API-DEL-007] orphanDependents=true orphans the dependents', async () => {
    const owner = await createCm('owner');
    await createCm('dep', { ownerReferences: [ref(owner)] });
    const del = await t.json('DELETE', `${cms()}/owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true } });
    expect(del.body.metadata.finalizers).toEqual(['orphan']);
    await gone(`${cms()}/owner`);
    const dep = await t.json('GET', `${cms()}/dep`);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });

  it('Orphan keeps other finalizers: the owner stays Terminating with them', async () => {
    const owner = await createCm('owner', { finalizers: ['example.com/hold'] });
    await createCm('dep', { ownerReferences: [ref(owner)] });
    await t.json('DELETE', `${cms()}/owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
    await eventually(async () => (await t.json('GET', `${cms()}/owner`)).body.metadata.finalizers?.length === 1, 'orphan finalizer removal');
    const o = await t.json('GET', `${cms()}/owner`);
    expect(o.body.metadata.finalizers).toEqual(['example.com/hold']);
    expect((await t.json('GET', `${cms()}/dep`)).body.metadata.ownerReferences).toBeUndefined();
  });

  it('a dependent with two owners survives until both are gone', async () => {
    const o1 = await createCm('o1');
    const o2 = await createCm('o2');
    await createCm('dep', { ownerReferences: [ref(o1), ref(o2)] });
    expect((await t.request('DELETE', `${cms()}/o1`)).status).toBe(200);
    // The reference to the owner that is gone is dropped; the dependent stays.
    await eventually(async () => (await t.json('GET', `${cms()}/dep`)).body.metadata.ownerReferences?.length === 1, 'dangling reference removal');
    const dep = await t.json('GET', `${cms()}/dep`);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toEqual([ref(o2)]);
    expect(dep.body.metadata.deletionTimestamp).toBeUndefined();

    expect((await t.request('DELETE', `${cms()}/o2`)).status).toBe(200);
    await gone(`${cms()}/dep`);
  });

  it('a dangling ownerReference (no object with that uid) gets the dependent collected', async () => {
    await createCm('orphaned', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-4000-8000-000000000000' }] });
    await gone(`${cms()}/orphaned`);
  });

  it('an owner with the right name but another uid is dangling too', async () => {
    const first = await createCm('owner');
    await t.request('DELETE', `${cms()}/owner`);
    await createCm('owner');
    await createCm('dep', { ownerReferences: [ref(first)] });
    await gone(`${cms()}/dep`);
    expect(await status(`${cms()}/owner`)).toBe(200);
  });

  it('a namespaced owner is looked for in the dependent namespace only', async () => {
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } });
    const owner = await createCm('owner');
    await createCm('cross', { ownerReferences: [ref(owner)] }, 'other');
    await gone(`${cms('other')}/cross`);
    expect(await status(`${cms()}/owner`)).toBe(200);
  });

  it('a cluster-scoped dependent of a namespaced owner kind is left alone', async () => {
    const owner = await createCm('owner');
    const cr = await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'owned-by-cm', ownerReferences: [ref(owner)] }, rules: [] },
    });
    expect(cr.status).toBe(201);
    expect((await t.request('DELETE', `${cms()}/owner`)).status).toBe(200);
    // A sentinel collected after the delete shows the collector has run.
    await createCm('sentinel', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-4000-8000-000000000001' }] });
    await gone(`${cms()}/sentinel`);
    await settle();
    expect(await status('/apis/rbac.authorization.k8s.io/v1/clusterroles/owned-by-cm')).toBe(200);
  });

  it('a cluster-scoped owner can own namespaced dependents', async () => {
    const ns = await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } });
    expect(ns.status).toBe(201);
    const cr = await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'owner' }, rules: [] } });
    await createCm('dep', { ownerReferences: [ref(cr.body)] });
    await settle();
    expect(await status(`${cms()}/dep`)).toBe(200);
    expect((await t.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/owner')).status).toBe(200);
    await gone(`${cms()}/dep`);
  });

  it('an ownerReference of an unknown kind keeps the dependent', async () => {
    await createCm('unknown', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-4000-8000-000000000002' }] });
    await createCm('sentinel', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-4000-8000-000000000003' }] });
    await gone(`${cms()}/sentinel`);
    await settle();
    expect(await status(`${cms()}/unknown`)).toBe(200);
  });

  it('an owner held Terminating by other finalizers still owns its dependents', async () => {
    const owner = await createCm('owner', { finalizers: ['example.com/hold'] });
    await t.json('DELETE', `${cms()}/owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    await eventually(async () => (await t.json('GET', `${cms()}/owner`)).body.metadata.finalizers?.length === 1, 'foregroundDeletion removal');
    expect((await t.json('GET', `${cms()}/owner`)).body.metadata.finalizers).toEqual(['example.com/hold']);
    await createCm('late', { ownerReferences: [ref(owner)] });
    await createCm('sentinel', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-4000-8000-000000000004' }] });
    await gone(`${cms()}/sentinel`);
    await settle();
    expect(await status(`${cms()}/late`)).toBe(200);
  });
});

describe('garbage collector lifecycle (over storage, without a server)', () => {
  const cm = (name: string, meta: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } });
  const ghost = (n: number): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: `00000000-0000-4000-8000-00000000010${n}` });

  function setup() {
    const storage = createMemoryStorage();
    const clock = new FakeClock();
    const registry = new ResourceRegistry(registryBundle);
    const storeFor = storesOver(storage, clock);
    const configmaps = storeFor(registry.resourceFor('', 'v1', 'configmaps')!);
    return { deps: { storage, registry, clock, storeFor }, configmaps };
  }

  it('picks up work left from before it started: dangling dependents and owners mid-deletion', async () => {
    const { deps, configmaps } = setup();
    await configmaps.create('default', cm('dangling', { ownerReferences: [ghost(1)] }));
    const owner = await configmaps.create('default', cm('owner'));
    await configmaps.create('default', cm('dep', { ownerReferences: [ref(owner)] }));
    await configmaps.delete('default', 'owner', { propagationPolicy: 'Orphan' });
    const gc = startGarbageCollector(deps);
    try {
      await eventually(async () => !(await configmaps.getKv('default', 'dangling')), 'dangling dependent collection');
      await eventually(async () => !(await configmaps.getKv('default', 'owner')), 'orphaning owner removal');
      const dep = await configmaps.get('default', 'dep');
      expect(dep.metadata.ownerReferences).toBeUndefined();
    } finally {
      gc.stop();
    }
  });

  it('a stopped collector acts on nothing more', async () => {
    const { deps, configmaps } = setup();
    const gc = startGarbageCollector(deps);
    await configmaps.create('default', cm('before', { ownerReferences: [ghost(2)] }));
    await eventually(async () => !(await configmaps.getKv('default', 'before')), 'collection while running');
    gc.stop();
    expect(() => gc.stop()).not.toThrow();
    await configmaps.create('default', cm('after', { ownerReferences: [ghost(3)] }));
    await settle();
    expect(await configmaps.getKv('default', 'after')).toBeDefined();
  });
});
