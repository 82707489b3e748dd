/** Validation of the storage.k8s.io API group's kinds (kube's pkg/apis/storage/validation), keyed by resource. */
import type { ValidationTable } from '../kinds';
import { csiDriverValidation, csiNodeValidation, csiStorageCapacityValidation } from './csi';
import { storageClassValidation } from './storageClass';
import { volumeAttachmentValidation } from './volumeAttachment';
import { volumeAttributesClassValidation } from './volumeAttributesClass';

export const validation: ValidationTable = {
  storageclasses: storageClassValidation,
  csidrivers: csiDriverValidation,
  csinodes: csiNodeValidation,
  csistoragecapacities: csiStorageCapacityValidation,
  volumeattachments: volumeAttachmentValidation,
  volumeattributesclasses: volumeAttributesClassValidation,
};
