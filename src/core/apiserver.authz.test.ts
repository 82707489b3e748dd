/** Authorization through handle(): the filter, the mode chain, RBAC rule evaluation and the default policy. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authorizerFromModes } from './auth/authorizer/modes';
import { asUser, headerAuthenticator } from './auth/authorizer/testing';
import { covers } from './auth/rbac/covers';
import { newTestServer, type TestServer } from './testing/client';
import { testCertificateRequestPem } from './testing/certificates';

const admin = asUser('root', 'system:masters');
const rbac = '/apis/rbac.authorization.k8s.io/v1';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

async function server(modes: Parameters<typeof authorizerFromModes>[0] = ['RBAC']): Promise<TestServer> {
  const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(modes) });
  for (const ns of ['ns1', 'ns2']) {
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, headers: admin });
  }
  return t;
}

async function role(t: TestServer, ns: string, name: string, rules: unknown[]) {
  const path = ns ? `${rbac}/namespaces/${ns}/roles` : `${rbac}/clusterroles`;
  const r = await t.json('POST', path, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: ns ? 'Role' : 'ClusterRole', metadata: { name }, rules }, headers: admin });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

async function bind(t: TestServer, ns: string, name: string, roleRef: { kind: string; name: string }, subjects: unknown[]) {
  const path = ns ? `${rbac}/namespaces/${ns}/rolebindings` : `${rbac}/clusterrolebindings`;
  const r = await t.json('POST', path, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: ns ? 'RoleBinding' : 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef }, subjects },
    headers: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

describe('authorization filter and modes', () => {
  it('[AC-AUTHZ-002][AC-AUTHZ-006][AC-AUTHZ-009][API-ERR-021][AC-ERR-004] a user without bindings gets 403 with kube-apiserver\'s message', async () => {
    const t = await server();
    const r = await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: asUser('alice') });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns1"',
      details: { kind: 'pods' },
    });
    const named = await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/web/scale', { headers: asUser('alice') });
    expect(named.body.message).toBe('deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns1"');
    expect(named.body.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    const cluster = await t.json('GET', '/api/v1/nodes', { headers: asUser('alice') });
    expect(cluster.body.message).toBe('nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
    const path = await t.json('GET', '/metrics', { headers: asUser('alice') });
    expect(path.status).toBe(403);
    expect(path.body.message).toBe('forbidden: User "alice" cannot get path "/metrics"');
    expect(path.body.details).toEqual({});
  });

  it('[AC-AUTHZ-001] authorization runs before admission and validation: an invalid object from an unauthorized user is 403', async () => {
    const t = await server();
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'BAD NAME' } }, headers: asUser('alice') });
    expect(r.status).toBe(403);
  });

  it('[AC-AUTHZ-005] authorization comes after authentication and before admission', async () => {
    const t = await newTestServer({ authentication: { tokenFile: (await import('./auth/authenticator/tokenfile')).parseTokenFile('admin,root,r1,system:masters\nalice,alice,a1\nbob,bob,b1\n') }, authorizer: authorizerFromModes(['RBAC']) });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const post = async (path: string, body: Record<string, unknown>) => expect((await t.json('POST', path, { body, headers: bearer('admin') })).status).toBe(201);
    // A policy that refuses every ConfigMap, and a grant to create them for alice only.
    await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-cms' },
      spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: 'false', message: 'no configmaps' }] },
    });
    await post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-cms' }, spec: { policyName: 'no-cms', validationActions: ['Deny'] } });
    await post(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cm-creator' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] });
    await post(`${rbac}/clusterrolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'alice-cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-creator' }, subjects: [user('alice')] });
    const checks = async () => (await (await t.request('GET', '/metrics', { headers: bearer('admin') })).text()).split('\n').filter((l) => l.startsWith('apiserver_validating_admission_policy_check_total')).join('\n');
    const send = (token: string) => t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('c1'), headers: bearer(token) });
    expect((await send('wrong')).status).toBe(401);
    const before = await checks();
    expect((await send('bob')).status).toBe(403);
    // The policy never saw bob's request.
    expect(await checks()).toBe(before);
    const alice = await send('alice');
    expect(alice.status).toBe(422);
    expect(alice.body.message).toBe("configmaps \"c1\" is forbidden: ValidatingAdmissionPolicy 'no-cms' with binding 'no-cms' denied request: no configmaps");
    expect(await checks()).not.toBe(before);
  });

  it('[AC-AUTHZ-020] a rule\'s apiGroups are matched against the request\'s group, "" being the core group', async () => {
    const t = await server();
    await role(t, 'ns1', 'apps-pods', [{ apiGroups: ['apps'], resources: ['pods', 'deployments'], verbs: ['list'] }]);
    await bind(t, 'ns1', 'apps-pods', { kind: 'Role', name: 'apps-pods' }, [user('alice')]);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments', { headers: asUser('alice') })).status).toBe(200);
    const pods = await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: asUser('alice') });
    expect(pods.status).toBe(403);
    expect(pods.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns1"');
    await role(t, 'ns1', 'core-pods', [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
    await bind(t, 'ns1', 'core-pods', { kind: 'Role', name: 'core-pods' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: asUser('alice') })).status).toBe(200);
  });

  it('[AC-AUTHZ-037] system:masters bypasses every mode, even AlwaysDeny', async () => {
    const t = await server(['AlwaysDeny']);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: admin })).status).toBe(200);
  });

  it('[AC-AUTHZ-033] AlwaysDeny forbids everything with its reason', async () => {
    const t = await server(['AlwaysDeny']);
    const r = await t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.');
  });

  it('[AC-AUTHZ-040][AC-AUTHZ-031][AC-AUTHZ-007] mode order is priority order; AlwaysAllow after RBAC allows what RBAC does not', async () => {
    const denyFirst = await server(['AlwaysDeny', 'AlwaysAllow']);
    expect((await denyFirst.json('GET', '/api/v1/namespaces', { headers: asUser('alice') })).status).toBe(403);
    const allowFirst = await server(['AlwaysAllow', 'AlwaysDeny']);
    expect((await allowFirst.json('GET', '/api/v1/namespaces', { headers: asUser('alice') })).status).toBe(200);
    const t = await server(['RBAC', 'AlwaysAllow']);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets', { headers: asUser('alice') })).status).toBe(200);
  });

  it('without an authorizer option every request is allowed (AlwaysAllow)', async () => {
    const t = await newTestServer({ authenticators: [headerAuthenticator] });
    expect((await t.json('GET', '/api/v1/namespaces/default/secrets', { headers: asUser('alice') })).status).toBe(200);
    expect((await t.json('GET', `${rbac}/clusterroles`)).body.items).toEqual([]);
  });

  it('[AC-RBAC-044] anonymous requests get only what system:unauthenticated is bound to', async () => {
    const t = await server();
    const r = await t.json('GET', '/api/v1/namespaces');
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('User "system:anonymous" cannot list resource "namespaces"');
    // system:public-info-viewer is bound to system:unauthenticated.
    expect((await t.request('GET', '/version')).status).toBe(200);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('records the decision and why in the request trace', async () => {
    const t = await server();
    const { traceFrom } = await import('./http/request/context');
    const req = new Request('http://127.0.0.1:8080/api/v1/namespaces/ns1/pods', { headers: { ...admin, 'X-Kubesim-Trace': '1' } });
    await t.server.handle(req);
    expect(traceFrom(req).find((e) => e.stage === 'authorization')?.details).toMatchObject({ decision: 'Allow', authorizer: 'privileged-groups' });
  });
});

describe('RBAC rules', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await server();
    for (const ns of ['ns1', 'ns2']) for (const name of ['cm1', 'cm2']) await t.json('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name), headers: admin });
  });

  it('[API-RBAC-002][AC-RBAC-025][AC-RBAC-026][AC-RBAC-009][AC-RBAC-008][AC-AUTHZ-019][AC-AUTHZ-035] a RoleBinding to a Role grants in its namespace only', async () => {
    await role(t, 'ns1', 'cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'read', { kind: 'Role', name: 'cm-reader' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/configmaps/cm1', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets/x', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/x', { headers: asUser('alice') })).status).toBe(403);
  });

  it('[AC-RBAC-027][AC-RBAC-028] a ClusterRole through a RoleBinding applies in that namespace; through a ClusterRoleBinding everywhere', async () => {
    await role(t, '', 'cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    await bind(t, 'ns1', 'read', { kind: 'ClusterRole', name: 'cm-reader' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps', { headers: asUser('alice') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/configmaps', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/api/v1/configmaps', { headers: asUser('alice') })).status).toBe(403);
    await bind(t, '', 'read-all', { kind: 'ClusterRole', name: 'cm-reader' }, [user('bob')]);
    expect((await t.json('GET', '/api/v1/configmaps', { headers: asUser('bob') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/configmaps', { headers: asUser('bob') })).status).toBe(200);
  });

  it('[API-RBAC-001][AC-RBAC-010][AC-AUTHZ-018] sub-resources are authorized on their own', async () => {
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, headers: admin });
    await role(t, 'ns1', 'status-reader', [{ apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'status', { kind: 'Role', name: 'status-reader' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods/p1/status', { headers: asUser('alice') })).status).toBe(200);
    const r = await t.json('GET', '/api/v1/namespaces/ns1/pods/p1', { headers: asUser('alice') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "p1" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "ns1"');
  });

  it('[AC-RBAC-011][AC-RBAC-014] `*` matches every resource and verb; `*/status` every status', async () => {
    await role(t, 'ns1', 'all', [{ apiGroups: [''], resources: ['*'], verbs: ['get'] }, { apiGroups: ['*'], resources: ['*/status'], verbs: ['*'] }]);
    await bind(t, 'ns1', 'all', { kind: 'Role', name: 'all' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets/none', { headers: asUser('alice') })).status).toBe(404);
    expect((await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/apis/apps/v1/namespaces/ns1/deployments/d/status', { headers: asUser('alice') })).status).toBe(404);
  });

  it('[AC-RBAC-012][AC-RBAC-013][AC-RBAC-031][AC-RBAC-032][AC-RBAC-033][API-RBAC-003][AC-AUTHZ-017] resourceNames restrict named requests; list needs the metadata.name field selector', async () => {
    await role(t, 'ns1', 'one', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm1'], verbs: ['get', 'list', 'watch', 'create', 'deletecollection'] }]);
    await bind(t, 'ns1', 'one', { kind: 'Role', name: 'one' }, [user('alice')]);
    const h = { headers: asUser('alice') };
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', h)).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm2', h)).status).toBe(403);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps', h)).status).toBe(403);
    const listed = await t.json('GET', '/api/v1/namespaces/ns1/configmaps?fieldSelector=metadata.name%3Dcm1', h);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['cm1']);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('cm1'), ...h })).status).toBe(403);
    expect((await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps', h)).status).toBe(403);
  });

  it('[AC-RBAC-015][AC-RBAC-016][AC-RBAC-017][AC-AUTHZ-014][AC-AUTHZ-016][AC-AUTHZ-021] nonResourceURLs, with a suffix wildcard, only through a ClusterRoleBinding; the verb is the lowercase method', async () => {
    await role(t, '', 'metrics', [{ nonResourceURLs: ['/metrics*', '/openapi/v3'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'metrics', { kind: 'ClusterRole', name: 'metrics' }, [user('alice')]);
    expect((await t.json('GET', '/metrics/slis', { headers: asUser('alice') })).status).toBe(403);
    await bind(t, '', 'metrics', { kind: 'ClusterRole', name: 'metrics' }, [user('bob')]);
    expect((await t.request('GET', '/openapi/v3', { headers: asUser('bob') })).status).toBe(200);
    expect((await t.request('GET', '/metrics/slis', { headers: asUser('bob') })).status).not.toBe(403);
    expect((await t.request('GET', '/logs', { headers: asUser('bob') })).status).toBe(403);
    expect((await t.json('GET', '/apis', { headers: asUser('bob') })).status).toBe(200); // system:discovery
    const post = await t.json('POST', '/metrics', { headers: asUser('bob') });
    expect(post.status).toBe(403);
    expect(post.body.message).toBe('forbidden: User "bob" cannot post path "/metrics"');
    await role(t, '', 'upper', [{ nonResourceURLs: ['/version2'], verbs: ['GET'] }]);
    await bind(t, '', 'upper', { kind: 'ClusterRole', name: 'upper' }, [user('carol')]);
    expect((await t.json('GET', '/version2', { headers: asUser('carol') })).status).toBe(403);
  });

  it('[AC-RBAC-021][AC-RBAC-022][AC-RBAC-018][AC-AUTHZ-011] subjects: user names are case sensitive, groups match, grants add up', async () => {
    await role(t, 'ns1', 'get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await role(t, 'ns1', 'list', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    await bind(t, 'ns1', 'get', { kind: 'Role', name: 'get' }, [user('Alice')]);
    await bind(t, 'ns1', 'list', { kind: 'Role', name: 'list' }, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'readers' }]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('Alice') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps', { headers: asUser('Alice', 'readers') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('Alice', 'readers') })).status).toBe(200);
  });

  it('[AC-RBAC-023][AC-RBAC-042][AC-RBAC-043] service accounts match by subject, by user name and by their groups', async () => {
    await role(t, 'ns1', 'get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'sa', { kind: 'Role', name: 'get' }, [{ kind: 'ServiceAccount', name: 'sa1', namespace: 'ns1' }]);
    const sa = (ns: string, name: string) => asUser(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${ns}`);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: sa('ns1', 'sa1') })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: sa('ns2', 'sa1') })).status).toBe(403);
    await bind(t, 'ns1', 'sa-group', { kind: 'Role', name: 'get' }, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:ns2' }]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: sa('ns2', 'other') })).status).toBe(200);
  });

  it('a binding to a missing role: the 403 carries the resolution error, as upstream', async () => {
    await bind(t, 'ns1', 'dangling', { kind: 'Role', name: 'nope' }, [user('alice')]);
    const r = await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') });
    expect(r.body.message).toBe('configmaps "cm1" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "ns1": RBAC: role.rbac.authorization.k8s.io "nope" not found');
  });

  it('[AC-RBAC-029][AC-ERR-010] roleRef cannot change: 422 Invalid', async () => {
    await role(t, 'ns1', 'get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'b', { kind: 'Role', name: 'get' }, [user('alice')]);
    const r = await t.json('PATCH', `${rbac}/namespaces/ns1/rolebindings/b`, { body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' } }, headers: { ...admin, 'content-type': 'application/merge-patch+json' } });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    const current = (await t.json('GET', `${rbac}/namespaces/ns1/rolebindings/b`, { headers: admin })).body;
    const put = await t.json('PUT', `${rbac}/namespaces/ns1/rolebindings/b`, { body: { ...current, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'other' } }, headers: admin });
    expect(put.status).toBe(422);
    expect(put.body.details).toMatchObject({ name: 'b', group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', causes: [{ reason: 'FieldValueInvalid', field: 'roleRef' }] });
    expect(put.body.message).toContain('cannot change roleRef');
  });

  it('[AC-RBAC-030] deleting a binding revokes at once; re-creating with another role grants that role', async () => {
    await role(t, 'ns1', 'get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'b', { kind: 'Role', name: 'get' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(200);
    expect((await t.json('DELETE', `${rbac}/namespaces/ns1/rolebindings/b`, { headers: admin })).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps/cm1', { headers: asUser('alice') })).status).toBe(403);
    await role(t, 'ns1', 'list', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    await bind(t, 'ns1', 'b', { kind: 'Role', name: 'list' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/configmaps', { headers: asUser('alice') })).status).toBe(200);
  });
});

describe('default policy', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await server();
  });

  it('[AC-RBAC-051][AC-RBAC-052][AC-RBAC-053][AC-RBAC-054][AC-RBAC-055][AC-RBAC-056][AC-RBAC-057][AC-RBAC-058][AC-RBAC-059] default roles and bindings exist, labelled rbac-defaults', async () => {
    const roles = await t.json('GET', `${rbac}/clusterroles?labelSelector=kubernetes.io%2Fbootstrapping%3Drbac-defaults`, { headers: admin });
    const names = roles.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:controller:clusterrole-aggregation-controller']) expect(names).toContain(n);
    const crb = async (name: string) => (await t.json('GET', `${rbac}/clusterrolebindings/${name}`, { headers: admin })).body;
    expect((await crb('cluster-admin')).subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
    expect((await crb('system:basic-user')).subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
    expect((await crb('system:public-info-viewer')).subjects.map((s: { name: string }) => s.name)).toEqual(['system:authenticated', 'system:unauthenticated']);
    expect((await t.json('GET', `${rbac}/namespaces/kube-system/roles/extension-apiserver-authentication-reader`, { headers: admin })).status).toBe(200);
  });

  it('[AC-RBAC-037][AC-RBAC-038][AC-RBAC-039][AC-RBAC-034] admin, edit and view are aggregated at start and follow new labelled roles', async () => {
    const get = async (name: string) => (await t.json('GET', `${rbac}/clusterroles/${name}`, { headers: admin })).body;
    expect((await get('view')).rules.length).toBeGreaterThan(5);
    expect((await get('admin')).rules.length).toBeGreaterThan((await get('edit')).rules.length);
    await t.json('POST', `${rbac}/clusterroles`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'foo-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['foos'], verbs: ['get'] }] },
      headers: admin,
    });
    const rule = { apiGroups: ['example.com'], resources: ['foos'], verbs: ['get'] };
    await vi.waitFor(async () => expect((await get('view')).rules).toContainEqual(rule));
    // edit aggregates view (system:aggregate-to-edit is labelled for it? no: view's label is aggregate-to-edit), admin aggregates edit.
    await vi.waitFor(async () => expect((await get('admin')).rules).toContainEqual(rule));
  });

  it('[AC-RBAC-036] an applied aggregated role that sets rules conflicts with the controller on its next apply', async () => {
    const manifest = JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] }, rules: [] });
    const apply = () => t.json('PATCH', `${rbac}/clusterroles/agg?fieldManager=m1`, { body: manifest, headers: { ...admin, 'content-type': 'application/apply-patch+yaml' } });
    expect((await apply()).status).toBe(201);
    await t.json('POST', `${rbac}/clusterroles`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'part', labels: { 'example.com/agg': 'true' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
      headers: admin,
    });
    await vi.waitFor(async () => expect((await t.json('GET', `${rbac}/clusterroles/agg`, { headers: admin })).body.rules).toHaveLength(1));
    const again = await apply();
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Apply failed with 1 conflict: conflict with "clusterrole-aggregation-controller": .rules');
  });

  it('[AC-RBAC-035] rules written by hand on an aggregated role are overwritten', async () => {
    const view = (await t.json('GET', `${rbac}/clusterroles/view`, { headers: admin })).body;
    const before = view.rules;
    const r = await t.json('PUT', `${rbac}/clusterroles/view`, { body: { ...view, rules: [...view.rules, { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }, headers: admin });
    expect(r.status).toBe(200);
    await vi.waitFor(async () => expect((await t.json('GET', `${rbac}/clusterroles/view`, { headers: admin })).body.rules).toEqual(before));
  });

  const bindNs1 = (role: string) => bind(t, 'ns1', role, { kind: 'ClusterRole', name: role }, [user('alice')]);

  it('[AC-RBAC-070][AC-RBAC-071][AC-RBAC-072] view reads most objects, never Secrets, roles or bindings, and writes nothing', async () => {
    await bindNs1('view');
    const h = { headers: asUser('alice') };
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods', h)).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets', h)).status).toBe(403);
    expect((await t.json('GET', `${rbac}/namespaces/ns1/roles`, h)).status).toBe(403);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('x'), ...h })).status).toBe(403);
  });

  it('[AC-RBAC-067][AC-RBAC-068][AC-RBAC-069] edit writes most objects and reads Secrets, but cannot touch roles or bindings', async () => {
    await bindNs1('edit');
    const h = { headers: asUser('alice') };
    expect((await t.json('POST', '/api/v1/namespaces/ns1/configmaps', { body: cm('x'), ...h })).status).toBe(201);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets', h)).status).toBe(200);
    expect((await t.json('GET', `${rbac}/namespaces/ns1/roles`, h)).status).toBe(403);
    expect((await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'x' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [user('bob')] }, ...h })).status).toBe(403);
  });

  it('[AC-RBAC-062][AC-RBAC-063][AC-RBAC-064][AC-RBAC-065] admin administers its namespace but not quota or the namespace itself', async () => {
    await bindNs1('admin');
    const h = { headers: asUser('alice') };
    expect((await t.json('POST', '/api/v1/namespaces/ns1/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, ...h })).status).toBe(201);
    const r = await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, ...h });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/resourcequotas', { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' } }, ...h })).status).toBe(403);
    expect((await t.json('PATCH', '/api/v1/namespaces/ns1', { body: { metadata: { labels: { a: 'b' } } }, headers: { ...h.headers, 'content-type': 'application/merge-patch+json' } })).status).toBe(403);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/pods', h)).status).toBe(403);
  });

  it('[AC-RBAC-060][AC-RBAC-061] cluster-admin through a RoleBinding is full control of one namespace only', async () => {
    await bindNs1('cluster-admin');
    const h = { headers: asUser('alice') };
    expect((await t.json('DELETE', '/api/v1/namespaces/ns1/configmaps', h)).status).toBe(200);
    expect((await t.json('GET', '/api/v1/namespaces/ns2/pods', h)).status).toBe(403);
    expect((await t.json('GET', '/api/v1/nodes', h)).status).toBe(403);
  });

  it('[AC-RBAC-088] system:monitoring reads health and metrics endpoints only', async () => {
    await bind(t, '', 'mon', { kind: 'ClusterRole', name: 'system:monitoring' }, [user('mon')]);
    expect((await t.request('GET', '/readyz', { headers: asUser('mon') })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/pods', { headers: asUser('mon') })).status).toBe(403);
  });
});

