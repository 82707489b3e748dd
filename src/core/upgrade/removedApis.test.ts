/** The removed-API check through POST /apis/upgrade.kubesim.dev/v1alpha1/removedapichecks, as the workbench calls it. */
import { describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';
import { checkManifests } from './removedApis';

const ingress = `apiVersion: extensions/v1beta1
kind: Ingress
metadata:
  name: web
  namespace: shop
spec:
  backend:
    serviceName: default-svc
    servicePort: 8080
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /api
        backend:
          serviceName: api
          servicePort: http
`;

async function check(t: TestServer, manifests: string, targetVersion?: string) {
  const r = await t.json('POST', '/apis/upgrade.kubesim.dev/v1alpha1/removedapichecks', {
    body: { apiVersion: 'upgrade.kubesim.dev/v1alpha1', kind: 'RemovedAPICheck', spec: { manifests, ...(targetVersion ? { targetVersion } : {}) } },
  });
  expect(r.status).toBe(201);
  return r.body.status;
}

describe('removed-API check', () => {
  it('[API-VER-147][API-VER-148][API-VER-149][API-VER-150] an extensions/v1beta1 Ingress: removed in 1.22, networking.k8s.io/v1 instead, converted field by field', async () => {
    const t = await newTestServer();
    const status = await check(t, ingress);
    expect(status.targetVersion).toBe('1.36.0');
    expect(status.errors).toEqual([]);
    const [report] = status.objects;
    expect(report).toMatchObject({ index: 0, apiVersion: 'extensions/v1beta1', kind: 'Ingress', name: 'web', namespace: 'shop', removed: true, removedIn: '1.22', replacement: 'networking.k8s.io/v1', replacementSince: '1.19' });
    expect(report.changes).toContain('backend serviceName is renamed service.name');
    expect(report.converted).toEqual({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'shop' },
      spec: {
        defaultBackend: { service: { name: 'default-svc', port: { number: 8080 } } },
        rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/api', pathType: 'ImplementationSpecific', backend: { service: { name: 'api', port: { name: 'http' } } } }] } }],
      },
    });
    // The converted manifest is accepted by this server as it is.
    await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } });
    const created = await t.request('POST', '/apis/networking.k8s.io/v1/namespaces/shop/ingresses', { body: report.converted });
    expect(created.status).toBe(201);
  });

  it('reports every object of a multi-document manifest and a List, with the target release deciding "removed"', async () => {
    const t = await newTestServer();
    const manifests = [
      'apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  rollbackTo: {revision: 1}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c, image: nginx}]}',
      'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: policy/v1beta1, kind: PodDisruptionBudget, metadata: {name: p}, spec: {minAvailable: 1, selector: {}}}\n- {apiVersion: policy/v1beta1, kind: PodSecurityPolicy, metadata: {name: psp}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: fine}}',
      'apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata: {name: fs}',
      'just a string',
    ].join('\n---\n');
    const status = await check(t, manifests, '1.25');
    expect(status.errors).toEqual(['document 4: not a Kubernetes object (apiVersion and kind are required)']);
    const [deploy, pdb, psp, cm, fs] = status.objects;
    expect(deploy).toMatchObject({ removed: true, removedIn: '1.16', replacement: 'apps/v1' });
    expect(deploy.converted.spec).toEqual({ selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    expect(pdb).toMatchObject({ removed: true, removedIn: '1.25', replacement: 'policy/v1' });
    expect(pdb.converted).toBeUndefined();
    expect(pdb.conversionNote).toContain('selects every pod in policy/v1');
    expect(psp).toMatchObject({ removed: true, removedIn: '1.25', conversionNote: 'nothing replaces this API' });
    expect(psp.replacement).toBeUndefined();
    expect(cm).toEqual({ index: 3, apiVersion: 'v1', kind: 'ConfigMap', name: 'fine', removed: false });
    // flowcontrol v1beta3 goes in 1.32: still served by 1.25.
    expect(fs).toMatchObject({ removed: false, removedIn: '1.32', replacement: 'flowcontrol.apiserver.k8s.io/v1' });
  });

  it('webhook configurations keep their v1beta1 behaviour by writing the old defaults out, unless sideEffects needs a decision', () => {
    const ok = checkManifests('apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n- {name: a.example.com, sideEffects: None, clientConfig: {url: "https://x"}}', '1.36');
    expect(ok.objects[0]!.converted!['webhooks']).toEqual([{ name: 'a.example.com', sideEffects: 'None', clientConfig: { url: 'https://x' }, failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 30, admissionReviewVersions: ['v1beta1'] }]);
    const unknown = checkManifests('apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\nwebhooks:\n- {name: b.example.com}', '1.36');
    expect(unknown.objects[0]!.converted).toBeUndefined();
    expect(unknown.objects[0]!.conversionNote).toContain('sideEffects must be None or NoneOnDryRun');
  });

  it('EndpointSlice topology keys become nodeName and zone; access reviews rename spec.group', () => {
    const slice = checkManifests('{"apiVersion":"discovery.k8s.io/v1beta1","kind":"EndpointSlice","metadata":{"name":"s"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"topology":{"kubernetes.io/hostname":"n1","topology.kubernetes.io/zone":"z1","rack":"r1"}}]}', '1.36');
    expect(slice.objects[0]!.converted!['endpoints']).toEqual([{ addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r1' } }]);
    const sar = checkManifests('apiVersion: authorization.k8s.io/v1beta1\nkind: SubjectAccessReview\nspec: {user: u, group: [g1]}', '1.36');
    expect(sar.objects[0]!.converted!['spec']).toEqual({ user: 'u', groups: ['g1'] });
  });

  it('a version still served but deprecated by the target release says since when and what replaces it', () => {
    const manifest = 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: e}';
    expect(checkManifests(manifest, '1.32').objects[0]).toEqual({ index: 0, apiVersion: 'v1', kind: 'Endpoints', name: 'e', removed: false });
    expect(checkManifests(manifest, '1.36').objects[0]).toEqual({ index: 0, apiVersion: 'v1', kind: 'Endpoints', name: 'e', removed: false, deprecatedIn: '1.33', replacement: 'discovery.k8s.io/v1' });
    expect(checkManifests('apiVersion: networking.k8s.io/v1beta1\nkind: ServiceCIDR\nmetadata: {name: s}', '1.36').objects[0])
      .toMatchObject({ removed: false, deprecatedIn: '1.34', removedIn: '1.37', replacement: 'networking.k8s.io/v1' });
  });

  it('autoscaling/v2beta1 metrics become v2 MetricTargets and MetricIdentifiers', async () => {
    const hpa = {
      apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 60 } },
          { type: 'Pods', pods: { metricName: 'rps', targetAverageValue: '100' } },
          { type: 'Object', object: { target: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metricName: 'hits', targetValue: '2k' } },
          { type: 'External', external: { metricName: 'queue', metricSelector: { matchLabels: { q: 'jobs' } }, targetAverageValue: '30' } },
        ],
      },
    };
    const [report] = checkManifests(JSON.stringify(hpa), '1.36').objects;
    expect(report).toMatchObject({ removed: true, removedIn: '1.25', replacement: 'autoscaling/v2' });
    expect(report!.converted!['spec']).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
        { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value', value: '2k' } } },
        { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
      ],
    });
    // The server takes the converted object as it is.
    const t = await newTestServer();
    const created = await t.json('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { body: report!.converted });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it('[API-VER-134][API-VER-140] a v1beta1 CustomResourceDefinition moves its version, schema, subresources and columns into spec.versions', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  version: v1
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  subresources: {status: {}}
  additionalPrinterColumns:
  - {name: Spec, type: string, JSONPath: .spec.cronSpec}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec: {type: object, properties: {cronSpec: {type: string}}}
`;
    const [report] = checkManifests(crd, '1.36').objects;
    expect(report!.converted!['spec']).toEqual({
      group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } }, 'x-kubernetes-preserve-unknown-fields': true } },
      }],
    });
    const t = await newTestServer();
    const created = await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: report!.converted });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
});
