/**
 * PersistentVolume validation (ValidatePersistentVolume / ...Update): access
 * modes, a storage capacity, exactly one volume source with its required
 * fields, reclaim policy, class and volume mode; the source and volume mode
 * are immutable.
 */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { has, obj, optObj, optStr, str, strs, validateImmutableField, type Obj } from '../values';
import { validateAccessModes, validateClassName, validatePositiveQuantity, validateVolumeMode } from './persistentVolumeClaim';

/** PersistentVolumeSource members, in the order kube-apiserver checks them. */
const volumeSources = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi',
  'cinder', 'fc', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO',
  'local', 'storageos', 'csi',
];
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];

/** The fields each common source cannot do without. */
function validateSource(kind: string, src: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const need = (...keys: string[]) => {
    for (const k of keys) if (!str(src, k)) errs.push(required(String(fld.child(k))));
  };
  switch (kind) {
    case 'hostPath':
    case 'local':
      need('path');
      if (str(src, 'path').split('/').includes('..')) errs.push(invalid(String(fld.child('path')), str(src, 'path'), "must not contain '..'"));
      break;
    case 'nfs':
      need('server', 'path');
      if (str(src, 'path') && !str(src, 'path').startsWith('/')) errs.push(invalid(String(fld.child('path')), str(src, 'path'), 'must be an absolute path'));
      break;
    case 'csi':
      need('driver', 'volumeHandle');
      break;
    case 'iscsi':
      need('targetPortal', 'iqn');
      break;
    case 'rbd':
      if (strs(src, 'monitors').length === 0) errs.push(required(String(fld.child('monitors'))));
      need('image');
      break;
    case 'cephfs':
      if (strs(src, 'monitors').length === 0) errs.push(required(String(fld.child('monitors'))));
      break;
    case 'gcePersistentDisk':
      need('pdName');
      break;
    case 'awsElasticBlockStore':
    case 'cinder':
      need('volumeID');
      break;
    case 'azureDisk':
      need('diskName', 'diskURI');
      break;
    case 'azureFile':
      need('secretName', 'shareName');
      break;
    case 'vsphereVolume':
      need('volumePath');
      break;
    case 'flexVolume':
      need('driver');
      break;
  }
  return errs;
}

function validatePersistentVolume(pv: Obj): FieldError[] {
  const spec = obj(pv, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  const modes = strs(spec, 'accessModes');
  if (modes.length === 0) errs.push(required(String(fld.child('accessModes'))));
  errs.push(...validateAccessModes(modes, fld.child('accessModes')));

  const capacity = obj(spec, 'capacity');
  const resources = Object.keys(capacity);
  if (resources.length === 0) errs.push(required(String(fld.child('capacity'))));
  if (!has(capacity, 'storage') || resources.length > 1) {
    const shown = `core.ResourceList{${resources.map((r) => `"${r}":resource.Quantity{...}`).join(', ')}}`;
    errs.push({ ...notSupported(String(fld.child('capacity')), null, ['storage']), valueText: shown });
  }
  for (const r of resources) errs.push(...validatePositiveQuantity(capacity[r], fld.child('capacity').key(r)));

  const policy = str(spec, 'persistentVolumeReclaimPolicy');
  if (policy && !reclaimPolicies.includes(policy)) errs.push(notSupported(String(fld.child('persistentVolumeReclaimPolicy')), policy, reclaimPolicies));

  const affinity = optObj(spec, 'nodeAffinity');
  if (affinity && !optObj(affinity, 'required')) errs.push(required(String(fld.child('nodeAffinity', 'required'))));

  let numVolumes = 0;
  for (const kind of volumeSources) {
    const src = optObj(spec, kind);
    if (!src) continue;
    if (numVolumes > 0) {
      errs.push(forbidden(String(fld.child(kind)), 'may not specify more than 1 volume type'));
      continue;
    }
    numVolumes++;
    errs.push(...validateSource(kind, src, fld.child(kind)));
    if (kind === 'local' && !affinity) errs.push(required(String(fld.child('nodeAffinity')), 'Local volume requires node affinity'));
  }
  if (numVolumes === 0) errs.push(required(String(fld), 'must specify a volume type'));

  const hostPath = optObj(spec, 'hostPath');
  if (hostPath && str(hostPath, 'path').replace(/\/+$/, '') === '' && str(hostPath, 'path').startsWith('/') && policy === 'Recycle') {
    errs.push(forbidden(String(fld.child('persistentVolumeReclaimPolicy')), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...validateClassName(optStr(spec, 'storageClassName'), fld.child('storageClassName')));
  errs.push(...validateVolumeMode(optStr(spec, 'volumeMode'), fld.child('volumeMode')));
  return errs;
}

const sourceOf = (pv: Obj): Obj => {
  const spec = obj(pv, 'spec');
  return Object.fromEntries(volumeSources.filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]]));
};

export const persistentVolumeValidation: KindValidation = {
  validate: (pv) => validatePersistentVolume(pv),
  validateUpdate(pv, old, ctx) {
    if (ctx.subresource === 'status') return [];
    const errs = validatePersistentVolume(pv);
    if (!jsonEqual(sourceOf(pv), sourceOf(old))) {
      errs.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
    }
    errs.push(...validateImmutableField(obj(pv, 'spec')['volumeMode'], obj(old, 'spec')['volumeMode'], newPath('volumeMode')));
    const oldAffinity = optObj(obj(old, 'spec'), 'nodeAffinity');
    if (oldAffinity && !jsonEqual(obj(pv, 'spec')['nodeAffinity'] ?? null, oldAffinity)) {
      errs.push(invalid('nodeAffinity', null, 'field is immutable'));
    }
    return errs;
  },
};
