/** Impersonation headers through handle(): the switched user, the `impersonate` checks, and the header errors. */
import { describe, expect, it } from 'vitest';
import type { Attributes, Authorizer } from '../../auth/authorizer/types';
import { parseTokenFile } from '../../auth/authenticator/tokenfile';
import { newTestServer } from '../../testing/client';

const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const tokenFile = parseTokenFile('admin,root,r1,system:masters\nalice,alice,a1\n');

/** Allows root everything and alice only the impersonations `grants` lists (`resource/subresource:name`). */
function authorizer(grants: string[], seen: Attributes[] = []): Authorizer {
  return {
    name: 'test',
    authorize(attrs) {
      seen.push(attrs);
      // Only the impersonate checks are under test; every other request is allowed.
      if (attrs.verb !== 'impersonate' || attrs.user.groups.includes('system:masters')) return { decision: 'Allow', reason: '' };
      const key = `${attrs.apiGroup}/${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}:${attrs.name}`;
      return grants.includes(key) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
}

async function review(t: Awaited<ReturnType<typeof newTestServer>>, token: string, headers: Record<string, string>) {
  return t.json('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: whoami, headers: { authorization: `Bearer ${token}`, ...headers } });
}

describe('impersonation', () => {
  it('[AC-IMP-001] [AC-IMP-004] [AC-IMP-005] [AC-IMP-007] [AC-IMP-009] [AC-IMP-010] [AC-IMP-003] user, groups, extras and uid are what SelfSubjectReview shows', async () => {
    const t = await newTestServer({ authentication: { tokenFile }, authorizer: authorizer([]) });
    const r = await t.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: whoami,
      headers: Object.fromEntries([
        ['authorization', 'Bearer admin'], ['impersonate-user', 'bob'], ['impersonate-uid', '123'],
        ['impersonate-extra-scopes', 'view'], ['impersonate-extra-acme.com%2fproject', 'p1'],
      ]),
    });
    // Repeated Impersonate-Group fields.
    const h = new Headers({ authorization: 'Bearer admin', 'impersonate-user': 'bob', 'content-type': 'application/json' });
    h.append('impersonate-group', 'g1');
    h.append('impersonate-group', 'g2');
    const g = await t.server.handle(new Request('http://x/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', headers: h, body: JSON.stringify(whoami) }));
    expect((await r.json()).status.userInfo).toEqual({ username: 'bob', uid: '123', groups: ['system:authenticated'], extra: { 'acme.com/project': ['p1'], scopes: ['view'] } });
    expect((await g.json()).status.userInfo).toEqual({ username: 'bob', groups: ['g1', 'g2', 'system:authenticated'] });
  });

  it('[AC-IMP-017] a service account user gets its groups and is checked as serviceaccounts in its namespace', async () => {
    const seen: Attributes[] = [];
    const t = await newTestServer({ authentication: { tokenFile }, authorizer: authorizer(['/serviceaccounts:sa1'], seen) });
    const r = await review(t, 'alice', { 'impersonate-user': 'system:serviceaccount:ns1:sa1' });
    expect(r.body.status.userInfo).toEqual({ username: 'system:serviceaccount:ns1:sa1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] });
    expect(seen.find((a) => a.verb === 'impersonate')).toMatchObject({ resource: 'serviceaccounts', namespace: 'ns1', name: 'sa1', apiGroup: '' });
  });

  it('[AC-IMP-002] [AC-IMP-015] [AC-IMP-016] [AC-IMP-018] [AC-IMP-019] [AC-IMP-020] each value needs impersonate on its resource; a denial is 403 naming it', async () => {
    const t = await newTestServer({ authentication: { tokenFile }, authorizer: authorizer(['/users:bob']) });
    expect((await review(t, 'alice', { 'impersonate-user': 'bob' })).body.status.userInfo.username).toBe('bob');
    const other = await review(t, 'alice', { 'impersonate-user': 'carol' });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: 'carol', kind: 'users' },
    });
    const group = await review(t, 'alice', { 'impersonate-user': 'bob', 'impersonate-group': 'g1' });
    expect(group.body.message).toBe('groups "g1" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const extra = await review(t, 'alice', { 'impersonate-user': 'bob', 'impersonate-extra-scopes': 'view' });
    expect(extra.body.message).toBe('userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    expect(extra.body.details).toEqual({ name: 'view', group: 'authentication.k8s.io', kind: 'userextras' });
    const uid = await review(t, 'alice', { 'impersonate-user': 'bob', 'impersonate-uid': 'u9' });
    expect(uid.body.message).toBe('uids.authentication.k8s.io "u9" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('[AC-IMP-006] [AC-IMP-008] [AC-IMP-010] groups, extras or a uid without a user: 500 as plain text', async () => {
    const t = await newTestServer({ authentication: { tokenFile } });
    const r = await t.request('GET', '/api/v1/namespaces?limit=1', { headers: { authorization: 'Bearer admin', 'impersonate-group': 'g1' } });
    expect(r.status).toBe(500);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await r.text()).toBe('Internal Server Error: "/api/v1/namespaces?limit=1": requested [{Group  g1    }] without impersonating a user\n');
    const u = await t.request('GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer admin', 'impersonate-uid': 'u1' } });
    expect(await u.text()).toBe('Internal Server Error: "/api/v1/namespaces": requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user\n');
  });

  it('impersonating system:anonymous gives system:unauthenticated; explicit groups are kept as given', async () => {
    const t = await newTestServer({ authentication: { tokenFile } });
    expect((await review(t, 'admin', { 'impersonate-user': 'system:anonymous' })).body.status.userInfo).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect((await review(t, 'admin', { 'impersonate-user': 'x', 'impersonate-group': 'system:unauthenticated' })).body.status.userInfo.groups).toEqual(['system:unauthenticated']);
  });
});

