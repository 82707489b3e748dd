/**
 * kube-controller-manager's --use-service-account-credentials through handle():
 * each controller's ServiceAccount in kube-system, the identity admission sees
 * on its writes, and RBAC authorizing them.
 */
import { describe, expect, it } from 'vitest';
import { authorizerFromModes } from '../auth/authorizer/modes';
import { asUser, headerAuthenticator } from '../auth/authorizer/testing';
import type { AdmissionWebhookTransport } from '../admission/webhook/client';
import { newTestServer, type TestServer } from '../testing/client';
import { controllerServiceAccounts } from './clientBuilder';

const admin = asUser('root', 'system:masters');
const crbs = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
const clusterRoles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const workloads = ['*', '-root-ca-certificate-publisher-controller'];

type Review = { apiVersion: string; request: { uid: string; operation: string; resource: { resource: string }; userInfo: Record<string, unknown> } };

/** A mutating webhook on pods and replicasets creates that allows and records each review. */
function recordingWebhook() {
  const reviews: Review['request'][] = [];
  const transport: AdmissionWebhookTransport = async (call) => {
    const review = JSON.parse(call.body) as Review;
    reviews.push(review.request);
    return { status: 200, body: JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }) };
  };
  const configuration = {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'record' },
    webhooks: [{
      name: 'record.example.com', clientConfig: { url: 'https://127.0.0.1:9443/record' }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'replicasets'] }],
    }],
  };
  return { reviews, transport, configuration };
}

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const replicaSet = (name: string, replicas = 1) => ({ ...deployment(name, replicas), kind: 'ReplicaSet' });

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 500 && !done(v); i++) {
    await new Promise((r) => setTimeout(r, 10));
    v = await read();
  }
  if (!done(v)) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
  return v;
}

const podNames = async (t: TestServer, headers: Record<string, string> = {}) => ((await t.json('GET', '/api/v1/namespaces/default/pods', { headers })).body.items as { metadata: { name: string } }[]).map((p) => p.metadata.name);