describe('bootstrap reconciliation at start', () => {
  it('[AC-RBAC-048][AC-RBAC-049][AC-RBAC-050] missing rules and subjects come back unless autoupdate is false', async () => {
    const { createMemoryStorage } = await import('./storage/memory');
    const storage = createMemoryStorage();
    const opts = { storage, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) };
    const first = await newTestServer(opts);
    const basic = (await first.json('GET', `${rbac}/clusterroles/system:basic-user`, { headers: admin })).body;
    await first.json('PUT', `${rbac}/clusterroles/system:basic-user`, { body: { ...basic, rules: [] }, headers: admin });
    const crb = (await first.json('GET', `${rbac}/clusterrolebindings/cluster-admin`, { headers: admin })).body;
    await first.json('PUT', `${rbac}/clusterrolebindings/cluster-admin`, { body: { ...crb, subjects: [] }, headers: admin });
    const disc = (await first.json('GET', `${rbac}/clusterroles/system:discovery`, { headers: admin })).body;
    await first.json('PUT', `${rbac}/clusterroles/system:discovery`, { body: { ...disc, metadata: { ...disc.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }, headers: admin });

    const second = await newTestServer({ ...opts, storage });
    // Restored as the missing atomic rules, as upstream's reconciliation adds them.
    const restored = (await second.json('GET', `${rbac}/clusterroles/system:basic-user`, { headers: admin })).body.rules;
    expect(covers(restored, basic.rules).covered).toBe(true);
    expect((await second.json('GET', `${rbac}/clusterrolebindings/cluster-admin`, { headers: admin })).body.subjects).toEqual(crb.subjects);
    expect((await second.json('GET', `${rbac}/clusterroles/system:discovery`, { headers: admin })).body.rules).toEqual([]);
  });
});

