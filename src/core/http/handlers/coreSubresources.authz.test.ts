/** Each pod subresource is its own RBAC resource: pods/log get, pods/exec create and get, pods/binding create. */
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizerFromModes } from '../../auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../../auth/authorizer/testing';
import { newTestServer, type TestServer } from '../../testing/client';

const admin = asUser('root', 'system:masters');
const rbac = '/apis/rbac.authorization.k8s.io/v1';
const NS = '/api/v1/namespaces/default';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer({ authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['RBAC']) });
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'debugger' }, rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }] };
  expect((await t.json('POST', `${rbac}/namespaces/default/roles`, { body: role, headers: admin })).status).toBe(201);
  const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'debugger' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'debugger' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }] };
  expect((await t.json('POST', `${rbac}/namespaces/default/rolebindings`, { body: binding, headers: admin })).status).toBe(201);
  expect((await t.json('POST', `${NS}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } }, headers: admin })).status).toBe(201);
});

const dev = asUser('dev');

describe('authorization of pod subresources', () => {
  it('[AC-RBAC-010][AC-AUTHZ-018] a rule on pods/log allows the log and nothing of the pod itself', async () => {
    expect((await t.request('GET', `${NS}/pods/web/log`, { headers: dev })).status).toBe(204);
    const pod = await t.json('GET', `${NS}/pods/web`, { headers: dev });
    expect(pod.status).toBe(403);
    expect(pod.body.message).toBe('pods "web" is forbidden: User "dev" cannot get resource "pods" in API group "" in the namespace "default"');
  });

  it('exec is authorized as create for the SPDY POST, and as get then create for the websocket GET', async () => {
    const post = await t.json('POST', `${NS}/pods/web/exec?command=ls`, { headers: dev });
    expect(post.status).toBe(400);
    expect(post.body.message).toBe('pod web does not have a host assigned');
    const ws = { ...dev, connection: 'Upgrade', upgrade: 'websocket' };
    const noGet = await t.json('GET', `${NS}/pods/web/exec?command=ls`, { headers: ws });
    expect(noGet.status).toBe(403);
    expect(noGet.body.message).toBe('pods "web" is forbidden: User "dev" cannot get resource "pods/exec" in API group "" in the namespace "default"');
    // get alone (a role written for the WebSocket GET) is not enough: AuthorizePodWebsocketUpgradeCreatePermission asks for create too.
    const attachGet = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'attach-get' }, rules: [{ apiGroups: [''], resources: ['pods/attach'], verbs: ['get'] }] };
    expect((await t.json('POST', `${rbac}/namespaces/default/roles`, { body: attachGet, headers: admin })).status).toBe(201);
    const rb = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'attach-get' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'attach-get' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dev' }] };
    expect((await t.json('POST', `${rbac}/namespaces/default/rolebindings`, { body: rb, headers: admin })).status).toBe(201);
    const attach = await t.json('GET', `${NS}/pods/web/attach`, { headers: ws });
    expect(attach.status).toBe(403);
    expect(attach.body).toMatchObject({ reason: 'Forbidden', details: { name: 'web', kind: 'pods' } });
    // NewForbidden with RBAC's empty reason.
    expect(attach.body.message).toBe('pods "web" is forbidden: ');
  });

  it('binding needs create on pods/binding; the legacy collection needs create on bindings', async () => {
    const body = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web' }, target: { kind: 'Node', name: 'node-1' } };
    const sub = await t.json('POST', `${NS}/pods/web/binding`, { body, headers: dev });
    expect(sub.status).toBe(403);
    expect(sub.body.message).toBe('pods "web" is forbidden: User "dev" cannot create resource "pods/binding" in API group "" in the namespace "default"');
    const legacy = await t.json('POST', `${NS}/bindings`, { body, headers: dev });
    expect(legacy.body.message).toBe('bindings is forbidden: User "dev" cannot create resource "bindings" in API group "" in the namespace "default"');
    const scheduler = await t.json('POST', `${NS}/pods/web/binding`, { body, headers: asUser('system:kube-scheduler') });
    expect(scheduler.status).toBe(201);
  });

  it('[AC-AUTHZ-023] nodes/proxy is authorized by the HTTP verb: a get rule reaches for the kubelet, a proxy rule does not', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } };
    expect((await t.json('POST', '/api/v1/nodes', { body: node, headers: admin })).status).toBe(201);
    for (const [who, verb] of [['getter', 'get'], ['proxier', 'proxy']] as const) {
      const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `nodes-proxy-${verb}` }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: [verb] }] };
      expect((await t.json('POST', `${rbac}/clusterroles`, { body: role, headers: admin })).status).toBe(201);
      const crb = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `nodes-proxy-${verb}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `nodes-proxy-${verb}` }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: who }] };
      expect((await t.json('POST', `${rbac}/clusterrolebindings`, { body: crb, headers: admin })).status).toBe(201);
    }
    const getter = await t.json('GET', '/api/v1/nodes/n1/proxy/stats/summary', { headers: asUser('getter') });
    expect(getter.status).toBe(503);
    expect(getter.body.message).toBe('error trying to reach service: dial tcp 10.0.0.7:10250: connect: connection refused');
    const proxier = await t.json('GET', '/api/v1/nodes/n1/proxy/stats/summary', { headers: asUser('proxier') });
    expect(proxier.status).toBe(403);
    expect(proxier.body.message).toBe('nodes "n1" is forbidden: User "proxier" cannot get resource "nodes/proxy" in API group "" at the cluster scope');
  });
});