describe('impersonation granted through RBAC', () => {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const rules = [
    { apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes', 'uids'], verbs: ['impersonate'] },
  ];
  const subject = (name: string) => [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name }];
  const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: 'impersonator' });

  async function server() {
    const { authorizerFromModes } = await import('../../auth/authorizer/modes');
    const t = await newTestServer({ authentication: { tokenFile: parseTokenFile('admin,root,r1,system:masters\nalice,alice,a1\ncarol,carol,c1\n') }, authorizer: authorizerFromModes(['RBAC']) });
    const as = { headers: { authorization: 'Bearer admin' } };
    const create = async (path: string, body: Record<string, unknown>) => expect((await t.json('POST', path, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', ...body }, ...as })).status).toBe(201);
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }, ...as });
    // alice: the rules through a ClusterRole and ClusterRoleBinding; carol: the same rules through a Role and RoleBinding.
    await create(`${rbac}/clusterroles`, { kind: 'ClusterRole', metadata: { name: 'impersonator' }, rules });
    await create(`${rbac}/clusterrolebindings`, { kind: 'ClusterRoleBinding', metadata: { name: 'alice-impersonates' }, roleRef: roleRef('ClusterRole'), subjects: subject('alice') });
    await create(`${rbac}/namespaces/ns1/roles`, { kind: 'Role', metadata: { name: 'impersonator' }, rules });
    await create(`${rbac}/namespaces/ns1/rolebindings`, { kind: 'RoleBinding', metadata: { name: 'carol-impersonates' }, roleRef: roleRef('Role'), subjects: subject('carol') });
    return t;
  }

  it('[AC-IMP-022] the impersonate verb on users, groups, serviceaccounts, userextras and uids', async () => {
    const t = await server();
    const r = await review(t, 'alice', { 'impersonate-user': 'bob', 'impersonate-group': 'g1', 'impersonate-extra-scopes': 'view', 'impersonate-uid': 'u9' });
    expect(r.status).toBe(201);
    expect(r.body.status.userInfo).toEqual({ username: 'bob', uid: 'u9', groups: ['g1', 'system:authenticated'], extra: { scopes: ['view'] } });
    const sa = await review(t, 'alice', { 'impersonate-user': 'system:serviceaccount:ns1:builder' });
    expect(sa.body.status.userInfo.username).toBe('system:serviceaccount:ns1:builder');
    // An extra key the rules do not name is refused.
    const other = await review(t, 'alice', { 'impersonate-user': 'bob', 'impersonate-extra-project': 'p1' });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('userextras.authentication.k8s.io "p1" is forbidden: User "alice" cannot impersonate resource "userextras/project" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('[AC-IMP-021] users and groups are impersonated at the cluster scope: a Role and RoleBinding do not grant it', async () => {
    const t = await server();
    const user = await review(t, 'carol', { 'impersonate-user': 'bob' });
    expect(user.status).toBe(403);
    expect(user.body.message).toBe('users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
    expect((await review(t, 'alice', { 'impersonate-user': 'bob' })).status).toBe(201);
  });
});
