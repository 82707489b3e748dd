import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number): string => new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const day = 86400;

function cells(group: string, resource: string, obj: KubeObject) {
  return toTable([obj], { group, version: 'v1', resource, kind: obj.kind, now }).rows[0].cells;
}
const columns = (group: string, resource: string) =>
  tableColumnsFor(group, resource).map((c) => `${c.name}:${c.type}${c.priority ? ':wide' : ''}`);

function obj(kind: string, name: string, body: Record<string, unknown>, meta: Record<string, unknown> = {}, apiVersion = 'v1'): KubeObject {
  return { apiVersion, kind, metadata: { name, creationTimestamp: ago(3 * day), ...meta }, ...body };
}

describe('core printers: columns', () => {
  it.each([
    ['services', ['Name:string', 'Type:string', 'Cluster-IP:string', 'External-IP:string', 'Port(s):string', 'Age:string', 'Selector:string:wide']],
    ['configmaps', ['Name:string', 'Data:string', 'Age:string']],
    ['secrets', ['Name:string', 'Type:string', 'Data:string', 'Age:string']],
    ['namespaces', ['Name:string', 'Status:string', 'Age:string']],
    ['nodes', ['Name:string', 'Status:string', 'Roles:string', 'Age:string', 'Version:string', 'Internal-IP:string:wide', 'External-IP:string:wide', 'OS-Image:string:wide', 'Kernel-Version:string:wide', 'Container-Runtime:string:wide']],
    ['serviceaccounts', ['Name:string', 'Secrets:string', 'Age:string']],
    ['endpoints', ['Name:string', 'Endpoints:string', 'Age:string']],
    ['events', ['Last Seen:string', 'Type:string', 'Reason:string', 'Object:string', 'Subobject:string:wide', 'Source:string:wide', 'Message:string', 'First Seen:string:wide', 'Count:string:wide', 'Name:string:wide']],
    ['persistentvolumes', ['Name:string', 'Capacity:string', 'Access Modes:string', 'Reclaim Policy:string', 'Status:string', 'Claim:string', 'StorageClass:string', 'VolumeAttributesClass:string', 'Reason:string', 'Age:string', 'VolumeMode:string:wide']],
    ['persistentvolumeclaims', ['Name:string', 'Status:string', 'Volume:string', 'Capacity:string', 'Access Modes:string', 'StorageClass:string', 'VolumeAttributesClass:string', 'Age:string', 'VolumeMode:string:wide']],
    ['resourcequotas', ['Name:string', 'Request:string', 'Limit:string', 'Age:string']],
    ['podtemplates', ['Name:string', 'Containers:string', 'Images:string', 'Pod Labels:string']],
    ['componentstatuses', ['Name:string', 'Status:string', 'Message:string', 'Error:string']],
  ])('%s', (resource, expected) => {
    expect(columns('', resource)).toEqual(expected);
  });

  it('the event Name column is the wide name column', () => {
    const name = tableColumnsFor('', 'events').at(-1);
    expect(name).toMatchObject({ name: 'Name', format: 'name', priority: 1 });
  });
});

