/** Validation of the other built-in kinds through HTTP: one 422 Status with every cause, on create, update and patch. */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';
import { testCertificateRequestPem } from './testing/certificates';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
});

const ns = '/api/v1/namespaces/default';
const merge = { 'content-type': 'application/merge-patch+json' };

describe('validation of built-in kinds over HTTP', () => {
  it('API-ERR-022: a ConfigMap key `bad key!` is 422 Invalid with the cause at data[bad key!]', async () => {
    const r = await t.json('POST', `${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { 'bad key!': 'x' } } });
    expect(r.status).toBe(422);
    const detail =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    expect(r.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `ConfigMap "bad" is invalid: data[bad key!]: Invalid value: "bad key!": ${detail}`,
      details: { name: 'bad', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "bad key!": ${detail}`, field: 'data[bad key!]' }] },
    });
  });

  it('API-DRY-005: a dry run of an invalid object answers the same 422', async () => {
    const body = { metadata: { name: 'claim' }, spec: {} };
    const dry = await t.json('POST', `${ns}/persistentvolumeclaims?dryRun=All`, { body });
    const real = await t.json('POST', `${ns}/persistentvolumeclaims`, { body });
    expect(real.status).toBe(422);
    expect(dry.body).toEqual(real.body);
    expect(real.body.message).toBe(
      'PersistentVolumeClaim "claim" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    );
    expect(real.body.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value: at least 1 access mode is required', field: 'spec.accessModes' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.resources[storage]' },
    ]);
  });

  it('an immutable ConfigMap refuses a data change by PUT and by merge patch, and accepts metadata changes', async () => {
    await t.json('POST', `${ns}/configmaps`, { body: { metadata: { name: 'frozen' }, immutable: true, data: { a: '1' } } });
    const p = await t.json('PATCH', `${ns}/configmaps/frozen`, { body: { data: { a: '2' } }, headers: merge });
    expect(p.status).toBe(422);
    expect(p.body.message).toBe('ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const cur = (await t.json('GET', `${ns}/configmaps/frozen`)).body;
    const u = await t.json('PUT', `${ns}/configmaps/frozen`, { body: { ...cur, immutable: false } });
    expect(u.body.message).toBe('ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    const l = await t.json('PATCH', `${ns}/configmaps/frozen`, { body: { metadata: { labels: { a: 'b' } } }, headers: merge });
    expect(l.status).toBe(200);
  });

  it("a Secret's type is immutable", async () => {
    await t.json('POST', `${ns}/secrets`, { body: { metadata: { name: 's' }, stringData: { a: 'b' } } });
    const p = await t.json('PATCH', `${ns}/secrets/s`, { body: { type: 'kubernetes.io/tls' }, headers: merge });
    expect(p.status).toBe(422);
    expect(p.body.message).toBe('Secret "s" is invalid: [type: Invalid value: "kubernetes.io/tls": field is immutable, data[tls.crt]: Required value, data[tls.key]: Required value]');
  });

  it('AC-RBAC-029: a RoleBinding roleRef change is 422; its subjects may change', async () => {
    const path = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings';
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' };
    expect((await t.json('POST', path, { body: { metadata: { name: 'rb' }, roleRef, subjects: [{ kind: 'User', name: 'alice' }] } })).status).toBe(201);
    const p = await t.json('PATCH', `${path}/rb`, { body: { roleRef: { name: 'admin' } }, headers: merge });
    expect(p.status).toBe(422);
    expect(p.body.message).toBe(
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"admin"}: cannot change roleRef',
    );
    expect(p.body.details).toMatchObject({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' });
    expect((await t.json('PATCH', `${path}/rb`, { body: { subjects: [{ kind: 'Group', name: 'devs' }] }, headers: merge })).status).toBe(200);
  });

  it('an autoscaling/v1 HPA with minReplicas 0 is 422 at spec.minReplicas', async () => {
    const r = await t.json('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { minReplicas: 0, maxReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: 'web' } } },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('HorizontalPodAutoscaler.autoscaling "h" is invalid: spec.minReplicas: Invalid value: 0: must be greater than or equal to 1');
  });

  it('API-VER-130: a webhook with sideEffects Some is 422', async () => {
    const r = await t.json('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: {
        metadata: { name: 'w' },
        webhooks: [{ name: 'w.example.com', sideEffects: 'Some', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://hook.example.com/' } }],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"', field: 'webhooks[0].sideEffects' },
    ]);
  });

  it('API-VER-151: an Ingress path with pathType Sometimes is 422', async () => {
    const r = await t.json('POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', {
      body: { metadata: { name: 'ing' }, spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Sometimes', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Ingress.networking.k8s.io "ing" is invalid: spec.rules[0].http.paths[0].pathType: Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    );
  });

  it('API-VER-112, API-VER-114: an events.k8s.io/v1 Event with type Other and no action is 422', async () => {
    const r = await t.json('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2026-01-01T00:00:00.000000Z', type: 'Other', reason: 'Started',
        reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe('Event.events.k8s.io "e" is invalid: [action: Required value, type: Invalid value: "": has invalid value: Other]');
  });

  it('[API-VER-142] [API-VER-145] a CSR needs a signer; status conditions are unique by type and need a status', async () => {
    const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const request = btoa(testCertificateRequestPem);
    const bad = await t.json('POST', path, { body: { metadata: { name: 'c' }, spec: { request, usages: ['client auth'] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "c" is invalid: spec.signerName: Required value');
    const made = await t.json('POST', path, { body: { metadata: { name: 'c' }, spec: { request, signerName: 'example.com/signer', usages: ['client auth'] } } });
    expect(made.status).toBe(201);
    // Through status (approval is not served yet): condition types are unique and each needs a status.
    const failed = { type: 'Failed', status: 'True', reason: 'Test' };
    const twice = await t.json('PUT', `${path}/c/status`, { body: { ...made.body, status: { conditions: [failed, failed] } } });
    expect(twice.status).toBe(422);
    expect(twice.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "c" is invalid: status.conditions[1].type: Duplicate value: "Failed"');
    const noStatus = await t.json('PUT', `${path}/c/status`, { body: { ...made.body, status: { conditions: [{ type: 'Failed' }] } } });
    expect(noStatus.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "c" is invalid: status.conditions[0].status: Required value');
    const once = await t.json('PUT', `${path}/c/status`, { body: { ...made.body, status: { conditions: [failed] } } });
    expect(once.status).toBe(200);
  });
});
