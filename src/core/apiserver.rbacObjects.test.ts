/**
 * RBAC objects, the default roles and the verb each HTTP method is authorized as,
 * seen through handle() the way a client sees them.
 */
import { describe, expect, it } from 'vitest';
import { authorizerFromModes } from './auth/authorizer/modes';
import { asUser, headerAuthenticator } from './auth/authorizer/testing';
import { newTestServer, type TestServer } from './testing/client';

const admin = asUser('root', 'system:masters');
const rbac = '/apis/rbac.authorization.k8s.io/v1';
const rbacVersion = 'rbac.authorization.k8s.io/v1';
const cm = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function server(): Promise<TestServer> {
  const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) });
  const r = await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }, headers: admin });
  expect(r.status).toBe(201);
  return t;
}

/** A Role in ns1 with `verbs` on configmaps, bound to `user`. */
async function grant(t: TestServer, user: string, verbs: string[]) {
  const role = await t.json('POST', `${rbac}/namespaces/ns1/roles`, {
    body: { apiVersion: rbacVersion, kind: 'Role', metadata: { name: user }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }] },
    headers: admin,
  });
  expect(role.status).toBe(201);
  const binding = await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, {
    body: {
      apiVersion: rbacVersion, kind: 'RoleBinding', metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
    headers: admin,
  });
  expect(binding.status).toBe(201);
}

const cms = '/api/v1/namespaces/ns1/configmaps';

describe('RBAC objects', () => {
  it('[AC-RBAC-001][AC-RBAC-002][AC-RBAC-004][AC-RBAC-007] the four kinds are served in rbac.authorization.k8s.io/v1 with their scopes', async () => {
    const t = await server();
    const list = await t.json('GET', rbac, { headers: admin });
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('APIResourceList');
    const scope = Object.fromEntries(list.body.resources.filter((r: { name: string }) => !r.name.includes('/')).map((r: { name: string; namespaced: boolean }) => [r.name, r.namespaced]));
    expect(scope).toEqual({ roles: true, rolebindings: true, clusterroles: false, clusterrolebindings: false });
    const role = await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: { apiVersion: rbacVersion, kind: 'Role', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, headers: admin });
    expect(role.status).toBe(201);
    expect(role.body.metadata.namespace).toBe('ns1');
    const cr = await t.json('POST', `${rbac}/clusterroles`, { body: { apiVersion: rbacVersion, kind: 'ClusterRole', metadata: { name: 'cr' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, headers: admin });
    expect(cr.status).toBe(201);
    expect(cr.body.metadata.namespace).toBeUndefined();
    const crb = await t.json('POST', `${rbac}/clusterrolebindings`, {
      body: { apiVersion: rbacVersion, kind: 'ClusterRoleBinding', metadata: { name: 'crb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }] },
      headers: admin,
    });
    expect(crb.status).toBe(201);
    expect(crb.body.metadata.namespace).toBeUndefined();
  });

  it('[AC-RBAC-003] a Role exists only in a namespace: there is no cluster-wide roles path to create at', async () => {
    const t = await server();
    const r = await t.json('POST', `${rbac}/roles`, { body: { apiVersion: rbacVersion, kind: 'Role', metadata: { name: 'r' }, rules: [] }, headers: admin });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 });
    // Nor is there a named path under it.
    expect((await t.json('GET', `${rbac}/roles/r`, { headers: admin })).body.message).toBe('the server could not find the requested resource');
    // Listing across namespaces is allowed, and every Role carries its namespace.
    const all = await t.json('GET', `${rbac}/roles`, { headers: admin });
    expect(all.status).toBe(200);
    for (const item of all.body.items) expect(item.metadata.namespace).toBeTruthy();
  });

  it('[AC-RBAC-005] a ClusterRole may carry an aggregationRule of label selectors', async () => {
    const t = await server();
    const r = await t.json('POST', `${rbac}/clusterroles`, {
      body: { apiVersion: rbacVersion, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } },
      headers: admin,
    });
    expect(r.status).toBe(201);
    expect(r.body.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] });
  });

  it('[AC-RBAC-019] names must be valid path segments', async () => {
    const t = await server();
    for (const name of ['a/b', '..', 'a%b']) {
      const r = await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: { apiVersion: rbacVersion, kind: 'Role', metadata: { name }, rules: [] }, headers: admin });
      expect(r.status, name).toBe(422);
      expect(r.body.reason).toBe('Invalid');
      expect(r.body.details.causes[0].field).toBe('metadata.name');
    }
    // Colons are fine: the default roles use them.
    const ok = await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: { apiVersion: rbacVersion, kind: 'Role', metadata: { name: 'team:reader' }, rules: [] }, headers: admin });
    expect(ok.status).toBe(201);
  });

  it('[AC-RBAC-020][AC-RBAC-024] subject kinds are User, Group or ServiceAccount; roleRef kinds Role or ClusterRole', async () => {
    const t = await server();
    const binding = (subject: object, roleRef: object) => t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, {
      body: { apiVersion: rbacVersion, kind: 'RoleBinding', metadata: { name: 'b' }, roleRef, subjects: [subject] },
      headers: admin,
    });
    const goodRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    const team = await binding({ kind: 'Team', name: 'x' }, goodRef);
    expect(team.status).toBe(422);
    expect(team.body.details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueNotSupported', field: 'subjects[0].kind' }));
    const foo = await binding({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { ...goodRef, kind: 'Foo' });
    expect(foo.status).toBe(422);
    expect(foo.body.details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueNotSupported', field: 'roleRef.kind' }));
    const ok = await binding({ kind: 'ServiceAccount', name: 'default', namespace: 'ns1' }, goodRef);
    expect(ok.status).toBe(201);
  });
});