describe('privilege escalation prevention', () => {
  let t: TestServer;
  const h = { headers: asUser('alice', 'devs') };
  const roleBody = (name: string, rules: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
  const bindingBody = (name: string, kind: string, roleName: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects: [user('bob')] });
  beforeEach(async () => {
    t = await server();
    await role(t, 'ns1', 'role-writer', [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch', 'get'] },
    ]);
    await bind(t, 'ns1', 'role-writer', { kind: 'Role', name: 'role-writer' }, [user('alice')]);
  });

  it('[AC-RBAC-118][AC-RBAC-119][AC-ERR-011] a role may grant only what its author holds; the 403 lists the missing rules', async () => {
    expect((await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: roleBody('ok', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]), ...h })).status).toBe(201);
    const r = await t.json('POST', `${rbac}/namespaces/ns1/roles`, {
      body: roleBody('more', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete', 'deletecollection'] }, { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
      ...h,
    });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe(
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
      + '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]}\n'
      + '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
    );
    expect(r.body.details).toEqual({ name: 'more', group: 'rbac.authorization.k8s.io', kind: 'roles' });
    // Nothing at another scope either: the user holds nothing in ns2.
    expect((await t.json('GET', `${rbac}/namespaces/ns1/roles/more`, { headers: admin })).status).toBe(404);
  });

  it('[AC-RBAC-119] editing one\'s own role to add permissions is refused, on update and on patch', async () => {
    const own = (await t.json('GET', `${rbac}/namespaces/ns1/roles/role-writer`, h)).body;
    const put = await t.json('PUT', `${rbac}/namespaces/ns1/roles/role-writer`, { body: { ...own, rules: [...own.rules, { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, ...h });
    expect(put.status).toBe(403);
    const patch = await t.json('PATCH', `${rbac}/namespaces/ns1/roles/role-writer`, {
      body: [{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['list'] } }],
      headers: { ...h.headers, 'content-type': 'application/json-patch+json' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toContain('{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}');
    // Labels only: nothing granted beyond what is held, so allowed.
    const label = await t.json('PATCH', `${rbac}/namespaces/ns1/roles/role-writer`, { body: { metadata: { labels: { a: 'b' } } }, headers: { ...h.headers, 'content-type': 'application/merge-patch+json' } });
    expect(label.status).toBe(200);
  });

  it('[AC-RBAC-120][AC-RBAC-046] the escalate verb lifts the check', async () => {
    await role(t, 'ns1', 'escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]);
    await bind(t, 'ns1', 'escalator', { kind: 'Role', name: 'escalator' }, [user('alice')]);
    expect((await t.json('POST', `${rbac}/namespaces/ns1/roles`, { body: roleBody('more', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]), ...h })).status).toBe(201);
  });

  it('[AC-RBAC-121][AC-RBAC-122][AC-RBAC-123][AC-RBAC-045][AC-ERR-011] a binding needs the role\'s permissions or bind on that role (by name)', async () => {
    await role(t, 'ns1', 'pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
    expect((await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: bindingBody('b1', 'Role', 'pod-reader'), ...h })).status).toBe(201);
    const denied = await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: bindingBody('b2', 'ClusterRole', 'admin'), ...h });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/^rolebindings\.rbac\.authorization\.k8s\.io "b2" is forbidden: user "alice" \(groups=\["devs" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
    await role(t, 'ns1', 'binder', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['admin'] }]);
    await bind(t, 'ns1', 'binder', { kind: 'Role', name: 'binder' }, [user('alice')]);
    expect((await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: bindingBody('b2', 'ClusterRole', 'admin'), ...h })).status).toBe(201);
    expect((await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: bindingBody('b3', 'ClusterRole', 'cluster-admin'), ...h })).status).toBe(403);
  });

  it('a binding to a missing role by a user without bind is 404 for the role', async () => {
    const r = await t.json('POST', `${rbac}/namespaces/ns1/rolebindings`, { body: bindingBody('b', 'Role', 'nope'), ...h });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('roles.rbac.authorization.k8s.io "nope" not found');
  });

  it('an aggregationRule needs cluster-admin privileges', async () => {
    await role(t, '', 'cr-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] }]);
    await bind(t, '', 'cr-writer', { kind: 'ClusterRole', name: 'cr-writer' }, [user('alice')]);
    const r = await t.json('POST', `${rbac}/clusterroles`, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } },
      ...h,
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });
});

