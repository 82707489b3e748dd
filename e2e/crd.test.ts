/**
 * Real kubectl 1.32 against the Node host: CustomResourceDefinitions applied,
 * listed and explained; custom objects created, patched, applied, printed
 * with their printer columns and scaled; a CEL rule's violation as kubectl
 * prints it; a ValidatingAdmissionPolicy's Deny error and Warn warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a thing with a color.
        properties:
          spec:
            type: object
            description: The widget's desired state.
            x-kubernetes-validations:
            - rule: self.replicas <= 10
              message: at most 10 replicas
            properties:
              replicas:
                type: integer
                description: How many widgets.
              color:
                type: string
                enum: [red, green, blue]
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

const widget = (name: string, replicas: number, color = 'red') => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  color: ${color}
`;

describe('kubectl and custom resources', () => {
  it('applies a CRD and serves its resource', async () => {
    const r = await t.kubectl(['apply', '-f', '-'], crd);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n');
    const get = await t.kubectl(['get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
    expect(get.stdout).toBe('True');
    const list = await t.kubectl(['get', 'crd']);
    expect(list.stdout).toMatch(/^NAME\s+CREATED AT\nwidgets\.example\.com\s+\d{4}-\d\d-\d\dT/);
    const resources = await t.kubectl(['api-resources', '--api-group=example.com']);
    expect(resources.stdout).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\nwidgets\s+wd\s+example\.com\/v1\s+true\s+Widget\n$/);
  });

  it('explains the custom kind', async () => {
    const r = await t.kubectl(['explain', 'widgets.spec']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('GROUP:      example.com');
    expect(r.stdout).toContain('KIND:       Widget');
    expect(r.stdout).toContain("The widget's desired state.");
    expect(r.stdout).toMatch(/replicas\s+<integer>\n\s+How many widgets\./);
  });

  it('creates, gets with printer columns, patches and applies custom objects', async () => {
    expect((await t.kubectl(['create', '-f', '-'], widget('w1', 2))).stdout).toBe('widget.example.com/w1 created\n');
    const get = await t.kubectl(['get', 'widgets']);
    expect(get.stdout).toMatch(/^NAME\s+REPLICAS\s+COLOR\s+AGE\nw1\s+2\s+red\s+\d+s\n$/);
    const short = await t.kubectl(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.color}']);
    expect(short.stdout).toBe('red');
    const patch = await t.kubectl(['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
    expect(patch.stdout).toBe('widget.example.com/w1 patched\n');
    const apply = await t.kubectl(['apply', '--server-side', '-f', '-'], widget('w2', 1, 'green'));
    expect(apply.stdout).toBe('widget.example.com/w2 serverside-applied\n');
    const all = await t.kubectl(['get', 'all']);
    expect(all.stdout).toContain('widget.example.com/w1');
  });

  it('prints a rule violation and a schema violation as kube-apiserver words them', async () => {
    const r = await t.kubectl(['apply', '-f', '-'], widget('w3', 11));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe('The Widget "w3" is invalid: spec: Invalid value: "object": at most 10 replicas\n');
    const e = await t.kubectl(['apply', '-f', '-'], widget('w4', 1, 'pink'));
    expect(e.stderr).toBe('The Widget "w4" is invalid: spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"\n');
  });

  it('scales through the scale subresource', async () => {
    const r = await t.kubectl(['scale', 'widget', 'w1', '--replicas=4']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('widget.example.com/w1 scaled\n');
    expect((await t.kubectl(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('4');
  });

  it('deleting the CRD removes its objects', async () => {
    const r = await t.kubectl(['delete', 'crd', 'widgets.example.com']);
    expect(r.stdout).toBe('customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n');
    const get = await t.kubectl(['get', 'widgets']);
    expect(get.code).not.toBe(0);
    // kubectl's discovery cache may still name the resource: then the list itself is 404.
    expect(get.stderr).toMatch(/the server doesn't have a resource type "widgets"|Error from server \(NotFound\): Unable to list "example.com\/v1, Resource=widgets": the server could not find the requested resource/);
  });
});

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo-policy.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
`;

const policyBinding = (actions: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding-test.example.com
spec:
  policyName: demo-policy.example.com
  validationActions: [${actions}]
`;

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx:1.27
`;

describe('kubectl and ValidatingAdmissionPolicy', () => {
  it('prints the Deny error', async () => {
    expect((await t.kubectl(['apply', '-f', '-'], policy)).stdout).toBe('validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com created\n');
    expect((await t.kubectl(['apply', '-f', '-'], policyBinding('Deny'))).stdout).toBe('validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com created\n');
    const r = await t.kubectl(['create', '-f', '-'], deployment('nginx', 6));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe(
      "The deployments \"nginx\" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5\n",
    );
  });

  it('prints the Warn warning and admits', async () => {
    expect((await t.kubectl(['apply', '-f', '-'], policyBinding('Warn'))).stdout).toBe('validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com configured\n');
    const r = await t.kubectl(['create', '-f', '-'], deployment('nginx', 6));
    expect(r.stdout).toBe('deployment.apps/nginx created\n');
    expect(r.stderr).toBe(
      "Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com': failed expression: object.spec.replicas <= 5\n",
    );
  });
});

describe('CRDs survive a restart of the host (SQLite)', () => {
  it('serves the stored CRD and its objects again', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startHost } = await import('../server/host');
    const dataDir = join(mkdtempSync(join(tmpdir(), 'kubesim-crd-')), 'data');
    const start = () => startHost({ port: 0, bindAddress: '127.0.0.1', dataDir, store: 'sqlite', tls: false, securePort: 0, help: false });
    const json = { 'content-type': 'application/yaml' };
    const first = await start();
    try {
      const crdRes = await fetch(`${first.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: json, body: crd });
      expect(crdRes.status).toBe(201);
      const obj = await fetch(`${first.url}/apis/example.com/v1/namespaces/default/widgets`, { method: 'POST', headers: json, body: widget('kept', 3) });
      expect(obj.status).toBe(201);
    } finally {
      await first.close();
    }
    const second = await start();
    try {
      const got = await fetch(`${second.url}/apis/example.com/v1/namespaces/default/widgets/kept`);
      expect(got.status).toBe(200);
      expect(((await got.json()) as { spec: unknown }).spec).toEqual({ replicas: 3, color: 'red' });
      const discovery = await fetch(`${second.url}/apis/example.com/v1`);
      expect(discovery.status).toBe(200);
    } finally {
      await second.close();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