describe('default roles', () => {
  it('[AC-RBAC-073][AC-RBAC-074][AC-RBAC-075][AC-RBAC-076][AC-RBAC-077][AC-RBAC-079][AC-RBAC-080][AC-RBAC-081][AC-RBAC-082][AC-RBAC-083][AC-RBAC-084][AC-RBAC-085][AC-RBAC-086][AC-RBAC-087] the core component and other default ClusterRoles exist', async () => {
    const t = await server();
    for (const name of [
      'system:kube-scheduler', 'system:volume-scheduler', 'system:kube-controller-manager', 'system:node', 'system:node-proxier',
      'system:auth-delegator', 'system:heapster', 'system:kube-aggregator', 'system:kube-dns', 'system:kubelet-api-admin',
      'system:node-bootstrapper', 'system:node-problem-detector', 'system:persistent-volume-provisioner', 'system:monitoring',
    ]) {
      const r = await t.json('GET', `${rbac}/clusterroles/${name}`, { headers: admin });
      expect(r.status, name).toBe(200);
      expect(r.body.metadata.labels['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
      expect(r.body.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    }
  });

  it('[AC-RBAC-089][AC-RBAC-090][AC-RBAC-091][AC-RBAC-092][AC-RBAC-093][AC-RBAC-094][AC-RBAC-095][AC-RBAC-096][AC-RBAC-097][AC-RBAC-098][AC-RBAC-099][AC-RBAC-100][AC-RBAC-101][AC-RBAC-102][AC-RBAC-103][AC-RBAC-104][AC-RBAC-105][AC-RBAC-106][AC-RBAC-107][AC-RBAC-108][AC-RBAC-109][AC-RBAC-110][AC-RBAC-111][AC-RBAC-112][AC-RBAC-113][AC-RBAC-114][AC-RBAC-115] the controller ClusterRoles exist, each bound to its controller\'s service account', async () => {
    const t = await server();
    for (const controller of [
      'attachdetach-controller', 'certificate-controller', 'clusterrole-aggregation-controller', 'cronjob-controller', 'daemon-set-controller',
      'deployment-controller', 'disruption-controller', 'endpoint-controller', 'expand-controller', 'generic-garbage-collector',
      'horizontal-pod-autoscaler', 'job-controller', 'namespace-controller', 'node-controller', 'persistent-volume-binder',
      'pod-garbage-collector', 'pv-protection-controller', 'pvc-protection-controller', 'replicaset-controller', 'replication-controller',
      'resourcequota-controller', 'root-ca-cert-publisher', 'route-controller', 'service-account-controller', 'service-controller',
      'statefulset-controller', 'ttl-controller',
    ]) {
      const name = `system:controller:${controller}`;
      const role = await t.json('GET', `${rbac}/clusterroles/${name}`, { headers: admin });
      expect(role.status, name).toBe(200);
      const binding = await t.json('GET', `${rbac}/clusterrolebindings/${name}`, { headers: admin });
      expect(binding.status, name).toBe(200);
      expect(binding.body.subjects).toEqual([{ kind: 'ServiceAccount', name: controller, namespace: 'kube-system' }]);
    }
  });

  it('[AC-RBAC-066] admin of a namespace cannot write EndpointSlices there', async () => {
    const t = await server();
    const bind = await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, {
      body: { apiVersion: rbacVersion, kind: 'RoleBinding', metadata: { name: 'boss' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'boss' }] },
      headers: admin,
    });
    expect(bind.status).toBe(201);
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [] };
    const r = await t.json('POST', '/apis/discovery.k8s.io/v1/namespaces/ns1/endpointslices', { body: slice, headers: asUser('boss') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('endpointslices.discovery.k8s.io is forbidden: User "boss" cannot create resource "endpointslices" in API group "discovery.k8s.io" in the namespace "ns1"');
    // Reading them is part of admin (through view).
    expect((await t.json('GET', '/apis/discovery.k8s.io/v1/namespaces/ns1/endpointslices', { headers: asUser('boss') })).status).toBe(200);
  });
});

describe('[AC-AUTHZ-015][AC-AUTHZ-022] the verb each request is authorized as', () => {
  async function withOne(verb: string) {
    const t = await server();
    expect((await t.json('POST', cms, { body: cm('cm1'), headers: admin })).status).toBe(201);
    await grant(t, verb, [verb]);
    return { t, as: asUser(verb) };
  }

  it('[API-PATH-027] POST is create', async () => {
    const { t, as } = await withOne('create');
    expect((await t.json('POST', cms, { body: cm('cm2'), headers: as })).status).toBe(201);
    expect((await t.json('GET', `${cms}/cm2`, { headers: as })).status).toBe(403);
  });

  it('[API-PATH-028] GET of one object is get', async () => {
    const { t, as } = await withOne('get');
    expect((await t.json('GET', `${cms}/cm1`, { headers: as })).status).toBe(200);
    const list = await t.json('GET', cms, { headers: as });
    expect(list.status).toBe(403);
    expect(list.body.message).toContain('cannot list resource "configmaps"');
  });

  it('[API-PATH-029] GET of a collection is list', async () => {
    const { t, as } = await withOne('list');
    expect((await t.json('GET', cms, { headers: as })).status).toBe(200);
    const one = await t.json('GET', `${cms}/cm1`, { headers: as });
    expect(one.status).toBe(403);
    expect(one.body.message).toContain('cannot get resource "configmaps"');
  });

  it('[API-PATH-030] GET with watch is watch', async () => {
    const { t, as } = await withOne('list');
    const denied = await t.json('GET', `${cms}?watch=1`, { headers: as });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('cannot watch resource "configmaps"');
    await grant(t, 'watcher', ['watch']);
    const w = await t.watch(`${cms}?watch=1`, asUser('watcher'));
    expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'cm1' } } });
    w.close();
  });

  it('[API-PATH-031] PUT is update', async () => {
    const { t, as } = await withOne('update');
    expect((await t.json('PUT', `${cms}/cm1`, { body: cm('cm1', { k: 'w' }), headers: as })).status).toBe(200);
    const patch = await t.json('PATCH', `${cms}/cm1`, { body: { data: { k: 'x' } }, headers: { ...as, 'content-type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toContain('cannot patch resource "configmaps"');
  });

  it('[API-PATH-033] PATCH is patch', async () => {
    const { t, as } = await withOne('patch');
    expect((await t.json('PATCH', `${cms}/cm1`, { body: { data: { k: 'x' } }, headers: { ...as, 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    const put = await t.json('PUT', `${cms}/cm1`, { body: cm('cm1', { k: 'w' }), headers: as });
    expect(put.status).toBe(403);
    expect(put.body.message).toContain('cannot update resource "configmaps"');
  });

  it('[API-PATCH-014] JSON, merge and strategic merge patches are all the patch verb', async () => {
    const { t, as } = await withOne('patch');
    await grant(t, 'updater', ['get', 'update']);
    const patches: [string, unknown][] = [
      ['application/json-patch+json', [{ op: 'replace', path: '/data/k', value: 'json' }]],
      ['application/merge-patch+json', { data: { k: 'merge' } }],
      ['application/strategic-merge-patch+json', { data: { k: 'strategic' } }],
    ];
    for (const [type, body] of patches) {
      const ok = await t.json('PATCH', `${cms}/cm1`, { body, headers: { ...as, 'content-type': type } });
      expect(ok.status, type).toBe(200);
      // get and update together do not make a patch.
      const denied = await t.json('PATCH', `${cms}/cm1`, { body, headers: { ...asUser('updater'), 'content-type': type } });
      expect(denied.status, type).toBe(403);
      expect(denied.body.message).toBe('configmaps "cm1" is forbidden: User "updater" cannot patch resource "configmaps" in API group "" in the namespace "ns1"');
    }
    expect((await t.json('GET', `${cms}/cm1`, { headers: admin })).body.data).toEqual({ k: 'strategic' });
  });

  it('[API-PATH-034] DELETE of one object is delete', async () => {
    const { t, as } = await withOne('delete');
    const all = await t.json('DELETE', cms, { headers: as });
    expect(all.status).toBe(403);
    expect(all.body.message).toContain('cannot deletecollection resource "configmaps"');
    expect((await t.json('DELETE', `${cms}/cm1`, { headers: as })).status).toBe(200);
  });

  it('[API-PATH-035] DELETE of a collection is deletecollection', async () => {
    const { t, as } = await withOne('deletecollection');
    const one = await t.json('DELETE', `${cms}/cm1`, { headers: as });
    expect(one.status).toBe(403);
    expect(one.body.message).toContain('cannot delete resource "configmaps"');
    const all = await t.json('DELETE', cms, { headers: as });
    expect(all.status).toBe(200);
    expect((await t.json('GET', `${cms}/cm1`, { headers: admin })).status).toBe(404);
  });

  it('[API-SSA-044][API-SSA-045] apply to an existing object needs patch; apply that creates needs create too', async () => {
    const t = await server();
    expect((await t.json('POST', cms, { body: cm('cm1'), headers: admin })).status).toBe(201);
    await grant(t, 'creator', ['create']);
    await grant(t, 'patcher', ['patch']);
    const apply = (name: string, as: Record<string, string>) => t.json('PATCH', `${cms}/${name}?fieldManager=m&force=true`, {
      body: cm(name, { k: 'applied' }), headers: { ...as, 'content-type': 'application/apply-patch+yaml' },
    });
    const existingByCreator = await apply('cm1', asUser('creator'));
    expect(existingByCreator.status).toBe(403);
    expect(existingByCreator.body.message).toContain('cannot patch resource "configmaps"');
    expect((await apply('cm1', asUser('patcher'))).status).toBe(200);
    const newByPatcher = await apply('cm2', asUser('patcher'));
    expect(newByPatcher.status).toBe(403);
    // Asked inside the write, as kube-apiserver does: the 403 names the object and carries only the authorizer's reason (none from RBAC).
    expect(newByPatcher.body).toMatchObject({ reason: 'Forbidden', message: 'configmaps "cm2" is forbidden: ', details: { name: 'cm2', kind: 'configmaps' } });
    expect((await t.json('GET', `${cms}/cm2`, { headers: admin })).status).toBe(404);
    await grant(t, 'both', ['create', 'patch']);
    expect((await apply('cm2', asUser('both'))).status).toBe(201);
  });
});

describe('SelfSubjectReview', () => {
  it('[AC-REV-013][AC-REV-027][AC-REV-028][AC-REV-029] a body of apiVersion and kind answers who the caller is, for any authenticated user', async () => {
    const t = await server();
    const r = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      headers: asUser('fresh', 'team-a'),
    });
    expect(r.status).toBe(201);
    expect(r.body.kind).toBe('SelfSubjectReview');
    expect(r.body.status.userInfo).toEqual({ username: 'fresh', groups: ['team-a', 'system:authenticated'] });
    // A spec is not part of the kind: strict field validation names it unknown.
    const strict = await t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews?fieldValidation=Strict', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', spec: { user: 'root' } },
      headers: asUser('fresh'),
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec"');
  });
});
