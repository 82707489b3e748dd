// Authorization benchmark: decisions per second of the RBAC chain with the
// full default policy plus extra bindings (half ClusterRoleBindings, half
// RoleBindings in the request's namespace, none for the user asking),
// beside the same decisions with AlwaysAllow, in the same process. Two
// levels: the authorizer alone (server.authorizer.authorize) and a whole
// GET through handle(). Prints ratios (RBAC / AlwaysAllow speed; below 1 is
// the cost of RBAC). Run: npx tsx bench/authz.bench.ts [bindings=1000] [rounds=5]
import { authorizerFromModes } from '../src/core/auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../src/core/auth/authorizer/testing';
import type { Attributes } from '../src/core/auth/authorizer/types';
import { createApiServer, type ApiServer } from '../src/core/apiserver';
import { createMemoryStorage } from '../src/core/storage/memory';

const bindings = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const admin = asUser('root', 'system:masters');
const rbacPath = '/apis/rbac.authorization.k8s.io/v1';

async function send(api: ApiServer, method: string, path: string, body?: unknown, headers: Record<string, string> = admin): Promise<Response> {
  return api.handle(new Request(`http://127.0.0.1${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }));
}

async function serverWith(modes: 'RBAC' | 'AlwaysAllow'): Promise<ApiServer> {
  const api = createApiServer({ storage: createMemoryStorage(), authenticators: [headerAuthenticator], authorizer: authorizerFromModes([modes]), rbacBootstrap: true });
  await api.ready;
  await send(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } });
  await send(api, 'POST', '/api/v1/namespaces/ns1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' } });
  for (let i = 0; i < bindings; i++) {
    const cluster = i % 2 === 0;
    const r = await send(api, 'POST', cluster ? `${rbacPath}/clusterrolebindings` : `${rbacPath}/namespaces/ns1/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: cluster ? 'ClusterRoleBinding' : 'RoleBinding', metadata: { name: `extra-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `user-${i}` }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `group-${i}` }],
    });
    if (r.status !== 201) throw new Error(`binding ${i}: ${r.status} ${await r.text()}`);
  }
  // The user asking is bound last, through a RoleBinding: every ClusterRoleBinding is scanned first.
  await send(api, 'POST', `${rbacPath}/namespaces/ns1/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'zz-alice' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
  });
  return api;
}

const attrs = (user: string): Attributes => ({
  user: { username: user, groups: ['system:authenticated'] }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns1/configmaps/cm1',
  namespace: 'ns1', apiGroup: '', apiVersion: 'v1', resource: 'configmaps', subresource: '', name: 'cm1',
});

async function perSecond(n: number, op: () => unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await op();
  return n / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const rbac = await serverWith('RBAC');
const allow = await serverWith('AlwaysAllow');
const check = await rbac.authorizer.authorize(attrs('alice'));
if (check.decision !== 'Allow') throw new Error(`alice is not allowed: ${JSON.stringify(check)}`);

const rows: { name: string; rbac: number[]; allow: number[] }[] = [
  { name: 'authorize: allowed (alice)', rbac: [], allow: [] },
  { name: 'authorize: no opinion (bob)', rbac: [], allow: [] },
  { name: 'GET configmap through handle()', rbac: [], allow: [] },
];
const ops = [
  (api: ApiServer) => () => api.authorizer.authorize(attrs('alice')),
  (api: ApiServer) => () => api.authorizer.authorize(attrs('bob')),
  (api: ApiServer) => async () => (await send(api, 'GET', '/api/v1/namespaces/ns1/configmaps/cm1', undefined, asUser('alice'))).arrayBuffer(),
];
const counts = [20_000, 20_000, 2_000];
for (let i = 0; i < rows.length; i++) await perSecond(counts[i]! / 10, ops[i]!(rbac)); // warm-up
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < rows.length; i++) {
    const order = r % 2 === 0 ? ['rbac', 'allow'] as const : ['allow', 'rbac'] as const;
    for (const side of order) rows[i]![side].push(await perSecond(counts[i]!, ops[i]!(side === 'rbac' ? rbac : allow)));
  }
}
console.log(`default policy + ${bindings} extra bindings, median of ${rounds} rounds`);
console.log(['case'.padEnd(34), 'RBAC/s'.padStart(10), 'AlwaysAllow/s'.padStart(14), 'RBAC/AlwaysAllow'.padStart(17)].join(' '));
for (const row of rows) {
  const a = median(row.rbac);
  const b = median(row.allow);
  console.log([row.name.padEnd(34), a.toFixed(0).padStart(10), b.toFixed(0).padStart(14), (a / b).toFixed(3).padStart(17)].join(' '));
}
await rbac.close();
await allow.close();
