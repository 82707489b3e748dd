/**
 * ValidatingAdmissionPolicy through HTTP: matching, variables, params,
 * matchConditions, validationActions Deny / Warn / Audit, failurePolicy, and
 * every write path (create, update, patch, apply, delete, subresources, dry run).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { authorizerFromModes } from '../auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../auth/authorizer/testing';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const VAPS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const CMS = '/api/v1/namespaces/default/configmaps';

const deployment = (name: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { failurePolicy: 'Fail', ...spec } };
}

function binding(name: string, policyName: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...spec } };
}

const deployRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

async function install(p: unknown, b: unknown) {
  expect((await t.json('POST', VAPS, { body: p })).status).toBe(201);
  expect((await t.json('POST', BINDINGS, { body: b })).status).toBe(201);
}

const denial = (name: string, message: string, p = 'demo-policy.example.com', b = 'demo-binding-test.example.com') => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
  message: `deployments.apps "${name}" is forbidden: ValidatingAdmissionPolicy '${p}' with binding '${b}' denied request: ${message}`,
  reason: 'Invalid',
  details: { name, group: 'apps', kind: 'deployments', causes: [{ message: `ValidatingAdmissionPolicy '${p}' with binding '${b}' denied request: ${message}` }] },
  code: 422,
});

describe('ValidatingAdmissionPolicy', () => {
  it('Deny rejects with 422 naming policy, binding and the failed expression', async () => {
    await install(policy('demo-policy.example.com', { matchConstraints: deployRules, validations: [{ expression: 'object.spec.replicas <= 5' }] }), binding('demo-binding-test.example.com', 'demo-policy.example.com'));
    const r = await t.json('POST', DEPLOYS, { body: deployment('d1', 6) });
    expect(r.status).toBe(422);
    expect(r.body).toEqual(denial('d1', 'failed expression: object.spec.replicas <= 5'));
    expect((await t.json('POST', DEPLOYS, { body: deployment('d2', 3) })).status).toBe(201);
  });

  it('applies to update, merge patch, apply, dry run and the scale subresource', async () => {
    await t.json('POST', DEPLOYS, { body: deployment('d1', 1) });
    const rules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments', 'deployments/scale'] }] };
    await install(policy('demo-policy.example.com', { matchConstraints: rules, validations: [{ expression: "request.operation == 'DELETE' || request.subResource == 'scale' || object.spec.replicas <= 5", message: 'too many replicas' }, { expression: "request.subResource != 'scale'", message: 'no scaling' }] }), binding('demo-binding-test.example.com', 'demo-policy.example.com'));
    const patch = await t.json('PATCH', `${DEPLOYS}/d1`, { body: { spec: { replicas: 9 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patch.body).toEqual(denial('d1', 'too many replicas'));
    const apply = await t.json('PATCH', `${DEPLOYS}/d1?fieldManager=me&force=true`, { body: JSON.stringify(deployment('d1', 8)), headers: { 'content-type': 'application/apply-patch+yaml' } });
    expect(apply.status).toBe(422);
    const dry = await t.json('POST', `${DEPLOYS}?dryRun=All`, { body: deployment('d9', 7) });
    expect(dry.status).toBe(422);
    const current = await t.json('GET', `${DEPLOYS}/d1`);
    const put = await t.json('PUT', `${DEPLOYS}/d1`, { body: { ...current.body, spec: { ...current.body.spec, replicas: 6 } } });
    expect(put.status).toBe(422);
    const scale = await t.json('PATCH', `${DEPLOYS}/d1/scale`, { body: { spec: { replicas: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(scale.body.message).toContain('denied request: no scaling');
    expect((await t.json('DELETE', `${DEPLOYS}/d1`)).status).toBe(200);
  });

  it('Warn sends a Warning header and admits; Audit admits', async () => {
    await install(policy('demo-policy.example.com', { matchConstraints: deployRules, validations: [{ expression: 'object.spec.replicas <= 5' }] }), binding('demo-binding-test.example.com', 'demo-policy.example.com', { validationActions: ['Warn', 'Audit'] }));
    const r = await t.json('POST', DEPLOYS, { body: deployment('d1', 6) });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBe(`299 - "Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com': failed expression: object.spec.replicas <= 5"`);
  });

  it('variables, messageExpression, reason, matchConditions and object selectors', async () => {
    await install(
      policy('p', {
        matchConstraints: deployRules,
        matchConditions: [{ name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" }],
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
        validations: [{ expression: 'variables.replicas < 3', messageExpression: "'replicas ' + string(variables.replicas) + ' is too many'", reason: 'Forbidden' }],
      }),
      binding('b', 'p', { matchResources: { objectSelector: { matchLabels: { env: 'prod' } } } }),
    );
    const r = await t.json('POST', DEPLOYS, { body: deployment('d1', 4, { env: 'prod' }) });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('Forbidden');
    expect(r.body.message).toBe("deployments.apps \"d1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: replicas 4 is too many");
    expect((await t.json('POST', DEPLOYS, { body: deployment('d2', 4, { env: 'dev' }) })).status).toBe(201);
    expect((await t.json('POST', DEPLOYS, { body: deployment('system-d3', 4, { env: 'prod' }) })).status).toBe(201);
  });

  it('params from paramRef, with parameterNotFoundAction', async () => {
    await install(
      policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: deployRules,
        validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }],
      }),
      binding('b', 'p', { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }),
    );
    const missing = await t.json('POST', DEPLOYS, { body: deployment('d1', 1) });
    expect(missing.body.message).toBe("deployments.apps \"d1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no params found for policy binding with `Deny` parameterNotFoundAction");
    await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits' }, data: { max: '2' } } });
    expect((await t.json('POST', DEPLOYS, { body: deployment('d1', 3) })).body.message).toContain('denied request: at most 2');
    expect((await t.json('POST', DEPLOYS, { body: deployment('d1', 2) })).status).toBe(201);
  });

  it('failurePolicy decides what an evaluation error does; namespaceSelector matches namespace labels', async () => {
    await install(policy('p', { matchConstraints: { ...deployRules, namespaceSelector: { matchLabels: { team: 'a' } } }, validations: [{ expression: 'object.spec.nope == 1' }] }), binding('b', 'p'));
    expect((await t.json('POST', DEPLOYS, { body: deployment('d1', 1) })).status).toBe(201);
    await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } } });
    const r = await t.json('POST', '/apis/apps/v1/namespaces/team-a/deployments', { body: deployment('d1', 1) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe("deployments.apps \"d1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.nope == 1' resulted in error: no such key: nope");
    const p = await t.json('GET', `${VAPS}/p`);
    await t.json('PUT', `${VAPS}/p`, { body: { ...p.body, spec: { ...p.body.spec, failurePolicy: 'Ignore' } } });
    expect((await t.json('POST', '/apis/apps/v1/namespaces/team-a/deployments', { body: deployment('d1', 1) })).status).toBe(201);
  });

  it('DELETE sees oldObject; custom resources are matched too', async () => {
    await install(
      policy('p', { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] }, validations: [{ expression: "oldObject.metadata.name != 'keep'", message: 'keep stays' }] }),
      binding('b', 'p'),
    );
    await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' } } });
    const r = await t.json('DELETE', `${CMS}/keep`);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe("configmaps \"keep\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: keep stays");
  });
});

describe('ValidatingAdmissionPolicy matchPolicy', () => {
  it('Equivalent (the default) matches another served version of the resource; Exact does not', async () => {
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
    await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
        spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema }, { name: 'v1beta1', served: true, storage: false, schema }] },
      },
    });
    const rules = { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }] };
    await install(policy('p', { matchConstraints: rules, validations: [{ expression: 'object.spec.size < 3' }] }), binding('b', 'p'));
    const beta = (name: string) => ({ apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name }, spec: { size: 5 } });
    const r = await t.json('POST', '/apis/example.com/v1beta1/namespaces/default/widgets', { body: beta('w1') });
    expect(r.status).toBe(422);
    const p = await t.json('GET', `${VAPS}/p`);
    await t.json('PUT', `${VAPS}/p`, { body: { ...p.body, spec: { ...p.body.spec, matchConstraints: { ...rules, matchPolicy: 'Exact' } } } });
    expect((await t.json('POST', '/apis/example.com/v1beta1/namespaces/default/widgets', { body: beta('w1') })).status).toBe(201);
  });
});

describe('ValidatingAdmissionPolicy authorizer', () => {
  it('authorizer and authorizer.requestResource check the requesting user (AlwaysAllow here)', async () => {
    await install(
      policy('p', {
        matchConstraints: deployRules,
        validations: [
          { expression: "authorizer.requestResource.check('delete').allowed()", message: 'cannot delete' },
          { expression: "!authorizer.group('').resource('secrets').namespace('default').check('get').allowed()", message: 'can read secrets' },
          { expression: "request.userInfo.username == 'system:anonymous'" },
        ],
      }),
      binding('b', 'p'),
    );
    const r = await t.json('POST', DEPLOYS, { body: deployment('d1', 1) });
    expect(r.body.message).toBe("deployments.apps \"d1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: can read secrets");
  });
});

describe('ValidatingAdmissionPolicy authorizer under RBAC', () => {
  const admin = asUser('admin', 'system:masters');
  const rbac = '/apis/rbac.authorization.k8s.io/v1';

  async function rbacServer(): Promise<TestServer> {
    const s = await newTestServer({ authorizer: authorizerFromModes(['RBAC']), rbacBootstrap: true, authenticators: [headerAuthenticator] });
    const as = { headers: admin };
    // alice may create Deployments in default; bob may also read its secrets and /healthz.
    const create = async (path: string, body: unknown) => expect((await s.json('POST', path, { body, ...as })).status).toBe(201);
    await create(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'deployer' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }] });
    await create(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }, { nonResourceURLs: ['/healthz'], verbs: ['get'] }] });
    const bind = (name: string, role: string, user: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    await create(`${rbac}/clusterrolebindings`, bind('alice-deployer', 'deployer', 'alice'));
    await create(`${rbac}/clusterrolebindings`, bind('bob-deployer', 'deployer', 'bob'));
    await create(`${rbac}/clusterrolebindings`, bind('bob-secrets', 'secret-reader', 'bob'));
    return s;
  }

  it('[API-VAP-003] [API-VAP-004] [API-VAP-006] [API-VAP-008] [API-VAP-009] [API-VAP-010] [API-VAP-011] checks ask the server\'s RBAC for the requesting user; reason() carries its answer', async () => {
    const s = await rbacServer();
    const as = { headers: admin };
    const check = "authorizer.group('').resource('secrets').namespace('default').check('get')";
    expect((await s.json('POST', VAPS, { body: policy('needs-secrets', {
      matchConstraints: deployRules,
      validations: [
        { expression: `${check}.allowed()`, messageExpression: `'cannot read secrets: ' + ${check}.reason()` },
        { expression: "authorizer.path('/healthz').check('get').allowed()", message: 'cannot get /healthz' },
      ],
    }) , ...as })).status).toBe(201);
    expect((await s.json('POST', BINDINGS, { body: binding('needs-secrets-b', 'needs-secrets'), ...as })).status).toBe(201);

    const denied = await s.json('POST', DEPLOYS, { body: deployment('by-alice', 1), headers: asUser('alice') });
    expect(denied.status).toBe(422);
    expect(denied.body.message).toBe("deployments.apps \"by-alice\" is forbidden: ValidatingAdmissionPolicy 'needs-secrets' with binding 'needs-secrets-b' denied request: cannot read secrets: ");
    const allowed = await s.json('POST', DEPLOYS, { body: deployment('by-bob', 1), headers: asUser('bob') });
    expect(allowed.status).toBe(201);
    await s.server.close();
  });

  it('[API-VAP-012] [API-VAP-007] serviceAccount() and name() checks are asked as that account and resource name', async () => {
    const s = await rbacServer();
    const as = { headers: admin };
    const sa = "authorizer.serviceAccount('default', 'builder').group('').resource('configmaps').namespace('default').name('settings').check('get')";
    expect((await s.json('POST', VAPS, { body: policy('sa-check', { matchConstraints: deployRules, validations: [{ expression: `${sa}.allowed()`, message: 'builder cannot read settings' }] }), ...as })).status).toBe(201);
    expect((await s.json('POST', BINDINGS, { body: binding('sa-check-b', 'sa-check'), ...as })).status).toBe(201);
    expect((await s.json('POST', DEPLOYS, { body: deployment('d1', 1), headers: asUser('bob') })).body.message).toContain('denied request: builder cannot read settings');
    await s.json('POST', `${rbac}/namespaces/default/roles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'settings-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get'] }] }, ...as });
    await s.json('POST', `${rbac}/namespaces/default/rolebindings`, { body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'builder-settings' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'settings-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'default' }],
    }, ...as });
    expect((await s.json('POST', DEPLOYS, { body: deployment('d2', 1), headers: asUser('bob') })).status).toBe(201);
    await s.server.close();
  });
});

describe('ValidatingAdmissionPolicy expressions are compiled when the policy is written', () => {
  it('rejects expressions that do not compile or have the wrong type', async () => {
    const r = await t.json('POST', VAPS, {
      body: policy('p', {
        matchConstraints: deployRules,
        validations: [{ expression: 'object.spec.replicas <', messageExpression: '1' }],
        matchConditions: [{ name: 'm', expression: "'x'" }],
      }),
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.split('\n')[0]])).toEqual([
      ['spec.matchConditions[0].expression', `Invalid value: "'x'": must evaluate to bool`],
      ['spec.validations[0].expression', 'Invalid value: "object.spec.replicas <": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}'],
      ['spec.validations[0].messageExpression', 'Invalid value: "1": must evaluate to string'],
    ]);
  });
});

describe('ValidatingAdmissionPolicy type checking', () => {
  it('writes status.typeChecking warnings for expressions that do not type-check against the matched kinds', async () => {
    await t.json('POST', VAPS, { body: policy('p', { matchConstraints: deployRules, validations: [{ expression: 'object.spec.replicas > 1' }, { expression: 'object.spec.replicass > 1' }] }) });
    const got = await t.json('GET', `${VAPS}/p`);
    expect(got.body.status).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          { fieldRef: 'spec.validations[1].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^" },
        ],
      },
    });
  });

  it('API-ERR-007: an empty validation expression is one cause, from the structural validation', async () => {
    const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'empty.example.com' }, spec: { matchConstraints: deployRules, validations: [{ expression: ' ' }] } };
    const r = await t.json('POST', VAPS, { body: policy });
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: expression is not specified', field: 'spec.validations[0].expression' }]);
  });
});

describe('ValidatingAdmissionPolicy variable types', () => {
  const anyRules = { resourceRules: [{ apiGroups: ['', 'apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments', 'configmaps'] }] };

  it('[API-VAP-001] request is typed: its fields are checked when the policy is written', async () => {
    const ok = await t.json('POST', VAPS, { body: policy('typed', { matchConstraints: deployRules, validations: [{ expression: "request.operation == 'CREATE'" }] }) });
    expect(ok.status).toBe(201);
    const bad = await t.json('POST', VAPS, { body: policy('untyped', { matchConstraints: deployRules, validations: [{ expression: 'request.nope == 1' }] }) });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.split('\n')[0]])).toEqual([
      ['spec.validations[0].expression', "Invalid value: \"request.nope == 1\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'"],
    ]);
    // A wrong type on a typed field is caught too.
    expect((await t.json('POST', VAPS, { body: policy('mistyped', { matchConstraints: deployRules, validations: [{ expression: 'request.operation == 1' }] }) })).status).toBe(422);
  });

  it('[API-VAP-002] object is dynamic: one expression compiles for every matched kind and is enforced on each', async () => {
    await install(policy('replicas', { matchConstraints: anyRules, validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5' }] }), binding('replicas-b', 'replicas'));
    expect((await t.json('POST', DEPLOYS, { body: deployment('small', 5) })).status).toBe(201);
    expect(await t.json('POST', DEPLOYS, { body: deployment('big', 6) })).toMatchObject({ status: 422, body: denial('big', 'at most 5', 'replicas', 'replicas-b') });
    // A ConfigMap has no spec: the same expression compiles, and fails at evaluation.
    const cm = await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
    expect(cm.status).toBe(422);
    expect(cm.body.message).toBe("configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'replicas' with binding 'replicas-b' denied request: expression 'object.spec.replicas <= 5' resulted in error: no such key: spec");
  });

  it('[API-VAP-015] has() guards a field the object may not have', async () => {
    await install(policy('guarded', { matchConstraints: anyRules, validations: [{ expression: '!has(object.spec) || object.spec.replicas <= 5', message: 'at most 5' }] }), binding('guarded-b', 'guarded'));
    expect((await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } })).status).toBe(201);
    expect((await t.json('POST', DEPLOYS, { body: deployment('big', 6) })).body.message).toBe("deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy 'guarded' with binding 'guarded-b' denied request: at most 5");
    // The guard also holds in a conjunction: false, not an error.
    await t.json('DELETE', `${BINDINGS}/guarded-b`);
    await install(policy('conj', { matchConstraints: anyRules, validations: [{ expression: 'has(object.spec) && object.spec.x == 1', message: 'needs spec.x' }] }), binding('conj-b', 'conj'));
    expect((await t.json('POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } } })).body.message).toBe("configmaps \"d\" is forbidden: ValidatingAdmissionPolicy 'conj' with binding 'conj-b' denied request: needs spec.x");
  });
});

describe('ValidatingAdmissionPolicy authorizer checks narrowed further', () => {
  const admin = asUser('admin', 'system:masters');
  const rbac = '/apis/rbac.authorization.k8s.io/v1';

  it('[API-VAP-005] subresource() checks the named subresource against RBAC', async () => {
    const s = await newTestServer({ authorizer: authorizerFromModes(['RBAC']), rbacBootstrap: true, authenticators: [headerAuthenticator] });
    const as = { headers: admin };
    const create = async (path: string, body: unknown) => expect((await s.json('POST', path, { body, ...as })).status).toBe(201);
    const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }];
    await create(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'deployer' }, rules });
    await create(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'status-writer' }, rules: [{ apiGroups: [''], resources: ['pods/status'], verbs: ['update'] }] });
    const bind = (name: string, role: string, user: string) => create(`${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
    });
    await bind('alice-deployer', 'deployer', 'alice');
    await bind('bob-deployer', 'deployer', 'bob');
    await bind('bob-status', 'status-writer', 'bob');
    const check = "authorizer.group('').resource('pods').subresource('status').namespace('default').check('update')";
    await create(VAPS, policy('status', { matchConstraints: deployRules, validations: [{ expression: `${check}.allowed()`, messageExpression: "'cannot update pods/status: ' + " + `${check}.reason()` }] }));
    await create(BINDINGS, binding('status-b', 'status'));
    expect((await s.json('POST', DEPLOYS, { body: deployment('by-alice', 1), headers: asUser('alice') })).body.message)
      .toBe("deployments.apps \"by-alice\" is forbidden: ValidatingAdmissionPolicy 'status' with binding 'status-b' denied request: cannot update pods/status: ");
    expect((await s.json('POST', DEPLOYS, { body: deployment('by-bob', 1), headers: asUser('bob') })).status).toBe(201);
    await s.server.close();
  });

  it('[API-VAP-013][API-VAP-014] fieldSelector() and labelSelector() reach the authorizer with the check (AuthorizeWithSelectors is GA: always on)', async () => {
    const { loadAuthorizationConfiguration } = await import('../auth/authorizer/config');
    const reviews: { spec: { user: string; resourceAttributes?: Record<string, unknown> } }[] = [];
    const loaded = loadAuthorizationConfiguration({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration',
      authorizers: [{ type: 'Webhook', name: 'hook', webhook: { timeout: '3s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: '/hook.kubeconfig' } } }],
    }, {
      transportFor: () => async (review) => {
        const r = review as (typeof reviews)[number];
        reviews.push(r);
        // Listing pods is allowed only on node n1, configmaps only with a=b.
        const a = r.spec.resourceAttributes;
        const field = JSON.stringify(a?.['fieldSelector'] ?? null);
        const label = JSON.stringify(a?.['labelSelector'] ?? null);
        const allowed = a?.['verb'] !== 'list' || field === JSON.stringify({ rawSelector: 'spec.nodeName=n1' }) || label === JSON.stringify({ rawSelector: 'a=b' });
        return { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed } };
      },
    });
    const s = await newTestServer({ authenticators: [headerAuthenticator], authorizer: loaded.factory });
    const pods = (sel: string) => `authorizer.group('').resource('pods').namespace('default').fieldSelector('${sel}').check('list').allowed()`;
    const cms = (sel: string) => `authorizer.group('').resource('configmaps').namespace('default').labelSelector('${sel}').check('list').allowed()`;
    const h = { headers: asUser('alice') };
    expect((await s.json('POST', VAPS, { body: policy('sel', { matchConstraints: deployRules, validations: [
      { expression: pods('spec.nodeName=n1'), message: 'n1 pods' },
      { expression: `!${pods('spec.nodeName=n2')}`, message: 'n2 pods' },
      { expression: cms('a=b'), message: 'a=b configmaps' },
      { expression: `!${cms('a=c')}`, message: 'a=c configmaps' },
    ] }), ...h })).status).toBe(201);
    expect((await s.json('POST', BINDINGS, { body: binding('sel-b', 'sel'), ...h })).status).toBe(201);
    const created = await s.json('POST', DEPLOYS, { body: deployment('d1', 1), ...h });
    expect(created.status).toBe(201);
    const lists = reviews.filter((r) => r.spec.resourceAttributes?.['verb'] === 'list').map((r) => r.spec.resourceAttributes);
    expect(lists).toEqual(expect.arrayContaining([
      expect.objectContaining({ resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=n2' } }),
      expect.objectContaining({ resource: 'configmaps', labelSelector: { rawSelector: 'a=c' } }),
    ]));
    await s.server.close();
  });
});
