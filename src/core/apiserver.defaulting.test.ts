/**
 * Decode-time defaulting and field ownership through handle(): the writer of
 * a create, PUT or patch owns the fields the kind's defaults filled in (the
 * codec defaults before the field manager runs), never what mutating
 * admission or the strategy add afterwards; an applier owns only what it applied.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from './testing/client';

let t: TestServer;
beforeEach(async () => {
  t = await newTestServer();
  await t.json('POST', '/api/v1/namespaces?fieldManager=kubectl-create', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } } });
  // The ServiceAccount admission plugin needs the namespace's default ServiceAccount.
  await t.json('POST', '/api/v1/namespaces/ns1/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
});

const PODS = '/api/v1/namespaces/ns1/pods';
const DEPLOY = '/apis/apps/v1/namespaces/ns1/deployments';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const JSONPATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, any>;
}

const entries = (obj: { metadata: { managedFields?: Entry[] } }): Entry[] => obj.metadata.managedFields ?? [];
const fieldsOf = (obj: { metadata: { managedFields?: Entry[] } }, manager: string): Record<string, any> | undefined => entries(obj).find((e) => e.manager === manager)?.fieldsV1;

/** What `kubectl run nginx --image=nginx` sends. */
const kubectlRunPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'nginx', labels: { run: 'nginx' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }], dnsPolicy: 'ClusterFirst', restartPolicy: 'Always' },
  status: {},
};

/** The fields a set names, its own '.' mark left out (where it has one, the test checks it separately). */
const fieldNames = (set: Record<string, unknown>) => Object.keys(set).filter((k) => k !== '.').sort();

/** The spec fields of a Pod the creator owns once its spec is defaulted (the PodSpec defaults kubectl run leaves out). */
const defaultedPodSpecFields = ['f:containers', 'f:dnsPolicy', 'f:enableServiceLinks', 'f:restartPolicy', 'f:schedulerName', 'f:securityContext', 'f:terminationGracePeriodSeconds'];

/** A container's fields its creator owns once defaulted: the image's pull policy, termination message and resources. */
const defaultedContainer = { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} };

