/** StorageClass validation as a table of (object, expected errors). */
import { describe, expect, it } from 'vitest';
import { errorsOf } from '../testing';

const g = 'storage.k8s.io';

describe('StorageClass', () => {
  it('create: provisioner, policies, topologies', () => {
    expect(errorsOf(g, 'storageclasses', { provisioner: 'example.com/disk', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' })).toEqual([]);
    expect(errorsOf(g, 'storageclasses', { reclaimPolicy: 'Recycle', volumeBindingMode: 'Later', allowedTopologies: [{ matchLabelExpressions: [] }] })).toEqual([
      'provisioner: Required value',
      'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
      'allowedTopologies[0].matchLabelExpressions: Required value: must have at least one label key',
    ]);
  });

  it('update: provisioner, parameters, reclaim policy and binding mode are fixed', () => {
    const old = { provisioner: 'example.com/disk', parameters: { type: 'ssd' } };
    expect(errorsOf(g, 'storageclasses', { ...old, allowVolumeExpansion: true }, old)).toEqual([]);
    expect(errorsOf(g, 'storageclasses', { provisioner: 'example.com/other', parameters: { type: 'hdd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }, old)).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ]);
  });
});

describe('VolumeAttributesClass', () => {
  it('driver and at least one parameter; both fixed', () => {
    expect(errorsOf(g, 'volumeattributesclasses', { driverName: 'csi.example.com', parameters: { iops: '1000' } })).toEqual([]);
    expect(errorsOf(g, 'volumeattributesclasses', {})).toEqual(['driverName: Required value', 'parameters: Required value: must contain at least one key/value pair']);
    expect(errorsOf(g, 'volumeattributesclasses', { driverName: 'csi.example.com', parameters: { iops: '2000' } }, { driverName: 'csi.example.com', parameters: { iops: '1000' } })).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
    ]);
  });
});
