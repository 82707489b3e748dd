/** CSI kinds and VolumeAttachment validation as tables of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'storage.k8s.io';

describe('CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment', () => {
  it('CSIDriver: a DNS-subdomain name of at most 63 characters, fixed spec fields', () => {
    expect(errorsOf(g, 'csidrivers', { metadata: { name: 'csi.example.com' }, spec: { fsGroupPolicy: 'File' } })).toEqual([]);
    expect(errorsOf(g, 'csidrivers', { metadata: { name: 'csi.example.com' }, spec: { fsGroupPolicy: 'Some' } })).toEqual([
      'spec.fsGroupPolicy: Unsupported value: "Some": supported values: "File", "None", "ReadWriteOnceWithFSType"',
    ]);
    expect(errorsOf(g, 'csidrivers', { metadata: { name: 'csi.example.com' }, spec: { attachRequired: false } }, { metadata: { name: 'csi.example.com' }, spec: {} })).toEqual([
      'spec.attachedRequired: Invalid value: false: field is immutable',
    ]);
  });

  it('CSINode: driver names unique, nodeID required, topology keys qualified', () => {
    expect(errorsOf(g, 'csinodes', { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'] }] } })).toEqual([]);
    expect(errorsOf(g, 'csinodes', { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }, { name: 'csi.example.com' }] } })).toEqual([
      'spec.drivers[1].nodeID: Required value',
      'spec.drivers[1].name: Duplicate value: "csi.example.com"',
    ]);
  });

  it('CSIStorageCapacity: class name and non-negative capacity', () => {
    expect(errorsOf(g, 'csistoragecapacities', { storageClassName: 'fast', capacity: '10Gi' })).toEqual([]);
    expect(errorsOf(g, 'csistoragecapacities', { storageClassName: 'fast', capacity: '-1Gi' })).toEqual(['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']);
  });

  it('VolumeAttachment: attacher, one source, node name; spec fixed', () => {
    const va = { spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv' } } };
    expect(errorsOf(g, 'volumeattachments', va)).toEqual([]);
    expect(errorsOf(g, 'volumeattachments', { spec: { nodeName: 'node-1' } })).toEqual([
      'spec.attacher: Required value',
      'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ]);
    expect(errorsOf(g, 'volumeattachments', { spec: { ...va.spec, nodeName: 'node-2' } }, va)).toEqual(['spec: Invalid value: storage.VolumeAttachmentSpec{...}: field is immutable']);
  });
});
