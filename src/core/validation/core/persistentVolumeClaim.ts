/**
 * PersistentVolumeClaim validation (ValidatePersistentVolumeClaim / ...Update):
 * access modes, the storage request, class and volume mode; after creation
 * the spec only takes a volumeName once (and a class where none was set).
 */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { isDNS1123Subdomain } from '../names';
import { has, obj, optObj, optStr, str, strs, type Obj } from '../values';
import { compareQuantities, quantityOf, quantitySign, quantityString } from './quantityCheck';

export const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const supportedVolumeModes = ['Block', 'Filesystem'];

/** Access modes are known, and ReadWriteOncePod stands alone. */
export function validateAccessModes(modes: string[], fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let others = false;
  for (const mode of modes) {
    if (!supportedAccessModes.includes(mode)) errs.push(notSupported(String(fld), mode, supportedAccessModes));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (supportedAccessModes.includes(mode)) others = true;
  }
  if (rwop && others) errs.push(forbidden(String(fld), 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidatePositiveQuantityValue (and the non-negative check behind it). */
export function validatePositiveQuantity(value: unknown, fld: Path): FieldError[] {
  const q = quantityOf(value);
  if (!q) return [invalid(String(fld), value, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")];
  if (quantitySign(q) <= 0) return [invalid(String(fld), quantityString(q), 'must be greater than zero')];
  return [];
}

/** ValidateClassName: storage class names are DNS subdomains. */
export function validateClassName(name: string | undefined, fld: Path): FieldError[] {
  if (!name) return [];
  return isDNS1123Subdomain(name).map((m) => invalid(String(fld), name, m));
}

export function validateVolumeMode(mode: string | undefined, fld: Path): FieldError[] {
  return mode !== undefined && !supportedVolumeModes.includes(mode) ? [notSupported(String(fld), mode, supportedVolumeModes)] : [];
}

/** ValidatePersistentVolumeClaimSpec */
export function validatePersistentVolumeClaimSpec(spec: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const modes = strs(spec, 'accessModes');
  if (modes.length === 0) errs.push(required(String(fld.child('accessModes')), 'at least 1 access mode is required'));
  errs.push(...validateLabelSelector(spec['selector'], {}, fld.child('selector')));
  errs.push(...validateAccessModes(modes, fld.child('accessModes')));
  const requests = obj(obj(spec, 'resources'), 'requests');
  const storagePath = fld.child('resources').key('storage');
  if (!has(requests, 'storage')) errs.push(required(String(storagePath)));
  else errs.push(...validatePositiveQuantity(requests['storage'], storagePath));
  errs.push(...validateClassName(optStr(spec, 'storageClassName'), fld.child('storageClassName')));
  errs.push(...validateVolumeMode(optStr(spec, 'volumeMode'), fld.child('volumeMode')));
  for (const key of ['dataSource', 'dataSourceRef'] as const) {
    const ref = optObj(spec, key);
    if (!ref) continue;
    if (!str(ref, 'name')) errs.push(required(String(fld.child(key, 'name'))));
    if (!str(ref, 'kind')) errs.push(required(String(fld.child(key, 'kind'))));
  }
  return errs;
}

function validatePersistentVolumeClaimUpdate(pvc: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const next = structuredClone(obj(pvc, 'spec'));
  const prev = structuredClone(obj(old, 'spec'));
  // The binder sets volumeName once; a class may be set where none was.
  if (!str(prev, 'volumeName')) {
    if (next['volumeName'] === undefined) delete prev['volumeName'];
    else prev['volumeName'] = next['volumeName'];
  }
  if (prev['storageClassName'] === undefined && next['storageClassName'] !== undefined) prev['storageClassName'] = next['storageClassName'];
  const bound = str(obj(pvc, 'status'), 'phase') === 'Bound';
  if (bound) {
    const nextRequests = obj(obj(next, 'resources'), 'requests');
    const prevRequests = obj(obj(prev, 'resources'), 'requests');
    if (has(nextRequests, 'storage')) nextRequests['storage'] = prevRequests['storage'];
  }
  if (!jsonEqual(next, prev)) {
    errs.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  const newSize = quantityOf(obj(obj(obj(pvc, 'spec'), 'resources'), 'requests')['storage']);
  const statusSize = quantityOf(obj(obj(old, 'status'), 'capacity')['storage']);
  const oldSize = quantityOf(obj(obj(obj(old, 'spec'), 'resources'), 'requests')['storage']);
  // Shrinking is allowed down to just above the recorded capacity (RecoverVolumeExpansionFailure).
  if (newSize && oldSize && compareQuantities(newSize, oldSize) < 0 && statusSize && compareQuantities(newSize, statusSize) <= 0) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  return errs;
}

export const persistentVolumeClaimValidation: KindValidation = {
  validate: (pvc) => validatePersistentVolumeClaimSpec(obj(pvc, 'spec'), newPath('spec')),
  validateUpdate(pvc, old, ctx) {
    if (ctx.subresource === 'status') return [];
    return [...validatePersistentVolumeClaimSpec(obj(pvc, 'spec'), newPath('spec')), ...validatePersistentVolumeClaimUpdate(pvc, old)];
  },
};