describe('core printers: cells', () => {
  it.each<[string, string, KubeObject, unknown[]]>([
    [
      'ClusterIP service', 'services',
      obj('Service', 'web', { spec: { type: 'ClusterIP', clusterIP: '10.96.12.7', clusterIPs: ['10.96.12.7'], selector: { app: 'web', tier: 'fe' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }] } }),
      ['web', 'ClusterIP', '10.96.12.7', '<none>', '80/TCP,53/UDP', '3d', 'app=web,tier=fe'],
    ],
    [
      'headless service without selector', 'services',
      obj('Service', 'db', { spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 5432, protocol: 'TCP' }] } }),
      ['db', 'ClusterIP', 'None', '<none>', '5432/TCP', '3d', '<none>'],
    ],
    [
      'NodePort service with external IPs', 'services',
      obj('Service', 'np', { spec: { type: 'NodePort', clusterIPs: ['10.96.0.20'], externalIPs: ['203.0.113.5', '203.0.113.6'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }], selector: { app: 'np' } } }),
      ['np', 'NodePort', '10.96.0.20', '203.0.113.5,203.0.113.6', '80:30080/TCP', '3d', 'app=np'],
    ],
    [
      'LoadBalancer service still pending', 'services',
      obj('Service', 'lb', { spec: { type: 'LoadBalancer', clusterIPs: ['10.96.0.30'], ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }], selector: { app: 'lb' } }, status: { loadBalancer: {} } }),
      ['lb', 'LoadBalancer', '10.96.0.30', '<pending>', '443:31443/TCP', '3d', 'app=lb'],
    ],
    [
      'LoadBalancer service with ingress points', 'services',
      obj('Service', 'lb', { spec: { type: 'LoadBalancer', clusterIPs: ['10.96.0.30'], externalIPs: ['198.51.100.1'], ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }] }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'a1b2.elb.example.com' }, { ip: '192.0.2.10' }] } } }),
      ['lb', 'LoadBalancer', '10.96.0.30', '192.0.2.10,a1b2.elb.example.com,198.51.100.1', '443:31443/TCP', '3d', '<none>'],
    ],
    [
      'ExternalName service', 'services',
      obj('Service', 'ext', { spec: { type: 'ExternalName', externalName: 'db.example.com' } }),
      ['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', '3d', '<none>'],
    ],
    [
      'endpoints with more than three addresses', 'endpoints',
      obj('Endpoints', 'web', { subsets: [{ addresses: [{ ip: '10.244.1.5' }, { ip: '10.244.2.6' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'TCP' }] }] }),
      ['web', '10.244.1.5:8080,10.244.2.6:8080,10.244.1.5:9090 + 1 more...', '3d'],
    ],
    [
      'endpoints of a headless service without ports, IPv6', 'endpoints',
      obj('Endpoints', 'db', { subsets: [{ addresses: [{ ip: 'fd00::1' }] }, { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 53 }] }, { addresses: [{ ip: 'fd00::2' }], ports: [{ port: 53 }] }] }),
      ['db', 'fd00::1,10.0.0.2:53,[fd00::2]:53', '3d'],
    ],
    ['endpoints without subsets', 'endpoints', obj('Endpoints', 'none', {}), ['none', '<none>', '3d']],
    [
      'config map counts data and binaryData', 'configmaps',
      obj('ConfigMap', 'kube-root-ca.crt', { data: { 'ca.crt': '-----BEGIN CERTIFICATE-----' }, binaryData: { logo: 'iVBORw0=' } }),
      ['kube-root-ca.crt', 2, '3d'],
    ],
    ['empty config map', 'configmaps', obj('ConfigMap', 'empty', {}), ['empty', 0, '3d']],
    [
      'TLS secret', 'secrets',
      obj('Secret', 'tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } }),
      ['tls', 'kubernetes.io/tls', 2, '3d'],
    ],
    ['active namespace', 'namespaces', obj('Namespace', 'default', { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }), ['default', 'Active', '3d']],
    ['terminating namespace', 'namespaces', obj('Namespace', 'old', { status: { phase: 'Terminating' } }, { deletionTimestamp: ago(10) }), ['old', 'Terminating', '3d']],
    [
      'ready control-plane node', 'nodes',
      obj('Node', 'cp-1', {
        spec: {},
        status: {
          conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
          addresses: [{ type: 'InternalIP', address: '172.18.0.2' }, { type: 'Hostname', address: 'cp-1' }],
          nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.8.0-45-generic', containerRuntimeVersion: 'containerd://1.7.18' },
        },
      }, { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'cp-1' } }),
      ['cp-1', 'Ready', 'control-plane', '3d', 'v1.32.0', '172.18.0.2', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.8.0-45-generic', 'containerd://1.7.18'],
    ],
    [
      'cordoned not-ready worker with two roles', 'nodes',
      obj('Node', 'w-1', {
        spec: { unschedulable: true },
        status: { conditions: [{ type: 'Ready', status: 'Unknown' }], addresses: [{ type: 'ExternalIP', address: '203.0.113.9' }], nodeInfo: { kubeletVersion: 'v1.31.4' } },
      }, { labels: { 'kubernetes.io/role': 'worker', 'node-role.kubernetes.io/ingress': '' } }),
      ['w-1', 'NotReady,SchedulingDisabled', 'ingress,worker', '3d', 'v1.31.4', '<none>', '203.0.113.9', '<unknown>', '<unknown>', '<unknown>'],
    ],
    [
      'node that never reported', 'nodes',
      obj('Node', 'new', {}),
      ['new', 'Unknown', '<none>', '3d', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
    ],
    ['service account', 'serviceaccounts', obj('ServiceAccount', 'default', {}), ['default', 0, '3d']],
    ['service account with secrets', 'serviceaccounts', obj('ServiceAccount', 'builder', { secrets: [{ name: 'builder-token' }] }), ['builder', 1, '3d']],
    [
      'core event', 'events',
      obj('Event', 'web-0.17f1', {
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', fieldPath: 'spec.containers{app}' },
        reason: 'BackOff', message: 'Back-off restarting failed container app\n', type: 'Warning',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: ago(3600), lastTimestamp: ago(30), count: 12,
      }),
      ['30s', 'Warning', 'BackOff', 'pod/web-0', 'spec.containers{app}', 'kubelet, node-1', 'Back-off restarting failed container app', '60m', 12, 'web-0.17f1'],
    ],
    [
      'event recorded through the new API (eventTime, no count)', 'events',
      obj('Event', 'web.18a', {
        involvedObject: { kind: 'Deployment', name: 'web' }, reason: 'ScalingReplicaSet', message: 'Scaled up replica set web-7d4 to 3', type: 'Normal',
        eventTime: '2025-06-01T11:58:00.123456Z', reportingComponent: 'deployment-controller', reportingInstance: '', source: {},
      }),
      // 1m59.877s ago: micro-time precision keeps it under the 2m switch.
      ['119s', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller', 'Scaled up replica set web-7d4 to 3', '119s', 1, 'web.18a'],
    ],
    [
      'event series', 'events',
      obj('Event', 'node.1', {
        involvedObject: { kind: 'Node' }, reason: 'Rebooted', message: 'x', type: 'Warning',
        eventTime: ago(7200), series: { count: 4, lastObservedTime: ago(600) }, reportingComponent: 'kubelet', reportingInstance: 'node-1',
      }),
      ['10m', 'Warning', 'Rebooted', 'node', '', 'kubelet, node-1', 'x', '120m', 4, 'node.1'],
    ],
    [
      'bound persistent volume', 'persistentvolumes',
      obj('PersistentVolume', 'pv-1', {
        spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'standard', volumeMode: 'Filesystem', claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' } },
        status: { phase: 'Bound' },
      }),
      ['pv-1', '10Gi', 'RWO,ROX', 'Retain', 'Bound', 'default/data', 'standard', '<unset>', '', '3d', 'Filesystem'],
    ],
    [
      'released volume being deleted, class from the beta annotation', 'persistentvolumes',
      obj('PersistentVolume', 'pv-2', {
        spec: { capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteOncePod'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast' },
        status: { phase: 'Failed', reason: 'VolumeFailedDelete' },
      }, { deletionTimestamp: ago(5), annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } }),
      ['pv-2', '1Gi', 'RWOP', 'Delete', 'Terminating', '', 'legacy', '<unset>', 'VolumeFailedDelete', '3d', '<unset>'],
    ],
    [
      'bound claim', 'persistentvolumeclaims',
      obj('PersistentVolumeClaim', 'data', {
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, storageClassName: 'standard', volumeName: 'pv-1', volumeMode: 'Filesystem' },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } },
      }),
      ['data', 'Bound', 'pv-1', '10Gi', 'RWO', 'standard', '<unset>', '3d', 'Filesystem'],
    ],
    [
      'pending claim hides capacity and access modes', 'persistentvolumeclaims',
      obj('PersistentVolumeClaim', 'wait', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, storageClassName: 'standard', volumeAttributesClassName: 'gold', volumeMode: 'Block' }, status: { phase: 'Pending' } }),
      ['wait', 'Pending', '', '', '', 'standard', 'gold', '3d', 'Block'],
    ],
    [
      'resource quota splits requests and limits', 'resourcequotas',
      obj('ResourceQuota', 'compute', {
        spec: { hard: { pods: '10', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi' } },
        status: {
          hard: { pods: '10', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi' },
          used: { pods: '3', 'requests.cpu': '500m', 'requests.memory': '512Mi', 'limits.cpu': '1' },
        },
      }),
      ['compute', 'pods: 3/10, requests.cpu: 500m/1, requests.memory: 512Mi/1Gi', 'limits.cpu: 1/2, limits.memory: 0/2Gi', '3d'],
    ],
    [
      'pod template', 'podtemplates',
      obj('PodTemplate', 'tmpl', { template: { metadata: { labels: { app: 'x', role: 'db' } }, spec: { containers: [{ name: 'a', image: 'img-a' }, { name: 'b', image: 'img-b' }] } } }),
      ['tmpl', 'a,b', 'img-a,img-b', 'app=x,role=db'],
    ],
    [
      'healthy component', 'componentstatuses',
      obj('ComponentStatus', 'etcd-0', { conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }),
      ['etcd-0', 'Healthy', 'ok', ''],
    ],
  ])('%s', (_name, resource, object, expected) => {
    expect(cells('', resource, object)).toEqual(expected);
  });

  it('prints events.k8s.io/v1 events with the same columns, reading regarding, note and the deprecated fields', () => {
    const event = obj('Event', 'web-0.17f2', {
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-0', fieldPath: 'spec.containers{app}' },
      note: 'Pulling image "nginx:1.27"', reason: 'Pulling', type: 'Normal', action: 'Pull',
      reportingController: 'kubelet', reportingInstance: 'node-1', eventTime: null,
      deprecatedSource: { component: 'kubelet', host: 'node-1' }, deprecatedFirstTimestamp: ago(300), deprecatedLastTimestamp: ago(60), deprecatedCount: 2,
    }, {}, 'events.k8s.io/v1');
    const table = toTable([event], { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', now });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(tableColumnsFor('', 'events').map((c) => c.name));
    expect(table.rows[0].cells).toEqual(['60s', 'Normal', 'Pulling', 'pod/web-0', 'spec.containers{app}', 'kubelet, node-1', 'Pulling image "nginx:1.27"', '5m', 2, 'web-0.17f2']);
  });
});
