import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom, type ApiServer } from '../../../core';
import { authorizerFromModes } from '../../../core/auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../../../core/auth/authorizer/testing';
import { createApiClient, type ApiClient, type KubeList, type KubeObject } from '../../api';
import { grantsFor, whoCan, type Policy, type Subject } from './policy';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let server: ApiServer;
let client: ApiClient;
let policy: Policy;

async function post(path: string, object: unknown) {
  await client.write('create', path, object as KubeObject);
}

beforeAll(async () => {
  server = createApiServer({
    storage: createMemoryStorage(),
    clock: new FakeClock(),
    random: seededRandom(11),
    authorizer: authorizerFromModes(['RBAC'], {}),
    rbacBootstrap: true,
    authenticators: [headerAuthenticator],
  });
  await server.ready;
  // Set-up and reviews as a member of system:masters (a test authenticator reads the user from headers).
  client = createApiClient((request) => {
    for (const [k, v] of Object.entries(asUser('admin', 'system:masters'))) request.headers.set(k, v);
    return server.handle(request);
  }, 'http://kubesim.test');
  await post(`${RBAC}/namespaces/default/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] });
  await post(`${RBAC}/namespaces/default/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' },
      { kind: 'ServiceAccount', name: 'bot', namespace: 'default' },
    ],
  });
  const list = async (path: string) => (await client.get<KubeList>(path)).items as never[];
  policy = {
    clusterRoles: await list(`${RBAC}/clusterroles`),
    clusterRoleBindings: await list(`${RBAC}/clusterrolebindings`),
    roles: await list(`${RBAC}/namespaces/default/roles`),
    roleBindings: await list(`${RBAC}/namespaces/default/rolebindings`),
  };
});
afterAll(() => server.close());

async function serverAllows(user: string | undefined, groups: string[], verb: string, resource: string, group = ''): Promise<boolean> {
  const { object } = await client.write<KubeObject & { status: { allowed: boolean } }>('create', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, groups, resourceAttributes: { namespace: 'default', verb, group, resource } },
  } as unknown as KubeObject);
  return object.status.allowed;
}

describe('AC-REV-023 AC-RBAC-006: RBAC read off the policy agrees with the server authorizer', () => {
  const cases: [Subject, string | undefined, string[]][] = [
    [{ kind: 'User', name: 'alice' }, 'alice', ['system:authenticated']],
    [{ kind: 'User', name: 'mallory' }, 'mallory', ['system:authenticated']],
    [{ kind: 'Group', name: 'dev' }, undefined, ['dev']],
    [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }, 'system:serviceaccount:default:bot', ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']],
  ];
  for (const [subject, user, groups] of cases) {
    for (const [verb, resource, group] of [
      ['list', 'configmaps', ''],
      ['delete', 'configmaps', ''],
      ['get', 'secrets', ''],
      ['create', 'selfsubjectaccessreviews', 'authorization.k8s.io'],
    ] as const) {
      it(`${subject.kind} ${subject.name}: ${verb} ${resource}`, async () => {
        const mine = grantsFor(policy, subject, verb, group, resource).length > 0;
        expect(mine).toBe(await serverAllows(user, groups, verb, resource, group));
      });
    }
  }

  it('explains a grant by binding, role and rule; who-can lists the bound subjects', () => {
    const [grant] = grantsFor(policy, { kind: 'User', name: 'alice' }, 'list', '', 'configmaps');
    expect(grant).toMatchObject({ binding: 'RoleBinding default/readers', role: 'Role default/cm-reader', ruleIndex: 0 });
    const who = whoCan(policy, 'get', '', 'configmaps').map((w) => `${w.subject.kind} ${w.subject.name}`);
    expect(who).toEqual(expect.arrayContaining(['User alice', 'Group dev', 'ServiceAccount bot', 'Group system:masters']));
  });
});
