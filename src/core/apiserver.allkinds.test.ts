/** Every built-in resource the server serves answers the verbs discovery promises, through HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';
import { testCertificateRequestPem } from './testing/certificates';

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

let t: TestServer;
const served: { groupVersion: string; resource: DiscoveredResource }[] = [];

/** Kinds whose name is fixed by their content (a CRD is <plural>.<group>, an APIService <version>.<group>). */
const fixedNames: Record<string, string> = { CustomResourceDefinition: 'widgets.example.com', APIService: 'v1.example.com', IPAddress: '10.96.100.1' };

/** The fields each kind's validation requires before an object of the kind is valid. */

const required: Record<string, Record<string, unknown>> = {
  CustomResourceDefinition: {
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  },
  Pod: { spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  Service: { spec: { ports: [{ port: 80 }] } },
  Deployment: { spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  ReplicaSet: { spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  StatefulSet: { spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  DaemonSet: { spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  ReplicationController: { spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  PodTemplate: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  Job: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
  CronJob: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } } },
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  PersistentVolume: { spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' } } },
  Ingress: { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
  IngressClass: { spec: { controller: 'example.com/ingress' } },
  RoleBinding: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
  ClusterRoleBinding: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' } },
  HorizontalPodAutoscaler: { spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } },
  StorageClass: { provisioner: 'example.com/disk' },
  ValidatingAdmissionPolicy: {
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: 'true' }],
    },
  },
  ValidatingAdmissionPolicyBinding: { spec: { policyName: 'p', validationActions: ['Deny'] } },
  MutatingAdmissionPolicy: {
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
      reinvocationPolicy: 'Never',
    },
  },
  MutatingAdmissionPolicyBinding: { spec: { policyName: 'p' } },
  ServiceCIDR: { spec: { cidrs: ['10.100.0.0/16'] } },
  IPAddress: { spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } },
  ResourceSlice: { spec: { driver: 'gpu.example.com', pool: { name: 'node-1', resourceSliceCount: 1 }, nodeName: 'node-1' } },
  // Both Event kinds: core/v1 ignores the events.k8s.io/v1 names and the other way round.
  Event: {
    eventTime: '2026-01-01T00:00:00.000000Z', type: 'Normal', reason: 'Tested', action: 'Test',
    reportingController: 'example.com/tester', reportingComponent: 'example.com/tester', reportingInstance: 'tester-1',
  },
  EndpointSlice: { addressType: 'IPv4' },
  RuntimeClass: { handler: 'runc' },
  CSIStorageCapacity: { storageClassName: 'standard' },
  VolumeAttachment: { spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } } },
  FlowSchema: { spec: { priorityLevelConfiguration: { name: 'workload-low' } } },
  PriorityLevelConfiguration: { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  LeaseCandidate: { spec: { leaseName: 'kube-scheduler', binaryVersion: '1.36.0', emulationVersion: '1.36.0', strategy: 'OldestEmulationVersion' } },
  VolumeAttributesClass: { driverName: 'csi.example.com', parameters: { iops: '1000' } },
  APIService: { spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 } },
  ClusterTrustBundle: { spec: { trustBundle: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } },
  CertificateSigningRequest: {
    spec: { request: btoa(testCertificateRequestPem), signerName: 'example.com/signer', usages: ['client auth'] },
  },
};

beforeAll(async () => {
  t = await newTestServer();
  const groups = (await t.json('GET', '/apis', { headers: { accept: 'application/json' } })).body.groups as { preferredVersion: { groupVersion: string } ; versions: { groupVersion: string }[] }[];
  for (const gv of ['v1', ...groups.flatMap((g) => g.versions.map((v) => v.groupVersion))]) {
    const list = await t.json('GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    for (const r of list.body.resources as DiscoveredResource[]) if (!r.name.includes('/')) served.push({ groupVersion: gv, resource: r });
  }
});

const base = (gv: string) => (gv === 'v1' ? '/api/v1' : `/apis/${gv}`);

describe('every served built-in resource', () => {
  it('[API-OTHER-002][API-ENC-016] GET of each listable collection is 200 JSON with kind <Kind>List', async () => {
    expect(served.length).toBeGreaterThan(60);
    for (const { groupVersion, resource } of served) {
      if (!resource.verbs.includes('list')) continue;
      const r = await t.json('GET', `${base(groupVersion)}/${resource.name}`);
      expect(r.status, `${groupVersion} ${resource.name}`).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.body.kind).toBe(`${resource.kind}List`);
    }
  });

  it('create, get, update, list and delete work for every kind that has those verbs', async () => {
    let exercised = 0;
    for (const { groupVersion, resource } of served) {
      const v = resource.verbs;
      if (!['create', 'get', 'update', 'delete', 'list'].every((x) => v.includes(x))) continue;
      // Namespaces go through Terminating first; their lifecycle has its own tests.
      if (resource.name === 'namespaces') continue;
      const ns = resource.namespaced ? '/namespaces/default' : '';
      const name = fixedNames[resource.kind] ?? `k-${resource.name.replace(/[^a-z0-9]/g, '')}`.slice(0, 50);
      const path = `${base(groupVersion)}${ns}/${resource.name}`;
      const body = { apiVersion: groupVersion, kind: resource.kind, metadata: { name, labels: { suite: 'all' } }, ...(required[resource.kind] ?? {}) };
      const c = await t.json('POST', `${path}?fieldValidation=Ignore`, { body });
      expect(c.status, `create ${groupVersion} ${resource.name}: ${JSON.stringify(c.body).slice(0, 300)}`).toBe(201);
      const g = await t.json('GET', `${path}/${name}`);
      expect(g.body.kind).toBe(resource.kind);
      const u = await t.json('PUT', `${path}/${name}?fieldValidation=Ignore`, { body: { ...g.body, metadata: { ...g.body.metadata, labels: { suite: 'all', updated: 'yes' } } } });
      expect(u.status, `update ${resource.name}`).toBe(200);
      expect(u.body.metadata.labels.updated).toBe('yes');
      const l = await t.json('GET', `${path}?labelSelector=updated%3Dyes`);
      expect(l.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);
      const d = await t.json('DELETE', `${path}/${name}`);
      expect(d.status, `delete ${resource.name}`).toBe(200);
      // Claims and volumes carry the storage protection finalizers: their controllers drop them, as nothing uses them.
      const protection = { persistentvolumes: 'kubernetes.io/pv-protection', persistentvolumeclaims: 'kubernetes.io/pvc-protection' }[resource.name];
      if (protection) expect(d.body.metadata.finalizers).toEqual([protection]);
      // So do objects whose deletion orphans their dependents (ReplicationControllers): the garbage collector
      // drops the orphan finalizer after the delete was answered, as in kube-controller-manager.
      const finalized = protection !== undefined || (d.body.metadata?.finalizers?.length ?? 0) > 0;
      let gone = await t.json('GET', `${path}/${name}`);
      for (let i = 0; i < 100 && gone.status === 200 && finalized; i++) {
        await new Promise((r) => setTimeout(r, 10));
        gone = await t.json('GET', `${path}/${name}`);
      }
      expect(gone.status).toBe(404);
      exercised++;
    }
    expect(exercised).toBeGreaterThan(50);
  });
});