describe('access reviews', () => {
  let t: TestServer;
  const authz = '/apis/authorization.k8s.io/v1';
  const review = (kind: string, spec: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: 'authorization.k8s.io/v1', kind, spec, ...extra });
  beforeEach(async () => {
    t = await server();
    await role(t, 'ns1', 'cm1-reader', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm1'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'cm1-reader', { kind: 'Role', name: 'cm1-reader' }, [user('alice')]);
  });

  it('[API-REV-001][API-REV-002][API-REV-004][AC-REV-016][AC-REV-017][AC-REV-019][AC-REV-020][AC-REV-030] SelfSubjectAccessReview answers for the caller, with the RBAC reason', async () => {
    const ask = (ra: Record<string, string>) => t.json('POST', `${authz}/selfsubjectaccessreviews`, { body: review('SelfSubjectAccessReview', { resourceAttributes: ra }), headers: asUser('alice') });
    const yes = await ask({ group: '', resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm1' });
    expect(yes.status).toBe(201);
    expect(yes.body).toEqual({
      kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { group: '', resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm1' } },
      status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "cm1-reader/ns1" of Role "cm1-reader" to User "alice"' },
    });
    expect((await ask({ resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm2' })).body.status).toEqual({ allowed: false });
    expect((await ask({ resource: 'configmaps', verb: 'get', namespace: 'ns2', name: 'cm1' })).body.status).toEqual({ allowed: false });
    const masters = await t.json('POST', `${authz}/selfsubjectaccessreviews`, { body: review('SelfSubjectAccessReview', { nonResourceAttributes: { path: '/anything', verb: 'get' } }), headers: admin });
    expect(masters.body.status).toEqual({ allowed: true });
  });

  it('[AC-REV-018] a read-only user is not allowed to delete', async () => {
    const r = await t.json('POST', `${authz}/selfsubjectaccessreviews`, { body: review('SelfSubjectAccessReview', { resourceAttributes: { resource: 'configmaps', verb: 'delete', namespace: 'ns1', name: 'cm1' } }), headers: asUser('alice') });
    expect(r.body.status.allowed).toBe(false);
  });

  it('[AC-REV-023][AC-AUTHZ-010][AC-AUTHZ-011][AC-AUTHZ-013] SubjectAccessReview asks about any user and groups, resource or non-resource', async () => {
    const sar = (spec: unknown) => t.json('POST', `${authz}/subjectaccessreviews`, { body: review('SubjectAccessReview', spec), headers: admin });
    expect((await sar({ user: 'alice', resourceAttributes: { resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm1' } })).body.status.allowed).toBe(true);
    expect((await sar({ user: 'bob', resourceAttributes: { resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm1' } })).body.status).toEqual({ allowed: false });
    const viaGroup = await sar({ user: 'x', groups: ['system:masters'], nonResourceAttributes: { path: '/logs', verb: 'get' } });
    expect(viaGroup.body.status).toEqual({ allowed: true });
    const discovery = await sar({ user: 'x', groups: ['system:authenticated'], nonResourceAttributes: { path: '/apis/apps', verb: 'get' } });
    expect(discovery.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' });
  });

  it('SubjectAccessReview validation answers 422 with upstream\'s messages', async () => {
    const r = await t.json('POST', `${authz}/subjectaccessreviews`, { body: review('SubjectAccessReview', {}), headers: admin });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]');
  });

  it('[AC-REV-024] LocalSubjectAccessReview is bound to the namespace of its URL', async () => {
    const ok = await t.json('POST', `${authz}/namespaces/ns1/localsubjectaccessreviews`, { body: review('LocalSubjectAccessReview', { user: 'alice', resourceAttributes: { resource: 'configmaps', verb: 'get', namespace: 'ns1', name: 'cm1' } }), headers: admin });
    expect(ok.status).toBe(201);
    expect(ok.body.metadata.namespace).toBe('ns1');
    expect(ok.body.status.allowed).toBe(true);
    const other = await t.json('POST', `${authz}/namespaces/ns1/localsubjectaccessreviews`, { body: review('LocalSubjectAccessReview', { user: 'alice', resourceAttributes: { resource: 'configmaps', verb: 'get', namespace: 'ns2', name: 'cm1' } }), headers: admin });
    expect(other.status).toBe(422);
    expect(other.body.message).toBe('LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "ns2": must match metadata.namespace');
  });

  it('[AC-REV-025] SelfSubjectRulesReview lists the caller\'s rules in a namespace', async () => {
    const r = await t.json('POST', `${authz}/selfsubjectrulesreviews`, { body: review('SelfSubjectRulesReview', { namespace: 'ns1' }), headers: asUser('alice') });
    expect(r.status).toBe(201);
    expect(r.body.status.incomplete).toBe(false);
    expect(r.body.status.resourceRules).toContainEqual({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm1'] });
    expect(r.body.status.resourceRules).toContainEqual({ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] });
    expect(r.body.status.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] });
    const noNs = await t.json('POST', `${authz}/selfsubjectrulesreviews`, { body: review('SelfSubjectRulesReview', {}), headers: asUser('alice') });
    expect(noNs.status).toBe(400);
    expect(noNs.body.message).toBe('no namespace on request');
  });

  it('[API-REV-003] reviews cannot be read back', async () => {
    expect((await t.json('GET', `${authz}/subjectaccessreviews`, { headers: admin })).status).toBe(405);
  });

  it('anonymous callers may not create access reviews', async () => {
    const r = await t.json('POST', `${authz}/selfsubjectaccessreviews`, { body: review('SelfSubjectAccessReview', { resourceAttributes: { resource: 'pods', verb: 'get' } }) });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
  });
});

describe('ABAC', () => {
  it('[AC-AUTHZ-034] a policy file allows what its lines say; read-only policies allow only reads', async () => {
    const { abacAuthorizer, parsePolicyFile } = await import('./auth/abac/abac');
    const policies = parsePolicyFile([
      '# comment',
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}',
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "ns1", "resource": "pods", "apiGroup": "", "readonly": true}}',
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "readonly": true, "nonResourcePath": "*"}}',
    ].join('\n'));
    const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['ABAC'], { ABAC: abacAuthorizer(policies) }) });
    expect((await t.json('POST', '/api/v1/namespaces/default/configmaps', { body: cm('x'), headers: asUser('alice') })).status).toBe(201);
    expect((await t.json('GET', '/api/v1/namespaces/ns1/pods', { headers: asUser('bob', 'system:authenticated') })).status).toBe(200);
    const w = await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: {}, headers: asUser('bob', 'system:authenticated') });
    expect(w.status).toBe(403);
    expect(w.body.message).toBe('pods is forbidden: User "bob" cannot create resource "pods" in API group "" in the namespace "ns1": No policy matched.');
    expect((await t.json('GET', '/apis', { headers: asUser('bob', 'system:authenticated') })).status).toBe(200);
    expect(() => parsePolicyFile('{bad')).toThrow(/^error reading policy file: line 1: /);
  });
});

describe('Node authorizer', () => {
  let t: TestServer;
  const n1 = asUser('system:node:n1', 'system:nodes', 'system:authenticated');
  const podOn = (name: string, node: string, volumes: unknown[] = [], extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { nodeName: node, serviceAccountName: 'sa1', containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }] }], volumes, ...extra },
  });
  beforeEach(async () => {
    t = await server(['Node', 'RBAC']);
    const post = async (path: string, body: unknown) => expect((await t.json('POST', path, { body, headers: admin })).status).toBe(201);
    for (const n of ['n1', 'n2']) await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: n } });
    // The pods' ServiceAccount exists: ServiceAccount admission refuses a pod naming a missing one.
    await post('/api/v1/namespaces/ns1/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } });
    await post('/api/v1/namespaces/ns1/pods', podOn('p1', 'n1', [{ name: 's', secret: { secretName: 's1' } }, { name: 'd', persistentVolumeClaim: { claimName: 'claim1' } }]));
    await post('/api/v1/namespaces/ns1/pods', podOn('p2', 'n2', [{ name: 's', secret: { secretName: 's2' } }]));
    for (const s of ['s1', 's2']) await post('/api/v1/namespaces/ns1/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: s } });
    for (const c of ['env-cm', 'other-cm']) await post('/api/v1/namespaces/ns1/configmaps', cm(c));
    await post('/api/v1/namespaces/ns1/persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv1' } });
  });
  const get = (path: string, headers = n1) => t.json('GET', path, { headers });

  it('[AC-NODE-002][AC-NODE-005][AC-NODE-018] a node reads its own Node object only', async () => {
    expect((await get('/api/v1/nodes/n1')).status).toBe(200);
    const other = await get('/api/v1/nodes/n2');
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node \'n1\' cannot read \'n2\', only its own Node object');
    // Without the system:nodes group the user is no node.
    expect((await get('/api/v1/nodes/n1', asUser('system:node:n1'))).status).toBe(403);
    expect((await get('/api/v1/nodes/N1', n1)).status).toBe(403);
  });

  it('[AC-NODE-006][AC-NODE-007][AC-NODE-008][AC-NODE-009][AC-NODE-010] a node reads the Pods bound to it and what they reference, nothing else', async () => {
    expect((await get('/api/v1/namespaces/ns1/pods/p1')).status).toBe(200);
    expect((await get('/api/v1/namespaces/ns1/pods/p2')).status).toBe(403);
    expect((await get('/api/v1/namespaces/ns1/pods?fieldSelector=spec.nodeName%3Dn1')).status).toBe(200);
    expect((await get('/api/v1/namespaces/ns1/pods')).body.message).toMatch(/: can only list\/watch pods with spec.nodeName field selector$/);
    expect((await get('/api/v1/namespaces/ns1/secrets/s1')).status).toBe(200);
    const s2 = await get('/api/v1/namespaces/ns1/secrets/s2');
    expect(s2.status).toBe(403);
    expect(s2.body.message).toBe('secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "ns1": no relationship found between node \'n1\' and this object');
    expect((await get('/api/v1/namespaces/ns1/configmaps/env-cm')).status).toBe(200);
    expect((await get('/api/v1/namespaces/ns1/configmaps/other-cm')).status).toBe(403);
    expect((await get('/api/v1/namespaces/ns1/persistentvolumeclaims/claim1')).status).toBe(200);
    expect((await get('/api/v1/persistentvolumes/pv1')).status).toBe(404);
    expect((await get('/api/v1/persistentvolumes/pv2')).status).toBe(403);
  });

  it('[AC-NODE-003][AC-NODE-004][AC-NODE-012][AC-NODE-013][AC-NODE-014][AC-NODE-016][AC-NODE-017] static node rules: services, endpoints, events, reviews, node and pod status', async () => {
    expect((await get('/api/v1/services')).status).toBe(200);
    expect((await get('/api/v1/namespaces/ns1/endpoints/x')).status).toBe(404);
    expect((await t.json('POST', '/api/v1/namespaces/ns1/events', { body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Node', name: 'n1' } }, headers: n1 })).status).not.toBe(403);
    expect((await t.json('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'x', nonResourceAttributes: { path: '/', verb: 'get' } } }, headers: n1 })).status).toBe(201);
    expect((await t.json('PATCH', '/api/v1/nodes/n1/status', { body: { status: { phase: 'Running' } }, headers: { ...n1, 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    expect((await t.json('DELETE', '/api/v1/namespaces/ns1/secrets/s1', { headers: n1 })).status).toBe(403);
  });

  it('[AC-NODE-019] the node name in the user name must match the Node exactly: case differs, no access', async () => {
    const upper = asUser('system:node:N1', 'system:nodes', 'system:authenticated');
    const r = await get('/api/v1/nodes/n1', upper);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('nodes "n1" is forbidden: User "system:node:N1" cannot get resource "nodes" in API group "" at the cluster scope: node \'N1\' cannot read \'n1\', only its own Node object');
    expect((await get('/api/v1/namespaces/ns1/pods/p1', upper)).status).toBe(403);
    expect((await get('/api/v1/namespaces/ns1/pods/p1')).status).toBe(200);
  });

  it('[AC-NODE-015] a node creates CertificateSigningRequests and reads them back, for TLS bootstrapping', async () => {
    const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const request = btoa(testCertificateRequestPem);
    const csr = { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'node-csr-n1' }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] } };
    const made = await t.json('POST', path, { body: csr, headers: n1 });
    expect(made.status).toBe(201);
    expect((await get(`${path}/node-csr-n1`)).status).toBe(200);
    expect((await get(path)).status).toBe(200);
    // Approving is not a node's business.
    expect((await t.json('PUT', `${path}/node-csr-n1/approval`, { body: made.body, headers: n1 })).status).toBe(403);
  });

  it('[AC-NODE-025] a node gets tokens for the audiences a CSI driver of its Pods requests', async () => {
    const nr = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']), nodeRestriction: true });
    const post = async (path: string, body: unknown) => {
      const r = await nr.json('POST', path, { body, headers: admin });
      expect(r.status).toBe(201);
      return r.body;
    };
    await post('/apis/storage.k8s.io/v1/csidrivers', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: { tokenRequests: [{ audience: 'csi-aud' }] } });
    const pod = await post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' },
      spec: { nodeName: 'n1', serviceAccountName: 'default', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', csi: { driver: 'csi.example.com' } }] },
    });
    const request = (audience: string) => nr.json('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [audience], boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: pod.metadata.uid } } }, headers: n1,
    });
    const ok = await request('csi-aud');
    expect(ok.status).toBe(201);
    expect(ok.body.spec.audiences).toEqual(['csi-aud']);
    expect((await request('other-aud')).status).toBe(403);
  });

  it('[AC-NODE-020] without the Node mode a node gets only what RBAC grants', async () => {
    const rbacOnly = await server(['RBAC']);
    expect((await rbacOnly.json('GET', '/api/v1/nodes/n1', { headers: n1 })).status).toBe(403);
  });

  it('service account tokens only for service accounts of its pods; rules reviews are incomplete for nodes', async () => {
    const token = (sa: string) => t.json('POST', `/api/v1/namespaces/ns1/serviceaccounts/${sa}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }, headers: n1 });
    expect((await token('sa2')).body.message).toMatch(/: no relationship found between node 'n1' and this object$/);
    const r = await t.json('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns1' } }, headers: n1 });
    expect(r.body.status.incomplete).toBe(true);
    expect(r.body.status.evaluationError).toBe('node authorizer does not support user rule resolution');
  });
});

describe('webhook authorizers from an AuthorizationConfiguration', () => {
  type Review = { apiVersion: string; kind: string; spec: Record<string, any> };
  const webhook = (over: Record<string, unknown> = {}) => ({
    type: 'Webhook', name: 'hook',
    webhook: {
      timeout: '3s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/hook.kubeconfig' }, ...over,
    },
  });
  const config = (authorizers: unknown[]) => ({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers });

  async function withHook(authorizers: unknown[], answer: (r: Review) => unknown) {
    const { loadAuthorizationConfiguration } = await import('./auth/authorizer/config');
    const received: Review[] = [];
    const loaded = loadAuthorizationConfiguration(config(authorizers), {
      transportFor: () => async (review) => {
        received.push(review as Review);
        const a = answer(review as Review);
        if (a instanceof Error) throw a;
        return a;
      },
    });
    const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: loaded.factory });
    return { t, received, loaded };
  }
  const sar = (version: string, status: unknown) => ({ apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', status });

  it('[AC-AUTHZ-004][AC-AUTHZ-051][AC-AUTHZ-012][AC-AUTHZ-060][AC-AUTHZ-062] the webhook gets a SubjectAccessReview of the configured version and decides', async () => {
    const { t, received } = await withHook([webhook()], (r) => sar('v1', { allowed: r.spec['user'] === 'alice', reason: 'hook says so' }));
    expect((await t.json('GET', '/api/v1/namespaces/default/pods?labelSelector=a%3Db', { headers: asUser('alice', 'g1') })).status).toBe(200);
    expect(received[0]).toEqual({
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: null },
      spec: { user: 'alice', groups: ['g1', 'system:authenticated'], resourceAttributes: { namespace: 'default', verb: 'list', group: '', version: 'v1', resource: 'pods', subresource: '', name: '', labelSelector: { rawSelector: 'a=b' } } },
      status: { allowed: false },
    });
    const denied = await t.json('GET', '/api/v1/namespaces/default/pods', { headers: asUser('bob') });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default": hook says so');
  });

  it('[AC-AUTHZ-036] the request waits for the webhook\'s answer', async () => {
    let answer: (v: unknown) => void = () => {};
    let asked: () => void = () => {};
    const called = new Promise<void>((r) => (asked = r));
    const { t } = await withHook([webhook()], () => {
      asked();
      return new Promise((r) => (answer = r));
    });
    let settled = false;
    const pending = t.json('GET', '/api/v1/namespaces/default/pods', { headers: asUser('alice') }).then((r) => {
      settled = true;
      return r;
    });
    await called;
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    answer(sar('v1', { allowed: true }));
    expect((await pending).status).toBe(200);
  });

  it('v1beta1 reviews carry groups as `group`', async () => {
    const { t, received } = await withHook([webhook({ subjectAccessReviewVersion: 'v1beta1' })], () => sar('v1beta1', { allowed: true }));
    await t.json('GET', '/version', { headers: asUser('alice', 'g1') });
    expect(received[0]!.apiVersion).toBe('authorization.k8s.io/v1beta1');
    expect(received[0]!.spec).toEqual({ user: 'alice', group: ['g1', 'system:authenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } });
  });

  it('[AC-REV-021][AC-AUTHZ-007] an explicit deny stops the chain: RBAC after it is not asked; status.denied in reviews', async () => {
    const { t } = await withHook([webhook(), { type: 'RBAC', name: 'rbac' }], (r) => sar('v1', { allowed: false, denied: r.spec['user'] === 'alice', reason: 'no alice' }));
    await bind(t, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    expect((await t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') })).status).toBe(403);
    expect((await t.json('GET', '/api/v1/namespaces', { headers: asUser('bob') })).status).toBe(403);
    const review = await t.json('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'namespaces' } } }, headers: admin,
    });
    expect(review.body.status).toEqual({ allowed: false, denied: true, reason: 'no alice' });
    const { t: reversed } = await withHook([{ type: 'RBAC', name: 'rbac' }, webhook()], () => sar('v1', { allowed: false, denied: true }));
    await bind(reversed, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    expect((await reversed.json('GET', '/api/v1/namespaces', { headers: asUser('alice') })).status).toBe(200);
  });

  it('[AC-AUTHZ-037] system:masters bypasses a webhook that denies everything', async () => {
    const { t, received } = await withHook([webhook()], () => sar('v1', { denied: true }));
    expect((await t.json('GET', '/api/v1/namespaces', { headers: admin })).status).toBe(200);
    expect(received).toHaveLength(0);
  });

  it('[AC-AUTHZ-046][AC-AUTHZ-047][AC-AUTHZ-048][AC-AUTHZ-049] allow and deny answers are cached unless switched off', async () => {
    const cached = await withHook([webhook()], (r) => sar('v1', { allowed: r.spec['user'] === 'alice' }));
    for (let i = 0; i < 3; i++) await cached.t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') });
    for (let i = 0; i < 3; i++) await cached.t.json('GET', '/api/v1/namespaces', { headers: asUser('bob') });
    expect(cached.received).toHaveLength(2);
    const uncached = await withHook([webhook({ cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false })], (r) => sar('v1', { allowed: r.spec['user'] === 'alice' }));
    for (let i = 0; i < 3; i++) await uncached.t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') });
    for (let i = 0; i < 3; i++) await uncached.t.json('GET', '/api/v1/namespaces', { headers: asUser('bob') });
    expect(uncached.received).toHaveLength(6);
  });

  it('[AC-AUTHZ-054][AC-AUTHZ-055][AC-AUTHZ-008][AC-ERR-005] a failing or malformed webhook follows failurePolicy', async () => {
    // Deny stops the chain; the failure is the authorizer's error, so kube-apiserver answers 500, not 403.
    const down = await withHook([webhook({ failurePolicy: 'Deny' }), { type: 'RBAC', name: 'rbac' }], () => new Error('connection refused'));
    await bind(down.t, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    const denied = await down.t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') });
    expect(denied.status).toBe(500);
    expect(denied.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500, message: 'Internal error occurred: connection refused' });
    // NoOpinion lets RBAC decide: its Allow wins over the error; without one the error stands.
    const open = await withHook([webhook({ failurePolicy: 'NoOpinion' }), { type: 'RBAC', name: 'rbac' }], () => ({ not: 'a review' }));
    await bind(open.t, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    expect((await open.t.json('GET', '/api/v1/namespaces', { headers: asUser('alice') })).status).toBe(200);
    expect((await open.t.json('GET', '/api/v1/namespaces', { headers: asUser('bob') })).status).toBe(500);
    // Every module answering without an opinion (and without error) is a 403.
    const none = await withHook([webhook(), { type: 'RBAC', name: 'rbac' }], () => sar('v1', { allowed: false }));
    expect((await none.t.json('GET', '/api/v1/namespaces', { headers: asUser('bob') })).status).toBe(403);
  });

  it('[AC-AUTHZ-061][AC-AUTHZ-063][AC-AUTHZ-056] match conditions: a false skips the webhook, an error follows failurePolicy', async () => {
    const skip = await withHook([webhook({ matchConditions: [{ expression: 'has(request.resourceAttributes)' }, { expression: "request.user != 'system:anonymous'" }] })], () => sar('v1', { allowed: true }));
    await skip.t.json('GET', '/version', { headers: asUser('alice') });
    await skip.t.json('GET', '/api/v1/pods');
    expect(skip.received).toHaveLength(0);
    await skip.t.json('GET', '/api/v1/pods', { headers: asUser('alice') });
    expect(skip.received).toHaveLength(1);
    const failing = "request.resourceAttributes.namespace == 'x'";
    const deny = await withHook([webhook({ failurePolicy: 'Deny', matchConditions: [{ expression: failing }] }), { type: 'RBAC', name: 'rbac' }], () => sar('v1', { allowed: true }));
    await bind(deny.t, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    // A non-resource request has no resourceAttributes: the condition errors, and Deny ends the chain with that error.
    const erred = await deny.t.json('GET', '/logs', { headers: asUser('alice') });
    expect(erred.status).toBe(500);
    expect(erred.body.reason).toBe('InternalError');
    expect(deny.received).toHaveLength(0);
    const noOpinion = await withHook([webhook({ matchConditions: [{ expression: failing }] }), { type: 'RBAC', name: 'rbac' }], () => sar('v1', { allowed: true }));
    await bind(noOpinion.t, '', 'alice-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('alice')]);
    expect((await noOpinion.t.json('GET', '/logs', { headers: asUser('alice') })).status).not.toBe(403);
    expect(noOpinion.received).toHaveLength(0);
  });

  it('[AC-AUTHZ-043][AC-AUTHZ-044][AC-AUTHZ-045][AC-AUTHZ-050][AC-AUTHZ-051][AC-AUTHZ-052][AC-AUTHZ-053][AC-AUTHZ-057][AC-AUTHZ-058][AC-AUTHZ-059] configuration validation', async () => {
    const { loadAuthorizationConfiguration } = await import('./auth/authorizer/config');
    const load = (doc: unknown) => () => loadAuthorizationConfiguration(doc, { transportFor: () => async () => ({}) });
    expect(load({ ...config([]), kind: 'Nope' })).toThrow('no kind "Nope" is registered for version "apiserver.config.k8s.io/v1" in scheme');
    expect(load(config([{ type: 'Foo', name: 'x' }]))).toThrow('authorizers[0].type: Unsupported value: "Foo": supported values: "Node", "RBAC", "Webhook"');
    expect(load(config([{ type: 'RBAC' }]))).toThrow('authorizers[0].name: Required value');
    expect(load(config([{ type: 'RBAC', name: 'Bad_Name' }]))).toThrow('authorizers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of');
    expect(load(config([{ type: 'RBAC', name: 'a' }, { type: 'RBAC', name: 'b' }]))).toThrow('authorizers[1].type: Duplicate value: "RBAC"');
    expect(load(config([webhook({ timeout: '31s' })]))).toThrow('authorizers[0].webhook.timeout: Invalid value: "31s": must be <= 30s');
    expect(load(config([webhook({ timeout: undefined })]))).toThrow('authorizers[0].webhook.timeout: Required value');
    expect(load(config([webhook({ subjectAccessReviewVersion: undefined })]))).toThrow('authorizers[0].webhook.subjectAccessReviewVersion: Required value');
    expect(load(config([webhook({ matchConditionSubjectAccessReviewVersion: 'v1beta1' })]))).toThrow('authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"');
    expect(load(config([webhook({ failurePolicy: undefined })]))).toThrow('authorizers[0].webhook.failurePolicy: Required value');
    expect(load(config([webhook({ connectionInfo: { type: 'KubeConfigFile' } })]))).toThrow('authorizers[0].webhook.connectionInfo.kubeConfigFile: Required value');
    expect(load(config([webhook({ connectionInfo: { type: 'InClusterConfig' } })]))).toThrow('authorizers[0].webhook.connectionInfo.type: Unsupported value: "InClusterConfig": supported values: "KubeConfigFile"');
    const many = Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != 'u${i}'` }));
    expect(load(config([webhook({ matchConditions: many })]))).toThrow('authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items');
    expect(load(config([webhook({ matchConditions: [{ expression: 'request.nope' }] })]))).toThrow(/^authorizers\[0\]\.webhook\.matchConditions\[0\]\.expression: Invalid value: "request.nope": compilation failed: ERROR: <input>:1:8: undefined field 'nope'/);
    expect(load(config([{ type: 'RBAC', name: 'rbac', webhook: {} }]))).toThrow('authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook');
  });
});

describe('NodeRestriction', () => {
  it('[AC-NODE-021][AC-NODE-012][AC-NODE-013] a node writes only its own Node and the Pods bound to it', async () => {
    const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']), nodeRestriction: true });
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }, headers: admin });
    const n1 = asUser('system:node:n1', 'system:nodes', 'system:authenticated');
    const merge = { ...n1, 'content-type': 'application/merge-patch+json' };
    const pod = (name: string, node: string, annotations?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }] } });
    expect((await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, headers: n1 })).status).toBe(201);
    const other = await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } }, headers: n1 });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } }, headers: admin });
    expect((await t.json('PATCH', '/api/v1/nodes/n1/status', { body: { status: { phase: 'Running' } }, headers: merge })).status).toBe(200);
    expect((await t.json('PATCH', '/api/v1/nodes/n2/status', { body: { status: { phase: 'Running' } }, headers: merge })).status).toBe(403);

    const plain = await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p', 'n1'), headers: n1 });
    expect(plain.body.message).toBe('pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    const elsewhere = await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('m2', 'n2', { 'kubernetes.io/config.mirror': 'x' }), headers: n1 });
    expect(elsewhere.body.message).toBe('pods "m2" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
    expect((await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('m1', 'n1', { 'kubernetes.io/config.mirror': 'x' }), headers: n1 })).status).toBe(201);
    await t.json('POST', '/api/v1/namespaces/ns1/pods', { body: pod('p2', 'n2'), headers: admin });
    expect((await t.json('PATCH', '/api/v1/namespaces/ns1/pods/m1/status', { body: { status: { phase: 'Running' } }, headers: merge })).status).toBe(200);
    const status = await t.json('PATCH', '/api/v1/namespaces/ns1/pods/p2/status', { body: { status: { phase: 'Running' } }, headers: merge });
    expect(status.body.message).toBe('pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    const del = await t.json('DELETE', '/api/v1/namespaces/ns1/pods/p2', { headers: n1 });
    expect(del.body.message).toBe('pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    expect((await t.json('DELETE', '/api/v1/namespaces/ns1/pods/m1', { headers: n1 })).status).toBe(200);
  });
});

