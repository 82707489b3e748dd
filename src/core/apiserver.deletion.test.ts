/** The deletion lifecycle through HTTP: graceful pods, namespaces, corrupt objects and the operator endpoints. */
import { afterEach, describe, expect, it } from 'vitest';
import { authorizerFromModes } from './auth/authorizer/modes';
import { asUser, headerAuthenticator } from './auth/authorizer/testing';
import { newTestServer, type TestServer } from './testing/client';
import { realClock } from './util/clock';
import { eventually } from './testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const pods = '/api/v1/namespaces/default/pods';
const cms = (ns = 'default') => `/api/v1/namespaces/${ns}/configmaps`;
const mergePatch = { 'content-type': 'application/merge-patch+json' };
const options = (o: Record<string, unknown>) => ({ kind: 'DeleteOptions', apiVersion: 'v1', ...o });
const pod = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra },
});

/** Lets controllers woken by the fake clock run. */
const tick = () => new Promise((r) => setTimeout(r, 10));

describe('first delete', () => {
  it('[API-DEL-031] an object without finalizers is gone right after its delete', async () => {
    t = await newTestServer();
    await t.json('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } } });
    const d = await t.json('DELETE', `${cms()}/plain`);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'plain', kind: 'configmaps' } });
    expect((await t.json('GET', `${cms()}/plain`)).status).toBe(404);
  });

  it('[API-DEL-008] uid and resourceVersion preconditions: a mismatch is 409 and the object stays', async () => {
    t = await newTestServer();
    const c = await t.json('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' } } });
    const rv = await t.json('DELETE', `${cms()}/p`, { body: options({ preconditions: { resourceVersion: '1' } }) });
    expect(rv.status).toBe(409);
    expect(rv.body).toMatchObject({ reason: 'Conflict', details: { name: 'p', kind: 'configmaps' } });
    expect(rv.body.message).toBe(`Operation cannot be fulfilled on configmaps "p": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${c.body.metadata.resourceVersion}`);
    const ok = await t.json('DELETE', `${cms()}/p`, { body: options({ preconditions: { uid: c.body.metadata.uid, resourceVersion: c.body.metadata.resourceVersion } }) });
    expect(ok.status).toBe(200);
  });
});

