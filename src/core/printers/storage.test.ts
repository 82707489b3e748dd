import { describe, expect, it } from 'vitest';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');
const group = 'storage.k8s.io';

function cells(resource: string, obj: KubeObject) {
  return toTable([obj], { group, version: 'v1', resource, kind: obj.kind, now }).rows[0].cells;
}
const obj = (kind: string, name: string, body: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1', kind, metadata: { name, creationTimestamp: '2025-05-20T12:00:00Z', annotations }, ...body,
});

describe('storage printers', () => {
  it('storage class columns', () => {
    expect(tableColumnsFor(group, 'storageclasses').map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'], ['Provisioner', 'string'], ['ReclaimPolicy', 'string'], ['VolumeBindingMode', 'string'], ['AllowVolumeExpansion', 'string'], ['Age', 'string'],
    ]);
  });

  it.each<[string, string, KubeObject, unknown[]]>([
    [
      'default storage class', 'storageclasses',
      obj('StorageClass', 'standard', { provisioner: 'rancher.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' }, { 'storageclass.kubernetes.io/is-default-class': 'true' }),
      ['standard (default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', false, '12d'],
    ],
    [
      'storage class with the beta default annotation and unset policies', 'storageclasses',
      obj('StorageClass', 'old', { provisioner: 'kubernetes.io/no-provisioner', allowVolumeExpansion: true }, { 'storageclass.beta.kubernetes.io/is-default-class': 'true' }),
      ['old (default)', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', true, '12d'],
    ],
    [
      'non-default storage class', 'storageclasses',
      obj('StorageClass', 'fast', { provisioner: 'pd.csi.storage.gke.io', reclaimPolicy: 'Retain', volumeBindingMode: 'Immediate' }, { 'storageclass.kubernetes.io/is-default-class': 'false' }),
      ['fast', 'pd.csi.storage.gke.io', 'Retain', 'Immediate', false, '12d'],
    ],
    [
      'CSI driver', 'csidrivers',
      obj('CSIDriver', 'ebs.csi.aws.com', { spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'sts.amazonaws.com' }] } }),
      ['ebs.csi.aws.com', true, false, false, 'sts.amazonaws.com', false, 'Persistent,Ephemeral', '12d'],
    ],
    [
      'CSI driver with defaults', 'csidrivers',
      obj('CSIDriver', 'x.csi', { spec: {} }),
      ['x.csi', true, false, false, '<unset>', false, '<none>', '12d'],
    ],
    ['CSI node', 'csinodes', obj('CSINode', 'node-1', { spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-1' }] } }), ['node-1', 1, '12d']],
    [
      'volume attachment', 'volumeattachments',
      obj('VolumeAttachment', 'csi-1a2b', { spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } }, status: { attached: true } }),
      ['csi-1a2b', 'ebs.csi.aws.com', 'pv-1', 'node-1', true, '12d'],
    ],
    ['CSI storage capacity', 'csistoragecapacities', obj('CSIStorageCapacity', 'cap-1', { storageClassName: 'standard', capacity: '102400Mi' }), ['cap-1', 'standard', '100Gi']],
    ['CSI storage capacity without capacity', 'csistoragecapacities', obj('CSIStorageCapacity', 'cap-2', { storageClassName: 'standard' }), ['cap-2', 'standard', '<unset>']],
  ])('%s', (_name, resource, object, expected) => {
    expect(cells(resource, object)).toEqual(expected);
  });
});
