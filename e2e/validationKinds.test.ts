/** Real kubectl 1.32: `kubectl create -f` of invalid manifests prints kube-apiserver's causes; forbidden updates are refused. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const create = (manifest: string) => t.kubectl(['create', '-f', '-'], manifest);

describe('kubectl create -f of invalid built-in objects', () => {
  it('ConfigMap with key `bad key!`', async () => {
    const r = await create(`apiVersion: v1
kind: ConfigMap
metadata: {name: bad}
data: {"bad key!": x}
`);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `The ConfigMap "bad" is invalid: data[bad key!]: Invalid value: "bad key!": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  });

  it('API-VER-151: Ingress with pathType Sometimes', async () => {
    const r = await create(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules:
  - http:
      paths:
      - {path: /, pathType: Sometimes, backend: {service: {name: web, port: {number: 80}}}}
`);
    expect(r.stderr.trim()).toBe(
      'The Ingress "web" is invalid: spec.rules[0].http.paths[0].pathType: Unsupported value: "Sometimes": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    );
  });

  it('PersistentVolumeClaim without access modes: every cause, one per line', async () => {
    const r = await create(`apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {}
`);
    expect(r.stderr.trim()).toBe(
      'The PersistentVolumeClaim "data" is invalid: \n* spec.accessModes: Required value: at least 1 access mode is required\n* spec.resources[storage]: Required value',
    );
  });

  it('HorizontalPodAutoscaler with minReplicas 0', async () => {
    const r = await create(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  minReplicas: 0
  maxReplicas: 3
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`);
    expect(r.stderr.trim()).toBe('The HorizontalPodAutoscaler "web" is invalid: spec.minReplicas: Invalid value: 0: must be greater than or equal to 1');
  });

  it('API-VER-130: webhook with sideEffects Some', async () => {
    const r = await create(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
webhooks:
- name: check.example.com
  sideEffects: Some
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://hook.example.com/"}
`);
    expect(r.stderr.trim()).toBe(
      'The ValidatingWebhookConfiguration "check" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
  });
});

describe('updates kube-apiserver forbids', () => {
  it('AC-RBAC-029: changing a RoleBinding roleRef', async () => {
    const made = await t.kubectl(['create', 'rolebinding', 'rb', '--role=reader', '--user=alice']);
    expect(made.code).toBe(0);
    const r = await t.kubectl(['patch', 'rolebinding', 'rb', '--type=merge', '-p', '{"roleRef":{"name":"admin"}}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      'The RoleBinding "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"admin"}: cannot change roleRef',
    );
  });

  it('changing the data of an immutable ConfigMap', async () => {
    const made = await create(`apiVersion: v1
kind: ConfigMap
metadata: {name: frozen}
immutable: true
data: {a: "1"}
`);
    expect(made.code).toBe(0);
    const r = await t.kubectl(['patch', 'configmap', 'frozen', '--type=merge', '-p', '{"data":{"a":"2"}}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
  });
});