describe('graceful pod deletion (no kubelet: bound pods end when their grace period does)', () => {
  it('[API-DEL-006] an unbound pod is removed at once, after an update that marks it', async () => {
    t = await newTestServer();
    const c = await t.json('POST', pods, { body: pod('unbound', { terminationGracePeriodSeconds: 30 }) });
    const w = await t.watch(`${pods}?watch=1&resourceVersion=${c.body.metadata.resourceVersion}`);
    const d = await t.json('DELETE', `${pods}/unbound`);
    expect(d.status).toBe(200);
    // Pods answer with the deleted object (ReturnDeletedObject).
    expect(d.body).toMatchObject({ kind: 'Pod', metadata: { name: 'unbound', deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 } });
    expect((await t.json('GET', `${pods}/unbound`)).status).toBe(404);
    const modified = (await w.next())!;
    expect(modified.type).toBe('MODIFIED');
    expect(modified.object.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await w.next())!.type).toBe('DELETED');
    w.close();
  });

  it('[API-DEL-006] a bound pod stays Terminating for its grace period on the server clock; a shorter period can replace it', async () => {
    t = await newTestServer();
    await t.json('POST', pods, { body: pod('bound', { nodeName: 'node-1' }) });
    const d = await t.json('DELETE', `${pods}/bound`);
    expect(d.status).toBe(200);
    // terminationGracePeriodSeconds defaults to 30.
    expect(d.body.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    // A longer period changes nothing; a shorter one moves the end closer.
    const longer = await t.json('DELETE', `${pods}/bound`, { body: options({ gracePeriodSeconds: 60 }) });
    expect(longer.body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:30Z');
    t.clock.advance(5000);
    const shorter = await t.json('DELETE', `${pods}/bound`, { body: options({ gracePeriodSeconds: 10 }) });
    expect(shorter.body.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10 });
    await tick();
    expect((await t.json('GET', `${pods}/bound`)).status).toBe(200);
    t.clock.advance(5000);
    await eventually(() => t!.json('GET', `${pods}/bound`), (r) => r.status === 404, 'the pod to go when its grace period ends');
  });

  it('[API-DEL-006] gracePeriodSeconds=0 removes a bound pod at once; negative periods mean 1s', async () => {
    t = await newTestServer();
    await t.json('POST', pods, { body: pod('now', { nodeName: 'node-1' }) });
    expect((await t.json('DELETE', `${pods}/now?gracePeriodSeconds=0`)).status).toBe(200);
    expect((await t.json('GET', `${pods}/now`)).status).toBe(404);
    await t.json('POST', pods, { body: pod('neg', { nodeName: 'node-1' }) });
    const d = await t.json('DELETE', `${pods}/neg`, { body: options({ gracePeriodSeconds: -5 }) });
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(1);
  });

  it('a bound pod with a finalizer keeps it after the grace period, with a zero period, until the finalizer goes', async () => {
    t = await newTestServer();
    await t.json('POST', pods, { body: pod('held', { nodeName: 'node-1', terminationGracePeriodSeconds: 5 }, { finalizers: ['example.com/hold'] }) });
    await t.json('DELETE', `${pods}/held`);
    t.clock.advance(6000);
    const p = await eventually(async () => (await t!.json('GET', `${pods}/held`)).body, (b) => b.metadata.deletionGracePeriodSeconds === 0, 'the kubelet-style final delete');
    expect(p.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
    await t.json('PATCH', `${pods}/held`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    expect((await t.json('GET', `${pods}/held`)).status).toBe(404);
  });

  it('with --controllers=*,-pod-garbage-collector-controller a bound pod stays Terminating', async () => {
    t = await newTestServer({ controllers: ['*', '-podgc'] });
    await t.json('POST', pods, { body: pod('stuck', { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }) });
    await t.json('DELETE', `${pods}/stuck`);
    t.clock.advance(60_000);
    await tick();
    expect((await t.json('GET', `${pods}/stuck`)).body.metadata.deletionTimestamp).toBe('2026-01-01T00:00:01Z');
  });
});

describe('namespace deletion', () => {
  it('[API-DEL-001] Terminating with its conditions while content with finalizers remains; creating inside is 403; removed at the end', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } });
    for (const name of ['a', 'b']) await s.json('POST', cms('team'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, finalizers: ['example.com/hold'] } } });
    await s.json('POST', cms('team'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'free' } } });
    const d = await s.json('DELETE', '/api/v1/namespaces/team');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ kind: 'Namespace', spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
    const ns = await eventually(async () => (await s.json('GET', '/api/v1/namespaces/team')).body, (b) => b.status.conditions?.length === 5, 'the deletion conditions');
    expect(ns.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 2 resource instances'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances'],
    ]);
    expect((await s.json('GET', `${cms('team')}/free`)).status).toBe(404);
    expect((await s.json('GET', `${cms('team')}/a`)).body.metadata.deletionTimestamp).toBeTruthy();

    const create = await s.json('POST', cms('team'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } } });
    expect(create.status).toBe(403);
    expect(create.body.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');

    for (const name of ['a', 'b']) await s.json('PATCH', `${cms('team')}/${name}`, { body: { metadata: { finalizers: null } }, headers: mergePatch });
    s.clock.advance(1000);
    await eventually(() => s.json('GET', '/api/v1/namespaces/team'), (r) => r.status === 404, 'the namespace to go');
  });

  it('an object storage cannot read holds the namespace with NamespaceDeletionContentFailure until the unsafe delete removes it', async () => {
    t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    const s = t;
    await s.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'broken' } } });
    await s.json('POST', cms('broken'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } } });
    await s.request('PUT', '/debug/kubesim/storage/registry/configmaps/broken/bad', { body: '{"kind":' });
    await s.json('DELETE', '/api/v1/namespaces/broken');
    const ns = await eventually(async () => (await s.json('GET', '/api/v1/namespaces/broken')).body, (b) => b.status.conditions?.some((c: any) => c.type === 'NamespaceDeletionContentFailure' && c.status === 'True'), 'the content failure');
    const failure = ns.status.conditions.find((c: any) => c.type === 'NamespaceDeletionContentFailure');
    expect(failure.reason).toBe('ContentDeletionFailed');
    expect(failure.message).toMatch(/^Failed to delete all resource types, 1 remaining: Internal error occurred: key: \/registry\/configmaps\/broken\/bad, corrupt object: /);
    expect((await s.json('DELETE', `${cms('broken')}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) })).status).toBe(200);
    await eventually(() => s.json('GET', '/api/v1/namespaces/broken'), (r) => r.status === 404, 'the namespace to go');
  });

  it('default, kube-system and kube-public may not be deleted', async () => {
    t = await newTestServer();
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const d = await t.json('DELETE', `/api/v1/namespaces/${name}`);
      expect(d.status).toBe(403);
      expect(d.body).toMatchObject({ reason: 'Forbidden', message: `namespaces "${name}" is forbidden: this namespace may not be deleted`, details: { name, kind: 'namespaces' } });
    }
    expect((await t.json('GET', '/api/v1/namespaces/default')).body.status.phase).toBe('Active');
  });

  it('with --controllers=*,-namespace-controller a deleted namespace stays Terminating with its content', async () => {
    t = await newTestServer({ controllers: ['*', '-namespace-controller'] });
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'raw' } } });
    await t.json('POST', cms('raw'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
    await t.json('DELETE', '/api/v1/namespaces/raw');
    await tick();
    expect((await t.json('GET', `${cms('raw')}/x`)).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/raw')).body.status.phase).toBe('Terminating');
  });
});

describe('deletecollection', () => {
  it('deletes what the label selector matches; the unsafe option is refused for it', async () => {
    t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    for (const [name, tier] of [['x1', 'web'], ['x2', 'db'], ['x3', 'web']]) await t.json('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { tier } } } });
    const d = await t.json('DELETE', `${cms()}?labelSelector=tier%3Dweb`);
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe('ConfigMapList');
    expect(d.body.items.map((i: any) => i.metadata.name)).toEqual(['x1', 'x3']);
    expect((await t.json('GET', cms())).body.items.map((i: any) => i.metadata.name)).toEqual(['x2']);
    const unsafe = await t.json('DELETE', cms(), { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) });
    expect(unsafe.status).toBe(422);
    expect(unsafe.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option');
  });
});

describe('corrupt objects made through /debug/kubesim/storage', () => {
  const admin = asUser('root', 'system:masters');

  it('[API-DEL-018][API-DEL-021] an operator writes undecodable bytes; get and list answer 500; the unsafe delete removes it', async () => {
    t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    await t.json('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', finalizers: ['example.com/hold'] } } });
    const w = await t.request('PUT', '/debug/kubesim/storage/registry/configmaps/default/bad', { body: '\u0000k8s\u0000garbage' });
    expect(w.status).toBe(200);
    expect(await (await t.request('GET', '/debug/kubesim/storage/registry/configmaps/default/bad')).text()).toBe('\u0000k8s\u0000garbage');
    expect((await t.request('GET', '/debug/kubesim/storage/registry/configmaps/default/none')).status).toBe(404);
    const get = await t.json('GET', `${cms()}/bad`);
    expect(get.status).toBe(500);
    expect(get.body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect(get.body.message).toMatch(/^Internal error occurred: key: \/registry\/configmaps\/default\/bad, corrupt object: /);
    expect((await t.json('GET', cms())).status).toBe(500);
    const d = await t.json('DELETE', `${cms()}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }) });
    expect(d.status).toBe(200);
    expect((await t.json('GET', cms())).status).toBe(200);
  });

  it('[API-DEL-023] the unsafe delete needs the unsafe-delete-ignore-read-errors verb besides delete; the storage endpoint is for operators', async () => {
    t = await newTestServer({ featureGates: { AllowUnsafeMalformedObjectDeletion: true }, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) });
    const s = t;
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    const bind = async (verbs: string[]) => {
      await s.json('DELETE', `${rbac}/roles/cm`, { headers: admin });
      await s.json('DELETE', `${rbac}/rolebindings/cm`, { headers: admin });
      expect((await s.json('POST', `${rbac}/roles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] }, headers: admin })).status).toBe(201);
      expect((await s.json('POST', `${rbac}/rolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] }, headers: admin })).status).toBe(201);
    };
    await s.json('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } }, headers: admin });
    const denied = await s.request('PUT', '/debug/kubesim/storage/registry/configmaps/default/bad', { body: '{', headers: asUser('alice') });
    expect(denied.status).toBe(403);
    expect((await s.request('PUT', '/debug/kubesim/storage/registry/configmaps/default/bad', { body: '{', headers: admin })).status).toBe(200);

    await bind(['get', 'delete']);
    const d = await s.json('DELETE', `${cms()}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }), headers: asUser('alice') });
    expect(d.status).toBe(403);
    expect(d.body).toMatchObject({ reason: 'Forbidden', details: { name: 'bad', kind: 'configmaps' } });
    expect(d.body.message).toBe('configmaps "bad" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: ');
    await bind(['get', 'delete', 'unsafe-delete-ignore-read-errors']);
    await eventually(() => s.json('DELETE', `${cms()}/bad`, { body: options({ ignoreStoreReadErrorWithClusterBreakingPotential: true }), headers: asUser('alice') }), (r) => r.status === 200, 'the unsafe delete to be allowed');
    expect((await s.json('GET', `${cms()}/bad`, { headers: admin })).status).toBe(404);
  });
});

describe('/debug/kubesim/clock', () => {
  it('reports the server time and advances a fake clock by a Go duration', async () => {
    t = await newTestServer();
    expect((await t.json('GET', '/debug/kubesim/clock')).body).toEqual({ now: '2026-01-01T00:00:00Z', fake: true });
    const a = await t.json('POST', '/debug/kubesim/clock?advance=1m30s');
    expect(a.status).toBe(200);
    expect(a.body.now).toBe('2026-01-01T00:01:30Z');
    expect(t.clock.now().toISOString()).toBe('2026-01-01T00:01:30.000Z');
    const bad = await t.json('POST', '/debug/kubesim/clock?advance=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('BadRequest');
  });

  it('cannot move a real clock', async () => {
    t = await newTestServer({ clock: realClock });
    expect((await t.json('GET', '/debug/kubesim/clock')).body.fake).toBe(false);
    const r = await t.json('POST', '/debug/kubesim/clock?advance=1s');
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('the server clock is real; start the server with --fake-clock to advance it');
  });
});