describe('create: the creator owns the defaulted fields', () => {
  it('[API-SSA-004] [API-SSA-009] kubectl run: the Update entry owns the PodSpec and container defaults, not what admission and the strategy add', async () => {
    const r = await t.json('POST', `${PODS}?fieldManager=kubectl-run`, { body: kubectlRunPod });
    expect(r.status).toBe(201);
    // Admission did add its fields (ServiceAccount, DefaultTolerationSeconds), and the strategy the status...
    expect(r.body.spec.serviceAccountName).toBe('default');
    expect(r.body.spec.serviceAccount).toBe('default');
    expect(r.body.spec.tolerations.map((x: { key: string }) => x.key)).toEqual(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
    expect(r.body.spec.volumes[0].name).toMatch(/^kube-api-access-/);
    expect(r.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    // ...but the one entry is the creator's, and owns only the decoded (defaulted) object's fields.
    expect(entries(r.body).map((e) => [e.manager, e.operation])).toEqual([['kubectl-run', 'Update']]);
    const f = fieldsOf(r.body, 'kubectl-run')!;
    expect(Object.keys(f)).toEqual(['f:metadata', 'f:spec']);
    expect(f['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:run': {} } });
    expect(Object.keys(f['f:spec']).sort()).toEqual(defaultedPodSpecFields);
    // The create starts from the Go zero Pod, whose spec holds containers (null): the list is modified, not added, so no '.'.
    expect(Object.keys(f['f:spec']['f:containers'])).toEqual(['k:{"name":"nginx"}']);
    expect(f['f:spec']['f:containers']['k:{"name":"nginx"}']).toEqual(defaultedContainer);
  });

  it('[API-SSA-004] probe, port and lifecycle defaults are owned with the fields that brought them', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'probed' },
      spec: {
        containers: [{
          name: 'c',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80 }],
          readinessProbe: { httpGet: { port: 80 } },
          lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
        }],
      },
    };
    const r = await t.json('POST', `${PODS}?fieldManager=kubectl-create`, { body: pod });
    expect(r.status).toBe(201);
    const c = fieldsOf(r.body, 'kubectl-create')!['f:spec']['f:containers']['k:{"name":"c"}'];
    expect(c['f:readinessProbe']).toEqual({
      '.': {},
      'f:failureThreshold': {},
      'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} },
      'f:periodSeconds': {},
      'f:successThreshold': {},
      'f:timeoutSeconds': {},
    });
    expect(c['f:ports']).toEqual({ '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } });
    expect(c['f:lifecycle']).toEqual({ '.': {}, 'f:preStop': { '.': {}, 'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} } } });
    // A tagged image that is not :latest is pulled IfNotPresent, and that default is the creator's too.
    expect(r.body.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(c['f:imagePullPolicy']).toEqual({});
  });

  it('[API-SSA-004] a Deployment create owns the strategy, history and deadline defaults and its template defaults', async () => {
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    };
    const r = await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body });
    expect(r.status).toBe(201);
    const spec = fieldsOf(r.body, 'kubectl-create')!['f:spec'];
    expect(Object.keys(spec).sort()).toEqual(['f:progressDeadlineSeconds', 'f:replicas', 'f:revisionHistoryLimit', 'f:selector', 'f:strategy', 'f:template']);
    // As kube-apiserver records it: the Go zero Deployment holds strategy, template, its metadata and spec (value
    // structs) and the template's containers and the selector (null), so none of those carries '.'; the pointer
    // rollingUpdate and the labels map are added whole and do. The selector is atomic: one leaf.
    expect(spec['f:selector']).toEqual({});
    expect(spec['f:strategy']).toEqual({ 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} });
    expect(Object.keys(spec['f:template'])).toEqual(['f:metadata', 'f:spec']);
    expect(spec['f:template']['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    const template = spec['f:template']['f:spec'];
    // enableServiceLinks is SetDefaults_Pod's, so a template has no such default.
    expect(Object.keys(template).sort()).toEqual(defaultedPodSpecFields.filter((f) => f !== 'f:enableServiceLinks'));
    expect(Object.keys(template['f:containers'])).toEqual(['k:{"name":"nginx"}']);
    expect(template['f:containers']['k:{"name":"nginx"}']).toEqual(defaultedContainer);
    // Status is the strategy's, after the field manager: unowned.
    expect(fieldsOf(r.body, 'kubectl-create')!['f:status']).toBeUndefined();
  });

  it('[API-SSA-004] a workload template\'s PodSpec round-trips the deprecated serviceAccount as a pod\'s does, and its creator owns both', async () => {
    const deployment = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } } },
    });
    const named = await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body: deployment('named', { serviceAccountName: 'builder' }) });
    expect(named.status).toBe(201);
    expect(named.body.spec.template.spec.serviceAccountName).toBe('builder');
    expect(named.body.spec.template.spec.serviceAccount).toBe('builder');
    const owned = fieldsOf(named.body, 'kubectl-create')!['f:spec']['f:template']['f:spec'];
    expect(owned['f:serviceAccount']).toEqual({});
    expect(owned['f:serviceAccountName']).toEqual({});
    // Only the deprecated field: it names the account.
    const old = await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body: deployment('old', { serviceAccount: 'legacy' }) });
    expect(old.status).toBe(201);
    expect(old.body.spec.template.spec.serviceAccountName).toBe('legacy');
    // Changing the name moves the copy with it; a patch of the deprecated field alone is overruled by the name.
    const moved = await t.json('PATCH', `${DEPLOY}/named`, { body: { spec: { template: { spec: { serviceAccountName: 'deployer' } } } }, headers: { 'content-type': MERGE } });
    expect(moved.body.spec.template.spec.serviceAccount).toBe('deployer');
    const overruled = await t.json('PATCH', `${DEPLOY}/named`, { body: { spec: { template: { spec: { serviceAccount: 'other' } } } }, headers: { 'content-type': MERGE } });
    expect(overruled.body.spec.template.spec.serviceAccount).toBe('deployer');
    expect(overruled.body.metadata.resourceVersion).toBe(moved.body.metadata.resourceVersion);
  });

  it('[API-SSA-004] a Service create owns type, session affinity, traffic policy and each port\'s protocol and targetPort, not its allocated cluster IPs', async () => {
    const body = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    const r = await t.json('POST', '/api/v1/namespaces/ns1/services?fieldManager=kubectl-create', { body });
    expect(r.status).toBe(201);
    expect(r.body.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(fieldsOf(r.body, 'kubectl-create')).toEqual({
      'f:spec': {
        'f:internalTrafficPolicy': {},
        'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } },
        'f:selector': {},
        'f:sessionAffinity': {},
        'f:type': {},
      },
    });
  });

  it('[API-SSA-004] SetDefaults_Service: a ClusterIP Service with external IPs is Cluster-policy, no affinity drops an affinity config, a load balancer IP is a VIP', async () => {
    const SVC = '/api/v1/namespaces/ns1/services';
    const ext = await t.json('POST', `${SVC}?fieldManager=kubectl-create`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { externalIPs: ['192.0.2.10'], ports: [{ port: 80 }] } } });
    expect(ext.status).toBe(201);
    expect(ext.body.spec.externalTrafficPolicy).toBe('Cluster');
    expect(fieldsOf(ext.body, 'kubectl-create')!['f:spec']['f:externalTrafficPolicy']).toEqual({});
    const none = await t.json('POST', SVC, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'none' }, spec: { sessionAffinity: 'None', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } }, ports: [{ port: 80 }] } } });
    expect(none.status).toBe(201);
    expect(none.body.spec.sessionAffinityConfig).toBeUndefined();
    expect((await t.json('POST', SVC, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } } })).status).toBe(201);
    const status = await t.json('PATCH', `${SVC}/lb/status`, { body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }, { hostname: 'lb.example.com' }] } } }, headers: { 'content-type': MERGE } });
    expect(status.status).toBe(200);
    expect(status.body.status.loadBalancer.ingress).toEqual([{ ip: '192.0.2.20', ipMode: 'VIP' }, { hostname: 'lb.example.com' }]);
  });

  it('[API-SSA-004] a Namespace create owns its kubernetes.io/metadata.name label; a Secret create owns the data keys its stringData became', async () => {
    const ns = await t.json('GET', '/api/v1/namespaces/ns1');
    expect(fieldsOf(ns.body, 'kubectl-create')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } });
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'bee' } };
    const s = await t.json('POST', '/api/v1/namespaces/ns1/secrets?fieldManager=kubectl-create', { body: secret });
    expect(s.status).toBe(201);
    expect(s.body.data).toEqual({ a: 'YQ==', b: 'YmVl' });
    expect(s.body.stringData).toBeUndefined();
    // SetDefaults_Secret: a Secret without a type is Opaque, and that is the creator's too.
    expect(s.body.type).toBe('Opaque');
    expect(fieldsOf(s.body, 'kubectl-create')).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:type': {} });
  });

  it('[API-SSA-004] a Job takes its template\'s labels when it has none: the creator owns those, not the generated selector labels', async () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi' },
      spec: { template: { metadata: { labels: { app: 'pi' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
    };
    const r = await t.json('POST', '/apis/batch/v1/namespaces/ns1/jobs?fieldManager=kubectl-create', { body: job });
    expect(r.status).toBe(201);
    const uid = r.body.metadata.uid;
    // The Job's labels are its template's map, so they carry the generated ones as well.
    expect(r.body.metadata.labels).toEqual({ app: 'pi', 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' });
    expect(r.body.spec.template.metadata.labels).toEqual(r.body.metadata.labels);
    const f = fieldsOf(r.body, 'kubectl-create')!;
    expect(f['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    expect(fieldNames(f['f:spec'])).toEqual(['f:backoffLimit', 'f:completionMode', 'f:completions', 'f:parallelism', 'f:podReplacementPolicy', 'f:suspend', 'f:template']);
    expect(f['f:spec']['f:template']['f:metadata']['f:labels']).toEqual({ '.': {}, 'f:app': {} });
  });

  it('[API-SSA-004] a NetworkPolicy gets its policyTypes (Egress only with egress rules) and each port TCP; the creator owns them', async () => {
    const ingressOnly = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'in' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 'http' }, { port: 53, protocol: 'UDP' }] }] } };
    const r = await t.json('POST', '/apis/networking.k8s.io/v1/namespaces/ns1/networkpolicies?fieldManager=kubectl-create', { body: ingressOnly });
    expect(r.status).toBe(201);
    expect(r.body.spec.policyTypes).toEqual(['Ingress']);
    expect(r.body.spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }, { port: 53, protocol: 'UDP' }]);
    expect(fieldsOf(r.body, 'kubectl-create')!['f:spec']['f:policyTypes']).toEqual({});
    const both = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'out' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } };
    const e = await t.json('POST', '/apis/networking.k8s.io/v1/namespaces/ns1/networkpolicies', { body: both });
    expect(e.body.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(e.body.spec.egress[0].ports).toEqual([{ port: 53, protocol: 'TCP' }]);
    // Types written are kept as written.
    const egressOnly = { ...both, metadata: { name: 'out-only' }, spec: { ...both.spec, policyTypes: ['Egress'] } };
    expect((await t.json('POST', '/apis/networking.k8s.io/v1/namespaces/ns1/networkpolicies', { body: egressOnly })).body.spec.policyTypes).toEqual(['Egress']);
  });

  it('[API-SSA-004] an IngressClass\'s parameters without a scope are Cluster-scoped (validation would refuse them unset)', async () => {
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'ic' }, spec: { controller: 'example.com/ic', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' } } };
    const r = await t.json('POST', '/apis/networking.k8s.io/v1/ingressclasses?fieldManager=kubectl-create', { body });
    expect(r.status).toBe(201);
    expect(r.body.spec.parameters).toEqual({ apiGroup: 'example.com', kind: 'Params', name: 'p', scope: 'Cluster' });
    expect(fieldsOf(r.body, 'kubectl-create')!['f:spec']['f:parameters']['f:scope']).toEqual({});
  });

  it('[API-SSA-004] a RoleBinding\'s and ClusterRoleBinding\'s roleRef and user and group subjects are RBAC\'s without an apiGroup; the creator owns it', async () => {
    const subjects = [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'dev' }, { kind: 'ServiceAccount', name: 'default', namespace: 'ns1' }];
    const rb = await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings?fieldManager=kubectl-create', { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb' }, roleRef: { kind: 'Role', name: 'r' }, subjects } });
    expect(rb.status).toBe(201);
    expect(rb.body.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
    expect(rb.body.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'dev' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'ns1' },
    ]);
    // roleRef is an atomic struct: its creator owns it whole, defaulted apiGroup included.
    expect(fieldsOf(rb.body, 'kubectl-create')!['f:roleRef']).toEqual({});
    const crb = await t.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'crb' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'dev' }] } });
    expect(crb.status).toBe(201);
    expect(crb.body.roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
    expect(crb.body.subjects[0].apiGroup).toBe('rbac.authorization.k8s.io');
  });

  it('[API-SSA-004] a StorageClass is Delete and Immediate, a CSIDriver gets every SetDefaults_CSIDriver field, a VolumeAttachment\'s inline spec its source\'s; the creator owns them', async () => {
    const sc = await t.json('POST', '/apis/storage.k8s.io/v1/storageclasses?fieldManager=kubectl-create', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'standard' }, provisioner: 'example.com/disk' } });
    expect(sc.status).toBe(201);
    expect([sc.body.reclaimPolicy, sc.body.volumeBindingMode]).toEqual(['Delete', 'Immediate']);
    expect(fieldNames(fieldsOf(sc.body, 'kubectl-create')!)).toEqual(['f:provisioner', 'f:reclaimPolicy', 'f:volumeBindingMode']);
    const driver = await t.json('POST', '/apis/storage.k8s.io/v1/csidrivers?fieldManager=kubectl-create', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'disk.example.com' }, spec: {} } });
    expect(driver.status).toBe(201);
    expect(driver.body.spec).toEqual({
      attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false,
    });
    expect(fieldNames(fieldsOf(driver.body, 'kubectl-create')!['f:spec'])).toEqual(['f:attachRequired', 'f:fsGroupPolicy', 'f:podInfoOnMount', 'f:requiresRepublish', 'f:seLinuxMount', 'f:storageCapacity', 'f:volumeLifecycleModes']);
    // Explicit values stay.
    const told = await t.json('POST', '/apis/storage.k8s.io/v1/csidrivers', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'nfs.example.com' }, spec: { attachRequired: false, volumeLifecycleModes: ['Ephemeral'] } } });
    expect([told.body.spec.attachRequired, told.body.spec.volumeLifecycleModes]).toEqual([false, ['Ephemeral']]);
    const inline = { capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteOnce'], rbd: { monitors: ['10.0.0.1:6789'], image: 'img' } };
    const va = await t.json('POST', '/apis/storage.k8s.io/v1/volumeattachments', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'disk.example.com', nodeName: 'n1', source: { inlineVolumeSpec: inline } } } });
    expect(va.status).toBe(201);
    expect(va.body.spec.source.inlineVolumeSpec).toEqual({ ...inline, capacity: { storage: '1Gi' }, rbd: { ...inline.rbd, pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } });
  });

  it('[API-SSA-004] a PodTemplate\'s volumes get SetDefaults_Volume and their sources\' defaults, its probes and overhead theirs; the creator owns them', async () => {
    const spec = {
      containers: [{ name: 'app', image: 'example.com/app:1.0', livenessProbe: { grpc: { port: 9000 } } }],
      overhead: { cpu: '0.25' },
      volumes: [
        { name: 'scratch' },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } },
        { name: 'data', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } } } },
        { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
        { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'img' } },
        { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://example.com/d' } },
        { name: 'model', image: { reference: 'example.com/model:latest' } },
      ],
    };
    const r = await t.json('POST', '/api/v1/namespaces/ns1/podtemplates?fieldManager=kubectl-create', { body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'pt' }, template: { spec } } });
    expect(r.status).toBe(201);
    const got = r.body.template.spec;
    expect(got.containers[0].livenessProbe.grpc).toEqual({ port: 9000, service: '' });
    expect(got.overhead).toEqual({ cpu: '250m' });
    expect(got.volumes).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'token', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }] } },
      { name: 'data', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' } } } },
      { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0, iscsiInterface: 'default' } },
      { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } },
      { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://example.com/d', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' } },
      { name: 'model', image: { reference: 'example.com/model:latest', pullPolicy: 'Always' } },
    ]);
    const volumes = fieldsOf(r.body, 'kubectl-create')!['f:template']['f:spec']['f:volumes'];
    expect(volumes['k:{"name":"scratch"}']).toEqual({ '.': {}, 'f:emptyDir': {}, 'f:name': {} });
    expect(volumes['k:{"name":"model"}']['f:image']).toEqual({ '.': {}, 'f:pullPolicy': {}, 'f:reference': {} });
  });

  it('[API-SSA-004] claims and claim templates are Filesystem with their quantities as encoded; a StatefulSet\'s claim templates are Pending as SetDefaults_PersistentVolumeClaim leaves them', async () => {
    const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } };
    const pvc = await t.json('POST', '/api/v1/namespaces/ns1/persistentvolumeclaims?fieldManager=kubectl-create', { body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: claimSpec } });
    expect(pvc.status).toBe(201);
    expect(pvc.body.spec).toEqual({ ...claimSpec, resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
    expect(fieldsOf(pvc.body, 'kubectl-create')!['f:spec']['f:resources']).toEqual({ 'f:requests': { '.': {}, 'f:storage': {} } });
    const pv = await t.json('POST', '/api/v1/persistentvolumes', { body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v' }, spec: { capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteOnce'], iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } } } });
    expect(pv.status).toBe(201);
    expect(pv.body.spec.capacity).toEqual({ storage: '1Gi' });
    expect(pv.body.spec.iscsi.iscsiInterface).toBe('default');
    const sts = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' },
      spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:17' }] } }, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: claimSpec }] },
    };
    const r = await t.json('POST', '/apis/apps/v1/namespaces/ns1/statefulsets?fieldManager=kubectl-create', { body: sts });
    expect(r.status).toBe(201);
    expect(r.body.spec.volumeClaimTemplates).toEqual([{ metadata: { name: 'data' }, spec: { ...claimSpec, resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }]);
  });

  it('[API-SSA-004] a resource list is rounded up to milli scale (SetDefaults_ResourceList): a container\'s requests and limits, a LimitRange\'s defaults', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fine' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1500u', memory: '100.5m' }, limits: { cpu: '0.0021', memory: '1Gi' } } }] } };
    const created = await t.json('POST', PODS, { body: pod });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.spec.containers[0].resources).toEqual({ requests: { cpu: '2m', memory: '101m' }, limits: { cpu: '3m', memory: '1Gi' } });
    const lr = await t.json('POST', '/api/v1/namespaces/ns1/limitranges', { body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', default: { cpu: '1.0001' }, defaultRequest: { cpu: '10u' } }] } } });
    expect(lr.status).toBe(201);
    expect(lr.body.spec.limits[0]).toMatchObject({ default: { cpu: '1001m' }, defaultRequest: { cpu: '1m' } });
  });

  it('[API-SSA-004] Quantities outside resource lists are stored as they encode: emptyDir sizeLimit, HPA metric values, RuntimeClass overhead, CSIStorageCapacity', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sized' }, spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }] } };
    expect((await t.json('POST', PODS, { body: pod })).body.spec.volumes[0]).toEqual({ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } });
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1024Mi' } } }, { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '0.5' } } }] },
    };
    const h = await t.json('POST', '/apis/autoscaling/v2/namespaces/ns1/horizontalpodautoscalers', { body: hpa });
    expect(h.body.spec.metrics.map((m: { resource?: { target: unknown }; pods?: { target: unknown } }) => (m.resource ?? m.pods)?.target)).toEqual([{ type: 'AverageValue', averageValue: '1Gi' }, { type: 'AverageValue', averageValue: '500m' }]);
    const rc = await t.json('POST', '/apis/node.k8s.io/v1/runtimeclasses', { body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'kata' }, handler: 'kata', overhead: { podFixed: { cpu: '0.25', memory: '131072Ki' } } } });
    expect(rc.body.overhead).toEqual({ podFixed: { cpu: '250m', memory: '128Mi' } });
    const cap = await t.json('POST', '/apis/storage.k8s.io/v1/namespaces/ns1/csistoragecapacities', { body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'c' }, storageClassName: 'standard', capacity: '1024Mi', maximumVolumeSize: '0.5Gi' } });
    expect([cap.body.capacity, cap.body.maximumVolumeSize]).toEqual(['1Gi', '512Mi']);
  });

  it('[API-SSA-004] a Node registering capacity without allocatable can allocate all of it; both lists are stored canonical', async () => {
    const r = await t.json('POST', '/api/v1/nodes?fieldManager=kubelet', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n9' }, status: { capacity: { cpu: '2', memory: '2038904Ki', pods: '110' } } } });
    expect(r.status).toBe(201);
    expect(r.body.status.allocatable).toEqual({ cpu: '2', memory: '2038904Ki', pods: '110' });
    // An allocatable given is kept.
    const told = await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n10' }, status: { capacity: { cpu: '2' }, allocatable: { cpu: '1900m' } } } });
    expect(told.body.status.allocatable).toEqual({ cpu: '1900m' });
    // Both lists are stored as quantities encode: a round binary amount takes the largest suffix.
    const round = await t.json('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n11' }, status: { capacity: { cpu: '4', memory: '16777216Ki' }, allocatable: { cpu: '3.5', memory: '1048576Ki' } } } });
    expect(round.body.status).toMatchObject({ capacity: { cpu: '4', memory: '16Gi' }, allocatable: { cpu: '3500m', memory: '1Gi' } });
  });

  it('[API-SSA-004] admission policies fail closed and match Equivalent, with everything-selectors and scope "*"; so do their bindings\' matchResources; the creator owns them', async () => {
    const rules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }];
    const defaultedMatch = { resourceRules: [{ ...rules[0], scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} };
    const AR = '/apis/admissionregistration.k8s.io/v1';
    const vap = await t.json('POST', `${AR}/validatingadmissionpolicies?fieldManager=kubectl-create`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'vap' }, spec: { matchConstraints: { resourceRules: rules }, validations: [{ expression: 'object.spec.replicas <= 5' }] } } });
    expect(vap.status).toBe(201);
    expect(vap.body.spec.failurePolicy).toBe('Fail');
    expect(vap.body.spec.matchConstraints).toEqual(defaultedMatch);
    // matchConstraints is an atomic struct, owned whole; failurePolicy is a field of its own.
    expect(fieldsOf(vap.body, 'kubectl-create')!['f:spec']).toMatchObject({ 'f:failurePolicy': {}, 'f:matchConstraints': {} });
    const vapb = await t.json('POST', `${AR}/validatingadmissionpolicybindings`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'vapb' }, spec: { policyName: 'vap', validationActions: ['Deny'], matchResources: {} } } });
    expect(vapb.status).toBe(201);
    expect(vapb.body.spec.matchResources).toEqual({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    const map = await t.json('POST', `${AR}/mutatingadmissionpolicies`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'map' }, spec: { reinvocationPolicy: 'Never', matchConstraints: { resourceRules: rules }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }] } } });
    expect(map.status).toBe(201);
    expect(map.body.spec.failurePolicy).toBe('Fail');
    expect(map.body.spec.matchConstraints).toEqual(defaultedMatch);
    const mapb = await t.json('POST', `${AR}/mutatingadmissionpolicybindings`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'mapb' }, spec: { policyName: 'map', matchResources: { namespaceSelector: { matchLabels: { team: 'a' } } } } } });
    expect(mapb.status).toBe(201);
    expect(mapb.body.spec.matchResources).toEqual({ matchPolicy: 'Equivalent', namespaceSelector: { matchLabels: { team: 'a' } }, objectSelector: {} });
  });

  it('[API-SSA-004] a FlowSchema is matched at precedence 1000 and a priority level\'s queuing gets its queue shape (SetDefaults_FlowSchemaSpec, SetDefaults_QueuingConfiguration)', async () => {
    const fs = await t.json('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?fieldManager=kubectl-create', { body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'fs' }, spec: { priorityLevelConfiguration: { name: 'global-default' } } } });
    expect(fs.status).toBe(201);
    expect(fs.body.spec.matchingPrecedence).toBe(1000);
    expect(fieldsOf(fs.body, 'kubectl-create')!['f:spec']['f:matchingPrecedence']).toEqual({});
    const plc = await t.json('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', { body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'plc' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 16 } } } } } });
    expect(plc.status).toBe(201);
    expect(plc.body.spec.limited).toEqual({ nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 8, queueLengthLimit: 50 } } });
  });

  it('[API-SSA-004] an APIService\'s service answers on 443 unless told', async () => {
    const api = await t.json('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { name: 'api', namespace: 'ns1' }, insecureSkipTLSVerify: true } } });
    expect(api.status).toBe(201);
    expect(api.body.spec.service).toEqual({ name: 'api', namespace: 'ns1', port: 443 });
  });

  it('[API-SSA-004] a Job\'s pod failure policy condition pattern without a status matches True', async () => {
    const job = await t.json('POST', '/apis/batch/v1/namespaces/ns1/jobs', { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.37' }] } } } } });
    expect(job.status).toBe(201);
    expect(job.body.spec.podFailurePolicy.rules[0].onPodConditions).toEqual([{ type: 'DisruptionTarget', status: 'True' }]);
  });

  it('[API-SSA-004] a ResourceClaim\'s requests and subrequests ask for exactly one device, its tolerations are Equal; so are a ResourceClaimTemplate\'s', async () => {
    const devices = { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', tolerations: [{ key: 'maintenance', effect: 'NoSchedule' }] } }, { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com' }, { name: 'all', deviceClassName: 'small.example.com', allocationMode: 'All' }] }] };
    const want = { requests: [
      { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'maintenance', effect: 'NoSchedule', operator: 'Equal' }] } },
      { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com', allocationMode: 'ExactCount', count: 1 }, { name: 'all', deviceClassName: 'small.example.com', allocationMode: 'All' }] },
    ] };
    const claim = await t.json('POST', '/apis/resource.k8s.io/v1/namespaces/ns1/resourceclaims?fieldManager=kubectl-create', { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'c' }, spec: { devices } } });
    expect(claim.status).toBe(201);
    expect(claim.body.spec.devices).toEqual(want);
    // requests is an atomic list, owned whole.
    expect(fieldsOf(claim.body, 'kubectl-create')!['f:spec']['f:devices']).toEqual({ 'f:requests': {} });
    const template = await t.json('POST', '/apis/resource.k8s.io/v1/namespaces/ns1/resourceclaimtemplates', { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 't' }, spec: { spec: { devices } } } });
    expect(template.status).toBe(201);
    expect(template.body.spec.spec.devices).toEqual(want);
  });

  it('[API-SSA-004] a custom resource create owns the fields its structural schema defaulted', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [{
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string', default: 'auto' } } } } } },
        }],
      },
    };
    expect((await t.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const r = await t.json('POST', '/apis/example.com/v1/namespaces/ns1/widgets?fieldManager=creator', { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ size: 1, mode: 'auto' });
    expect(fieldsOf(r.body, 'creator')).toEqual({ 'f:spec': { '.': {}, 'f:mode': {}, 'f:size': {} } });
  });
});