describe('NodeRestriction on TokenRequests', () => {
  it('[AC-NODE-022] [AC-NODE-023] [AC-NODE-024] [AC-NODE-026] [AC-NODE-027] [AC-NODE-001] a node gets tokens only bound to its own Pods, for the API audience, audiences they reference, or ones RBAC grants', async () => {
    const t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']), nodeRestriction: true });
    const n1 = asUser('system:node:n1', 'system:nodes', 'system:authenticated');
    const pod = (name: string, node: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: {
        nodeName: node, serviceAccountName: 'default', containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'vault-token', mountPath: '/var/run/vault' }] }],
        volumes: [{ name: 'vault-token', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 'token' } }] } }],
      },
    });
    const p1 = (await t.json('POST', '/api/v1/namespaces/default/pods', { body: pod('p1', 'n1'), headers: admin })).body;
    const p2 = (await t.json('POST', '/api/v1/namespaces/default/pods', { body: pod('p2', 'n2'), headers: admin })).body;
    const request = (spec: Record<string, unknown>) =>
      t.json('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }, headers: n1 });
    const bound = (p: { metadata: { name: string; uid: string } }) => ({ apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, uid: p.metadata.uid });

    expect((await request({})).body.message).toBe('serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    expect((await request({ boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p1' } })).body.message).toBe('serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid');
    expect((await request({ boundObjectRef: bound(p2), audiences: ['vault'] })).body.message).toBe('serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    expect((await request({ boundObjectRef: bound(p1) })).status).toBe(201);
    const ok = await request({ boundObjectRef: bound(p1), audiences: ['vault'] });
    expect(ok.status).toBe(201);
    expect(ok.body.spec.audiences).toEqual(['vault']);
    const other = await request({ boundObjectRef: bound(p1), audiences: ['registry.example'] });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('serviceaccounts "default" is forbidden: audience "registry.example" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience');
    expect((await request({ boundObjectRef: bound(p1), audiences: ['a', 'b'] })).body.message).toBe('serviceaccounts "default" is forbidden: node may only request 0 or 1 audiences');

    // An administrator grants the audience with the request-serviceaccounts-token-audience verb.
    await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'registry-audience' }, rules: [{ apiGroups: [''], resources: ['registry.example'], verbs: ['request-serviceaccounts-token-audience'] }] }, headers: admin });
    await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'nodes-registry-audience' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'registry-audience' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }],
    }, headers: admin });
    expect((await request({ boundObjectRef: bound(p1), audiences: ['registry.example'] })).status).toBe(201);
  });
});

