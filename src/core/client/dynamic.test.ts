/** The in-process dynamic client against a whole server: each verb, its options, and kube's answers as a client sees them. */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import type { KubeList, KubeObject } from '../api/types';
import { authorizerFromModes } from '../auth/authorizer/modes';
import { StatusError, type Status } from '../errors';
import { newTestServer, type TestServer } from '../testing/client';
import { createClient, type ResourceInterface } from './dynamic';
import { PatchType } from './options';
import type { WatchEvent } from './watch';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const cm = (name: string, data: Record<string, string> = { k: 'v' }, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data });

/** A server with --token-auth-file users and RBAC: admin is in system:masters, jane has no bindings. */
async function rbacServer(): Promise<TestServer> {
  return newTestServer({
    authentication: {
      tokenFile: [
        { token: 'admin-token', user: { username: 'admin', uid: '1', groups: ['system:masters'] } },
        { token: 'jane-token', user: { username: 'jane', uid: '2', groups: [] } },
      ],
    },
    authorizer: authorizerFromModes(['RBAC']),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function failure(promise: Promise<unknown>): Promise<Status> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return (err as StatusError).status;
}

async function defaultConfigMaps(): Promise<{ t: TestServer; cms: ResourceInterface }> {
  const t = await newTestServer();
  return { t, cms: createClient(t.server).resource(configmaps).namespace('default') };
}

describe('dynamic client', () => {
  it('[API-META-002][API-PATH-006] create answers the stored object; a second create is 409 AlreadyExists, a get after delete 404 NotFound', async () => {
    const { cms } = await defaultConfigMaps();
    const created = await cms.create(cm('a'));
    expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } });
    expect(typeof created.metadata.resourceVersion).toBe('string');
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    // The default field manager is the User-Agent's product name, as kube-apiserver derives it.
    expect(created.metadata.managedFields?.[0]).toMatchObject({ manager: 'kubesim-client', operation: 'Update' });

    expect(await failure(cms.create(cm('a')))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'AlreadyExists',
      message: 'configmaps "a" already exists', details: { name: 'a', kind: 'configmaps' },
    });

    // An object deleted at once is answered with a Success Status, as kube-apiserver answers.
    expect(await cms.delete('a')).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'a', kind: 'configmaps', uid: created.metadata.uid } });
    expect(await failure(cms.get('a'))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound',
      message: 'configmaps "a" not found', details: { name: 'a', kind: 'configmaps' },
    });
  });

  it('[API-META-015][API-ERR-002][API-PATH-039] update moves the resourceVersion; an update from a stale one is 409 Conflict', async () => {
    const { cms } = await defaultConfigMaps();
    const created = await cms.create(cm('a'));
    const updated = await cms.update({ ...created, data: { k: 'w' } });
    expect(updated.data).toEqual({ k: 'w' });
    expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    expect((await cms.get('a')).metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    const stale = await failure(cms.update({ ...created, data: { k: 'x' } }));
    expect([stale.code, stale.reason, stale.message]).toEqual([409, 'Conflict', 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again']);
  });

  it('the caller gets its own objects: changing what it sent or got changes nothing on the server', async () => {
    const { cms } = await defaultConfigMaps();
    const body = cm('a');
    const created = await cms.create(body);
    expect(body).toEqual(cm('a'));
    created.data = { k: 'changed' };
    (await cms.get('a')).data = { k: 'changed too' };
    expect((await cms.get('a')).data).toEqual({ k: 'v' });
  });

  it('[API-DRY-001][API-DRY-007][API-DEL-005] dryRun create answers the defaulted object and stores nothing; dryRun delete keeps the object', async () => {
    const { cms } = await defaultConfigMaps();
    const dry = await cms.create(cm('a'), { dryRun: ['All'] });
    expect(dry.metadata).toMatchObject({ name: 'a', namespace: 'default' });
    expect((await failure(cms.get('a'))).code).toBe(404);
    await cms.create(cm('b'));
    await cms.delete('b', { dryRun: ['All'] });
    expect((await cms.get('b')).metadata.name).toBe('b');
  });

  it('[API-DEL-008] delete preconditions: a wrong uid is 409 Conflict; propagation policy and deleteCollection by label selector', async () => {
    const { cms } = await defaultConfigMaps();
    const a = await cms.create(cm('a', { k: 'v' }, { app: 'x' }));
    await cms.create(cm('b', { k: 'v' }, { app: 'x' }));
    await cms.create(cm('c', { k: 'v' }, { app: 'y' }));
    const wrong = await failure(cms.delete('a', { preconditions: { uid: 'wrong' } }));
    expect([wrong.code, wrong.reason, wrong.message]).toEqual([409, 'Conflict', `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: wrong, UID in object meta: ${a.metadata.uid}`]);
    await cms.delete('a', { preconditions: { uid: a.metadata.uid }, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 });
    await cms.deleteCollection({}, { labelSelector: 'app=x' });
    expect((await cms.list()).items.map((i) => i.metadata.name)).toEqual(['c']);
  });

  it('[API-LIST-002][API-LIST-006][API-LIST-017][API-LIST-005] list in chunks with limit and continue, by label and field selector', async () => {
    const { cms } = await defaultConfigMaps();
    for (const name of ['a', 'b', 'c']) await cms.create(cm(name, { k: name }, { tier: name === 'b' ? 'back' : 'front' }));
    const first = await cms.list({ limit: 2 });
    expect(first).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(first.metadata.continue).toBeTruthy();
    const rest = await cms.list({ limit: 2, continue: first.metadata.continue });
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['c']);
    expect(rest.metadata.continue).toBeFalsy();
    expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect((await cms.list({ labelSelector: 'tier=front' })).items.map((i) => i.metadata.name)).toEqual(['a', 'c']);
    expect((await cms.list({ fieldSelector: 'metadata.name=b' })).items.map((i) => i.metadata.name)).toEqual(['b']);
    const invalid = await failure(cms.list({ resourceVersionMatch: 'Exact' }));
    expect([invalid.code, invalid.reason]).toEqual([422, 'Invalid']);
  });

  it('[API-PATCH-014][API-SSA-049] patch of each type, and server-side apply by a field manager with its conflicts and force', async () => {
    const { cms } = await defaultConfigMaps();
    await cms.create(cm('a'));
    expect((await cms.patch('a', PatchType.Merge, { data: { m: '1' } })).data).toEqual({ k: 'v', m: '1' });
    expect((await cms.patch('a', PatchType.StrategicMerge, '{"data":{"s":"2"}}')).data).toEqual({ k: 'v', m: '1', s: '2' });
    expect((await cms.patch('a', PatchType.JSON, [{ op: 'remove', path: '/data/m' }])).data).toEqual({ k: 'v', s: '2' });

    const applied = await cms.apply('b', cm('b', { owned: 'one' }), { fieldManager: 'first' });
    expect(applied.metadata.managedFields?.map((f) => [f.manager, f.operation])).toEqual([['first', 'Apply']]);
    const conflict = await failure(cms.apply('b', cm('b', { owned: 'two' }), { fieldManager: 'second' }));
    expect([conflict.code, conflict.reason, conflict.message]).toEqual([409, 'Conflict', 'Apply failed with 1 conflict: conflict with "first": .data.owned']);
    expect(conflict.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.owned' }]);
    const forced = await cms.apply('b', cm('b', { owned: 'two' }), { fieldManager: 'second', force: true });
    expect(forced.data).toEqual({ owned: 'two' });
    expect(forced.metadata.managedFields?.map((f) => f.manager)).toEqual(['second']);
  });

  it('update and apply of the status subresource', async () => {
    const t = await newTestServer();
    const client = createClient(t.server);
    const namespaces = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    const ns = await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    expect(ns.status).toEqual({ phase: 'Active' });
    const deployments = client.resource({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('team');
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    const d = await deployments.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
    const withStatus = await deployments.updateStatus({ ...d, status: { observedGeneration: 1, replicas: 3 } });
    expect(withStatus.status).toMatchObject({ observedGeneration: 1, replicas: 3 });
    const applied = await deployments.applyStatus('web', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 2 } }, { fieldManager: 'controller', force: true });
    expect(applied.status).toMatchObject({ replicas: 2 });
    expect(applied.metadata.managedFields?.find((f) => f.manager === 'controller')).toMatchObject({ operation: 'Apply', subresource: 'status' });
    expect((await deployments.get('web', {}, 'scale')).spec).toEqual({ replicas: 1 });
  });

  it('[API-WATCH-002][API-WATCH-003][API-RV-034] watch from a resourceVersion yields ADDED, MODIFIED and DELETED; stop() ends it on both sides', async () => {
    const { t, cms } = await defaultConfigMaps();
    const start = (await cms.list()).metadata.resourceVersion;
    const watchers = t.storage.stats().watchers;
    const watch = await cms.watch({ resourceVersion: start });
    expect(t.storage.stats().watchers).toBe(watchers + 1);
    const created = await cms.create(cm('a'));
    await cms.patch('a', PatchType.Merge, { data: { k: 'w' } });
    await cms.delete('a');
    const seen: WatchEvent[] = [];
    for await (const event of watch) {
      seen.push(event);
      if (seen.length === 3) break;
    }
    expect(seen.map((e) => [e.type, e.object.kind, e.object.metadata.name])).toEqual([['ADDED', 'ConfigMap', 'a'], ['MODIFIED', 'ConfigMap', 'a'], ['DELETED', 'ConfigMap', 'a']]);
    expect(seen[0]!.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // Leaving the loop stopped the watch: the server's watcher is gone.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await watch.next()).toBeUndefined();
    expect(t.storage.stats().watchers).toBe(watchers);
  });

  it('[API-WATCH-002] a watch the server refuses throws its Status', async () => {
    const { cms } = await defaultConfigMaps();
    const invalid = await failure(cms.watch({ sendInitialEvents: true, resourceVersionMatch: 'Exact', resourceVersion: '1' }));
    expect([invalid.code, invalid.reason]).toEqual([422, 'Invalid']);
  });

  it('[API-PATH-027][API-RBAC-002][AC-AUTHZ-002] requests authenticate with the client headers: a user without RBAC gets 403, as a token or impersonated', async () => {
    const t = await rbacServer();
    const admin = createClient(t.server, { headers: bearer('admin-token') });
    await admin.resource(configmaps).namespace('default').create(cm('a'));

    const jane = createClient(t.server, { headers: bearer('jane-token') }).resource(configmaps).namespace('default');
    expect(await failure(jane.get('a'))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
      message: 'configmaps "a" is forbidden: User "jane" cannot get resource "configmaps" in API group "" in the namespace "default"',
      details: { name: 'a', kind: 'configmaps' },
    });
    const asJane = createClient(t.server, { headers: { ...bearer('admin-token'), 'Impersonate-User': 'jane' } }).resource(configmaps).namespace('default');
    expect((await failure(asJane.create(cm('b')))).message).toBe('configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "default"');
    const nobody = createClient(t.server, { headers: bearer('no-such-token') }).resource(configmaps).namespace('default');
    expect(await failure(nobody.list())).toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });

    // A Role and RoleBinding made through the client let her read, and only read.
    const rbac = { group: 'rbac.authorization.k8s.io', version: 'v1' };
    await admin.resource({ ...rbac, resource: 'roles' }).namespace('default').create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'read' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    await admin.resource({ ...rbac, resource: 'rolebindings' }).namespace('default').create({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'read' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }],
    });
    expect((await jane.get('a')).metadata.name).toBe('a');
    expect((await asJane.get('a')).metadata.name).toBe('a');
    expect((await failure(jane.list())).code).toBe(403);
  });

  it('cluster-scoped resources, names that need no escaping, and generic lists typed by the caller', async () => {
    const t = await newTestServer();
    const clusterroles = createClient(t.server).resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' });
    const role = await clusterroles.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'team:reader' }, rules: [] });
    expect(role.metadata.name).toBe('team:reader');
    expect((await clusterroles.get('team:reader')).metadata.uid).toBe(role.metadata.uid);
    const list = await clusterroles.list<KubeList<KubeObject>>({ fieldSelector: 'metadata.name=team:reader' });
    expect(list.items).toHaveLength(1);
  });

  it('[AC-METRICS-010] its requests are counted as any client\'s: apiserver_request_total by verb, scope and code', async () => {
    const { t, cms } = await defaultConfigMaps();
    await cms.create(cm('a'));
    await failure(cms.create(cm('a')));
    await cms.list();
    await cms.apply('a', cm('a', { k: 'w' }), { fieldManager: 'm', force: true });
    const families = parsePrometheusTextFormat(await (await t.request('GET', '/metrics')).text());
    const total = families.find((f) => f.name === 'apiserver_request_total')!;
    const base = { dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver' };
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'POST', scope: 'namespace', code: '201' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'POST', scope: 'namespace', code: '409' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'LIST', scope: 'namespace', code: '200' }, value: '1' });
    expect(total.metrics).toContainEqual({ labels: { ...base, verb: 'APPLY', scope: 'resource', code: '200' }, value: '1' });
  });

  it('a failure whose body is not a Status becomes one from its code, as client-go makes it; a nameless object is refused before sending', async () => {
    let sent = 0;
    const handler = {
      handle: async () => {
        sent++;
        return new Response('upstream went away', { status: 503 });
      },
    };
    const cms = createClient(handler).resource(configmaps).namespace('default');
    expect(await failure(cms.get('a'))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 503, reason: 'ServiceUnavailable',
      message: 'the server is currently unable to handle the request (upstream went away)',
    });
    await expect(cms.update({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} })).rejects.toThrow('name is required');
    await expect(cms.get('')).rejects.toThrow('resource name may not be empty');
    expect(sent).toBe(1);
  });
});