describe('apply after create: defaulted fields are the creator\'s', () => {
  const applyNginx = (imagePullPolicy: string, force = false) =>
    t.json('PATCH', `${PODS}/nginx?fieldManager=kubectl${force ? '&force=true' : ''}`, {
      body: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n    imagePullPolicy: ${imagePullPolicy}\n`,
      headers: { 'content-type': APPLY },
    });

  it('[API-SSA-049] changing a defaulted field kubectl-create owns is 409 Conflict naming the manager and the field path', async () => {
    expect((await t.json('POST', `${PODS}?fieldManager=kubectl-create`, { body: kubectlRunPod })).status).toBe(201);
    const before = await t.json('GET', `${PODS}/nginx`);
    const r = await applyNginx('Never');
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .spec.containers[name="nginx"].imagePullPolicy',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using v1', field: '.spec.containers[name="nginx"].imagePullPolicy' }] },
      code: 409,
    });
    expect((await t.json('GET', `${PODS}/nginx`)).body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);
  });

  it('[API-SSA-053] [API-SSA-050] applying the defaulted value shares it; force takes it from the creator', async () => {
    await t.json('POST', `${PODS}?fieldManager=kubectl-create`, { body: kubectlRunPod });
    const same = await applyNginx('Always');
    expect(same.status).toBe(200);
    expect(fieldsOf(same.body, 'kubectl')!['f:spec']['f:containers']['k:{"name":"nginx"}']).toEqual({ '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {} });
    expect(fieldsOf(same.body, 'kubectl-create')!['f:spec']['f:containers']['k:{"name":"nginx"}']).toEqual(defaultedContainer);
    // Pods refuse a changed pull policy, so force is shown on a Deployment's template, whose pull policy may change.
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    };
    await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body });
    const applied = { ...body, spec: { ...body.spec, template: { ...body.spec.template, spec: { containers: [{ name: 'nginx', image: 'nginx', imagePullPolicy: 'Never' }] } } } };
    const refused = await t.json('PATCH', `${DEPLOY}/web?fieldManager=kubectl`, { body: applied, headers: { 'content-type': APPLY } });
    expect(refused.status).toBe(409);
    expect(refused.body.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using apps/v1', field: '.spec.template.spec.containers[name="nginx"].imagePullPolicy' },
    ]);
    const forced = await t.json('PATCH', `${DEPLOY}/web?fieldManager=kubectl&force=true`, { body: applied, headers: { 'content-type': APPLY } });
    expect(forced.status).toBe(200);
    expect(forced.body.spec.template.spec.containers[0].imagePullPolicy).toBe('Never');
    const creator = fieldsOf(forced.body, 'kubectl-create')!['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}'];
    expect(creator['f:imagePullPolicy']).toBeUndefined();
    expect(creator['f:terminationMessagePolicy']).toEqual({});
  });

  it('[API-SSA-039] an apply that creates the object owns only what it applied: the defaults it did not apply are nobody\'s', async () => {
    const r = await t.json('PATCH', `${PODS}/applied?fieldManager=kubectl`, {
      body: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: applied\nspec:\n  containers:\n  - name: c\n    image: nginx\n',
      headers: { 'content-type': APPLY },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec.containers[0].imagePullPolicy).toBe('Always');
    expect(r.body.spec.dnsPolicy).toBe('ClusterFirst');
    expect(entries(r.body).map((e) => [e.manager, e.operation])).toEqual([['kubectl', 'Apply']]);
    expect(fieldsOf(r.body, 'kubectl')).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } });
  });
});

describe('updates and patches: the object is defaulted before the field manager compares it', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  };

  it('[API-SSA-051] a PUT leaving out defaulted fields gets them back equal to live: ownership and resourceVersion stay', async () => {
    const created = await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body: deployment });
    const sent = { ...deployment, metadata: { name: 'web', resourceVersion: created.body.metadata.resourceVersion } };
    const same = await t.json('PUT', `${DEPLOY}/web?fieldManager=editor`, { body: sent });
    expect(same.status).toBe(200);
    expect(same.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect(same.body.metadata.managedFields).toEqual(created.body.metadata.managedFields);
    // A PUT that changes one field leaves the creator every defaulted field it left out.
    const labelled = await t.json('PUT', `${DEPLOY}/web?fieldManager=editor`, { body: { ...sent, metadata: { ...sent.metadata, labels: { tier: 'front' } } } });
    expect(labelled.status).toBe(200);
    expect(labelled.body.metadata.resourceVersion).not.toBe(created.body.metadata.resourceVersion);
    expect(fieldsOf(labelled.body, 'editor')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
    expect(fieldsOf(labelled.body, 'kubectl-create')).toEqual(fieldsOf(created.body, 'kubectl-create'));
  });

  it('[API-SSA-051] a patch removing a defaulted field defaults it back: ownership and resourceVersion stay (merge, JSON and strategic patches)', async () => {
    const created = await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body: deployment });
    const rv = created.body.metadata.resourceVersion;
    const patches: [string, unknown][] = [
      [MERGE, { spec: { revisionHistoryLimit: null, strategy: null } }],
      [JSONPATCH, [{ op: 'remove', path: '/spec/template/spec/containers/0/terminationMessagePath' }, { op: 'remove', path: '/spec/progressDeadlineSeconds' }]],
      [STRATEGIC, { spec: { template: { spec: { dnsPolicy: null, containers: [{ name: 'nginx', imagePullPolicy: null }] } } } }],
    ];
    for (const [type, patch] of patches) {
      const r = await t.json('PATCH', `${DEPLOY}/web?fieldManager=patcher`, { body: patch, headers: { 'content-type': type } });
      expect(r.status, type).toBe(200);
      expect(r.body.metadata.resourceVersion, type).toBe(rv);
      expect(r.body.metadata.managedFields, type).toEqual(created.body.metadata.managedFields);
      expect(r.body.spec.revisionHistoryLimit).toBe(10);
    }
  });

  it('[API-SSA-052] a patch adding a container owns the new container\'s defaults', async () => {
    await t.json('POST', `${DEPLOY}?fieldManager=kubectl-create`, { body: deployment });
    const r = await t.json('PATCH', `${DEPLOY}/web?fieldManager=patcher`, {
      body: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1.36' }] } } } },
      headers: { 'content-type': STRATEGIC },
    });
    expect(r.status).toBe(200);
    expect(fieldsOf(r.body, 'patcher')!['f:spec']['f:template']['f:spec']['f:containers']).toEqual({ 'k:{"name":"sidecar"}': defaultedContainer });
  });
});