describe('dry run', () => {
  it('[API-DRY-014] a dry-run write is authorized like the real one', async () => {
    const t = await server();
    await role(t, 'ns1', 'reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bind(t, 'ns1', 'reader', { kind: 'Role', name: 'reader' }, [user('alice')]);
    const r = await t.json('POST', '/api/v1/namespaces/ns1/configmaps?dryRun=All', { body: cm('x'), headers: asUser('alice') });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "ns1"');
  });
});

describe('special verbs and defaults seen through reviews', () => {
  it('[AC-AUTHZ-023][AC-AUTHZ-024][AC-AUTHZ-025][AC-AUTHZ-026][AC-AUTHZ-027][AC-AUTHZ-028][AC-AUTHZ-029][AC-AUTHZ-030][AC-NODE-028] RBAC matches any verb and sub-resource, including proxy, redirect and node-aware DRA verbs', async () => {
    const t = await server();
    await role(t, '', 'special', [
      { apiGroups: [''], resources: ['nodes/proxy'], verbs: ['proxy'] },
      { apiGroups: [''], resources: ['services'], verbs: ['redirect'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims/binding', 'resourceclaims/driver'], verbs: ['update'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims/status'], verbs: ['associated-node:update', 'associated-node:patch', 'arbitrary-node:update', 'arbitrary-node:patch'] },
      { apiGroups: [''], resources: ['vault'], resourceNames: ['sa1'], verbs: ['request-serviceaccounts-token-audience'] },
    ]);
    await bind(t, '', 'special', { kind: 'ClusterRole', name: 'special' }, [user('alice')]);
    const can = async (ra: Record<string, string>) => (await t.json('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes: ra } }, headers: admin,
    })).body.status.allowed;
    expect(await can({ verb: 'proxy', resource: 'nodes', subresource: 'proxy', name: 'n1' })).toBe(true);
    expect(await can({ verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'n1' })).toBe(false);
    expect(await can({ verb: 'redirect', resource: 'services', namespace: 'ns1', name: 's' })).toBe(true);
    expect(await can({ verb: 'update', group: 'resource.k8s.io', resource: 'resourceclaims', subresource: 'binding', namespace: 'ns1', name: 'c' })).toBe(true);
    expect(await can({ verb: 'update', group: 'resource.k8s.io', resource: 'resourceclaims', subresource: 'driver', namespace: 'ns1', name: 'c' })).toBe(true);
    expect(await can({ verb: 'update', group: 'resource.k8s.io', resource: 'resourceclaims', namespace: 'ns1', name: 'c' })).toBe(false);
    for (const verb of ['associated-node:update', 'associated-node:patch', 'arbitrary-node:update', 'arbitrary-node:patch']) {
      expect(await can({ verb, group: 'resource.k8s.io', resource: 'resourceclaims', subresource: 'status', namespace: 'ns1', name: 'c' })).toBe(true);
    }
    expect(await can({ verb: 'request-serviceaccounts-token-audience', resource: 'vault', namespace: 'ns1', name: 'sa1' })).toBe(true);
    expect(await can({ verb: 'request-serviceaccounts-token-audience', resource: 'vault', namespace: 'ns1', name: 'sa2' })).toBe(false);
  });

  it('[AC-RBAC-117] a service account outside kube-system holds only the discovery roles', async () => {
    const t = await server();
    const sa = asUser('system:serviceaccount:ns1:default', 'system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated');
    const r = await t.json('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'ns1' } } }, headers: sa });
    expect(r.body.status).toEqual({ allowed: false });
    expect((await t.json('GET', '/version', { headers: sa })).status).toBe(200);
    expect((await t.json('GET', '/apis', { headers: sa })).status).toBe(200);
  });

  it('[AC-RBAC-047] list grants the full objects, Secret data included', async () => {
    const t = await server();
    await t.json('POST', '/api/v1/namespaces/ns1/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } }, headers: admin });
    await role(t, 'ns1', 'lister', [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
    await bind(t, 'ns1', 'lister', { kind: 'Role', name: 'lister' }, [user('alice')]);
    const r = await t.json('GET', '/api/v1/namespaces/ns1/secrets', { headers: asUser('alice') });
    expect(r.body.items[0].data).toEqual({ k: 'dg==' });
    expect((await t.json('GET', '/api/v1/namespaces/ns1/secrets/s', { headers: asUser('alice') })).status).toBe(403);
  });
});