describe('--use-service-account-credentials', () => {
  it('[AC-RBAC-116] the running controllers have their ServiceAccounts in kube-system, the token controller none', async () => {
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: ['*'] });
    const names = ((await t.json('GET', '/api/v1/namespaces/kube-system/serviceaccounts')).body.items as { metadata: { name: string } }[]).map((a) => a.metadata.name);
    for (const name of ['default', 'deployment-controller', 'replicaset-controller', 'statefulset-controller', 'daemon-set-controller', 'replication-controller', 'namespace-controller', 'generic-garbage-collector', 'resourcequota-controller', 'disruption-controller', 'job-controller', 'cronjob-controller', 'endpoint-controller', 'endpointslice-controller', 'endpointslicemirroring-controller', 'pvc-protection-controller', 'pv-protection-controller', 'persistent-volume-binder', 'ephemeral-volume-controller', 'ttl-after-finished-controller', 'root-ca-cert-publisher', 'service-account-controller', 'pod-garbage-collector']) {
      expect(names).toContain(name);
    }
    // Off by default (and not started): node lifecycle, autoscaler, bootstrap signer, token cleaner; no CA to sign with.
    for (const name of ['node-controller', 'horizontal-pod-autoscaler', 'bootstrap-signer', 'token-cleaner', 'certificate-controller']) expect(names).not.toContain(name);
    expect(Object.values(controllerServiceAccounts)).not.toContain('tokens-controller');
  });

  it("[AC-RBAC-116] admission sees a Deployment's ReplicaSet created by deployment-controller and its pods by replicaset-controller", async () => {
    const hook = recordingWebhook();
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: workloads, admissionWebhookTransport: hook.transport });
    expect((await t.json('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: hook.configuration })).status).toBe(201);
    const account = (await t.json('GET', '/api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller')).body;
    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('web') })).status).toBe(201);
    await until('a pod', () => podNames(t), (l) => l.length === 1);
    const byResource = (r: string) => hook.reviews.find((rv) => rv.resource.resource === r)!.userInfo;
    expect(byResource('replicasets')).toMatchObject({ username: 'system:serviceaccount:kube-system:deployment-controller' });
    expect(byResource('pods')).toEqual({
      username: 'system:serviceaccount:kube-system:replicaset-controller',
      uid: account.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
  });

  it("[AC-RBAC-116] a ValidatingAdmissionPolicy sees request.userInfo.username of replicaset-controller creating a Deployment's pods", async () => {
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: workloads });
    const vap = '/apis/admissionregistration.k8s.io/v1';
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-rs-pods' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        validations: [{ expression: "request.userInfo.username != 'system:serviceaccount:kube-system:replicaset-controller'", messageExpression: "'created by ' + request.userInfo.username" }],
      },
    };
    expect((await t.json('POST', `${vap}/validatingadmissionpolicies`, { body: policy })).status).toBe(201);
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-rs-pods' }, spec: { policyName: 'no-rs-pods', validationActions: ['Deny'] } };
    expect((await t.json('POST', `${vap}/validatingadmissionpolicybindings`, { body: binding })).status).toBe(201);
    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('web') })).status).toBe(201);
    const events = await until('a FailedCreate event', () => t.json('GET', '/api/v1/namespaces/default/events').then((r) => r.body.items as { reason: string; message: string }[]), (l) => l.some((e) => e.reason === 'FailedCreate'));
    expect(events.find((e) => e.reason === 'FailedCreate')!.message).toMatch(
      /^Error creating: pods "web-\w+-\w+" is forbidden: ValidatingAdmissionPolicy 'no-rs-pods' with binding 'no-rs-pods' denied request: created by system:serviceaccount:kube-system:replicaset-controller$/,
    );
    expect(await podNames(t)).toEqual([]);
  });

  it('[AC-RBAC-116] without it, the controllers write as system:kube-controller-manager and create no accounts', async () => {
    const hook = recordingWebhook();
    const t = await newTestServer({ controllers: workloads, admissionWebhookTransport: hook.transport });
    expect((await t.json('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: hook.configuration })).status).toBe(201);
    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('web') })).status).toBe(201);
    await until('a pod', () => podNames(t), (l) => l.length === 1);
    expect(hook.reviews.map((r) => r.userInfo)).toEqual([
      { username: 'system:kube-controller-manager', groups: ['system:authenticated'] },
      { username: 'system:kube-controller-manager', groups: ['system:authenticated'] },
    ]);
    expect((await t.json('GET', '/api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller')).status).toBe(404);
  });

  it('[AC-RBAC-116] under RBAC, replicaset-controller bound to a role without pods create is Forbidden (a FailedCreate event, ReplicaFailure), and goes on once its binding is restored', async () => {
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: workloads, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']) });
    const binding = (await t.json('GET', `${crbs}/system:controller:replicaset-controller`, { headers: admin })).body;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'replicaset-controller', namespace: 'kube-system' }]);
    expect((await t.json('DELETE', `${crbs}/system:controller:replicaset-controller`, { headers: admin })).status).toBe(200);
    // Its role but pods create: it can still record events and write the ReplicaSet's status.
    const role = (await t.json('GET', `${clusterRoles}/system:controller:replicaset-controller`, { headers: admin })).body;
    const rules = (role.rules as { resources: string[]; verbs: string[] }[]).map((r) => (r.resources.includes('pods') ? { ...r, verbs: r.verbs.filter((v) => v !== 'create') } : r));
    expect((await t.json('POST', clusterRoles, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'no-pod-create' }, rules }, headers: admin })).status).toBe(201);
    const narrow = { ...binding, metadata: { name: 'no-pod-create' }, roleRef: { ...binding.roleRef, name: 'no-pod-create' } };
    expect((await t.json('POST', crbs, { body: narrow, headers: admin })).status).toBe(201);

    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/replicasets', { body: replicaSet('web'), headers: admin })).status).toBe(201);
    const forbidden = 'pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "pods" in API group "" in the namespace "default"';
    const events = () => t.json('GET', '/api/v1/namespaces/default/events', { headers: admin }).then((r) => r.body.items as { reason: string; message: string; type: string }[]);
    const failed = await until('a FailedCreate event', events, (l) => l.some((e) => e.reason === 'FailedCreate'));
    expect(failed.find((e) => e.reason === 'FailedCreate')).toMatchObject({ type: 'Warning', message: `Error creating: ${forbidden}` });
    const status = await until('ReplicaFailure', () => t.json('GET', '/apis/apps/v1/namespaces/default/replicasets/web', { headers: admin }).then((r) => r.body.status), (s) => !!s?.conditions);
    expect(status.conditions).toMatchObject([{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: forbidden }]);
    expect(await podNames(t, admin)).toEqual([]);

    expect((await t.json('DELETE', `${crbs}/no-pod-create`, { headers: admin })).status).toBe(200);
    const { metadata, ...rest } = binding;
    expect((await t.json('POST', crbs, { body: { ...rest, metadata: { name: metadata.name, labels: metadata.labels, annotations: metadata.annotations } }, headers: admin })).status).toBe(201);
    const pods = await until('the pod once the binding is back', () => podNames(t, admin), (l) => l.length === 1);
    expect(pods[0]).toMatch(/^web-/);
    const cleared = await until('ReplicaFailure cleared', () => t.json('GET', '/apis/apps/v1/namespaces/default/replicasets/web', { headers: admin }).then((r) => r.body.status), (s) => !s?.conditions);
    expect(cleared.replicas).toBe(1);
  });

  it('[AC-RBAC-116] under RBAC, a controller with no binding left stops making progress; the others go on', async () => {
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: workloads, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']) });
    expect((await t.json('DELETE', `${crbs}/system:controller:replicaset-controller`, { headers: admin })).status).toBe(200);
    expect((await t.json('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('api'), headers: admin })).status).toBe(201);
    // deployment-controller still creates the ReplicaSet; replicaset-controller can write nothing, its events included.
    const rs = await until("the Deployment's ReplicaSet", () => t.json('GET', '/apis/apps/v1/namespaces/default/replicasets', { headers: admin }).then((r) => r.body.items as { status?: Record<string, unknown> }[]), (l) => l.length === 1);
    await until('the Deployment\'s ScalingReplicaSet event', () => t.json('GET', '/api/v1/namespaces/default/events', { headers: admin }).then((r) => r.body.items as { reason: string }[]), (l) => l.some((e) => e.reason === 'ScalingReplicaSet'));
    expect(rs[0]!.status ?? {}).not.toHaveProperty('observedGeneration');
    expect(await podNames(t, admin)).toEqual([]);
    expect(((await t.json('GET', '/api/v1/namespaces/default/events', { headers: admin })).body.items as { reason: string }[]).map((e) => e.reason)).toEqual(['ScalingReplicaSet']);
  });

  it('[AC-RBAC-116] under RBAC, service-account-controller without its binding makes no default ServiceAccount, and makes it once the binding is back', async () => {
    const t = await newTestServer({ useServiceAccountCredentials: true, controllers: workloads, authenticators: [headerAuthenticator], authorizer: authorizerFromModes(['Node', 'RBAC']) });
    const binding = (await t.json('GET', `${crbs}/system:controller:service-account-controller`, { headers: admin })).body;
    expect((await t.json('DELETE', `${crbs}/system:controller:service-account-controller`, { headers: admin })).status).toBe(200);
    expect((await t.json('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late' } }, headers: admin })).status).toBe(201);
    expect((await t.json('GET', '/api/v1/namespaces/late/serviceaccounts/default', { headers: admin })).status).toBe(404);
    const { metadata, ...rest } = binding;
    expect((await t.json('POST', crbs, { body: { ...rest, metadata: { name: metadata.name, labels: metadata.labels, annotations: metadata.annotations } }, headers: admin })).status).toBe(201);
    await until('the default ServiceAccount', () => t.json('GET', '/api/v1/namespaces/late/serviceaccounts/default', { headers: admin }).then((r) => r.status), (s) => s === 200);
  });
});
