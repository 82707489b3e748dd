/**
 * Pod volumes and container volume mounts (ValidateVolumes,
 * validateVolumeSource, ValidateVolumeMounts): unique DNS-label names,
 * exactly one source with its required fields, and mounts that name a
 * valid volume at a unique path.
 */
import { isObject } from '../../api/types';
import { parseQuantity } from '../../api/quantity';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import type { Path } from '../field';
import {
  append, notFound, num, obj, objects, str, validateDNS1123Label, validateLocalDescendingPath, validateLocalNonReservedPath,
  validatePathNoBacksteps, type Obj,
} from './common';
import { validateObjectFieldSelector } from './env';

/** The volume source fields, in the order kube's validateVolumeSource checks them. */
const sourceKinds = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc',
  'flexVolume', 'configMap', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk',
  'storageos', 'projected', 'scaleIO', 'csi', 'ephemeral', 'image',
] as const;

const fileModeErrorMsg = 'must be a number between 0 and 0777 (octal), both inclusive';
const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const sourceKindSet = new Set<string>(sourceKinds);
const downwardVolumePaths = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];

function validateMode(mode: unknown, fld: Path): FieldError[] {
  const m = num(mode);
  return m !== undefined && (m > 0o777 || m < 0) ? [invalid(String(fld), m, fileModeErrorMsg)] : [];
}

function validateKeyToPath(kp: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(kp['key'])) errs.push(required(String(fld.child('key'))));
  const p = str(kp['path']);
  if (!p) errs.push(required(String(fld.child('path'))));
  errs.push(...validateLocalNonReservedPath(p, fld.child('path')), ...validateMode(kp['mode'], fld.child('mode')));
  return errs;
}

function validateItems(items: unknown, fld: Path): FieldError[] {
  return objects(items).flatMap(([kp, i]) => validateKeyToPath(kp, fld.index(i)));
}

function validateDownwardAPIItems(items: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [item, i] of objects(items)) {
    const p = fld.index(i);
    const path = str(item['path']);
    if (!path) errs.push(required(String(p.child('path'))));
    errs.push(...validateLocalNonReservedPath(path, p.child('path')), ...validateMode(item['mode'], p.child('mode')));
    const fieldRef = obj(item['fieldRef']);
    const resourceFieldRef = obj(item['resourceFieldRef']);
    if (fieldRef) {
      append(errs, validateObjectFieldSelector(fieldRef, p.child('fieldRef'), downwardVolumePaths));
      if (resourceFieldRef) errs.push(invalid(String(p), 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
    } else if (!resourceFieldRef) {
      errs.push(required(String(p), 'one of fieldRef and resourceFieldRef is required'));
    }
  }
  return errs;
}

function validateSource(kind: (typeof sourceKinds)[number], s: Obj, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  switch (kind) {
    case 'emptyDir': {
      const limit = s['sizeLimit'] === undefined ? undefined : parseQuantity(s['sizeLimit']);
      if (limit && limit.unscaled < 0n) errs.push(forbidden(String(fld.child('sizeLimit')), 'SizeLimit field must be a valid resource quantity'));
      break;
    }
    case 'hostPath': {
      const path = str(s['path']);
      if (!path) errs.push(required(String(fld.child('path'))));
      else append(errs, validatePathNoBacksteps(path, fld.child('path')));
      const type = str(s['type']);
      if (!hostPathTypes.includes(type)) errs.push(notSupported(String(fld.child('type')), type, hostPathTypes));
      break;
    }
    case 'secret':
      if (!str(s['secretName'])) errs.push(required(String(fld.child('secretName'))));
      errs.push(...validateMode(s['defaultMode'], fld.child('defaultMode')), ...validateItems(s['items'], fld.child('items')));
      break;
    case 'configMap':
      if (!str(s['name'])) errs.push(required(String(fld.child('name'))));
      errs.push(...validateMode(s['defaultMode'], fld.child('defaultMode')), ...validateItems(s['items'], fld.child('items')));
      break;
    case 'persistentVolumeClaim':
      if (!str(s['claimName'])) errs.push(required(String(fld.child('claimName'))));
      break;
    case 'nfs': {
      if (!str(s['server'])) errs.push(required(String(fld.child('server'))));
      const path = str(s['path']);
      if (!path) errs.push(required(String(fld.child('path'))));
      else if (!path.startsWith('/')) errs.push(invalid(String(fld.child('path')), path, 'must be an absolute path'));
      break;
    }
    case 'downwardAPI':
      errs.push(...validateMode(s['defaultMode'], fld.child('defaultMode')), ...validateDownwardAPIItems(s['items'], fld.child('items')));
      break;
    case 'csi':
      if (!str(s['driver'])) errs.push(required(String(fld.child('driver'))));
      break;
    case 'gitRepo': {
      if (!str(s['repository'])) errs.push(required(String(fld.child('repository'))));
      const dir = str(s['directory']);
      if (dir) append(errs, validateLocalDescendingPath(dir, fld.child('directory')));
      break;
    }
    case 'projected':
      append(errs, validateMode(s['defaultMode'], fld.child('defaultMode')));
      break;
    default:
      break;
  }
  return errs;
}

/** validateVolumeSource: exactly one source. */
function validateVolumeSource(vol: Obj, fld: Path): FieldError[] {
  // The usual volume has one source: found among its own keys, without looking up every kind.
  let only: string | undefined;
  let sources = 0;
  for (const k in vol) {
    if (sourceKindSet.has(k) && obj(vol[k])) {
      only = k;
      sources++;
    }
  }
  if (sources === 1) return validateSource(only as (typeof sourceKinds)[number], vol[only!] as Obj, fld.child(only!));
  const errs: FieldError[] = [];
  let n = 0;
  for (const kind of sourceKinds) {
    const s = obj(vol[kind]);
    if (!s) continue;
    if (n > 0) errs.push(forbidden(String(fld.child(kind)), 'may not specify more than 1 volume type'));
    else {
      n++;
      append(errs, validateSource(kind, s, fld.child(kind)));
    }
  }
  if (n === 0) errs.push(required(String(fld), 'must specify a volume type'));
  return errs;
}

/** ValidateVolumes: the errors, and the names of the volumes that are valid (mounts may name only those). */
export function validateVolumes(volumes: unknown, fld: Path): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  if (!Array.isArray(volumes)) return { names, errs };
  for (let i = 0; i < volumes.length; i++) {
    const vol: unknown = volumes[i];
    if (!isObject(vol)) continue;
    const p = fld.index(i);
    const namePath = p.child('name');
    const name = str(vol['name']);
    const el = validateVolumeSource(vol, p);
    if (!name) el.push(required(String(namePath)));
    else el.push(...validateDNS1123Label(name, namePath));
    if (names.has(name)) el.push({ type: 'FieldValueDuplicate', field: String(namePath), value: name });
    if (el.length === 0) names.add(name);
    else append(errs, el);
  }
  return { names, errs };
}

/** An empty set, never added to. */
const noNames: ReadonlySet<string> = new Set<string>();

const mountPropagationModes = ['None', 'HostToContainer', 'Bidirectional'];

/** ValidateVolumeMounts */
export function validateVolumeMounts(mounts: unknown, devices: unknown, volumes: Set<string>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(mounts)) return errs;
  const mountPoints = new Set<string>();
  const deviceNames = devices === undefined ? noNames : new Set(objects(devices).map(([d]) => str(d['name'])));
  const devicePaths = devices === undefined ? noNames : new Set(objects(devices).map(([d]) => str(d['devicePath'])));
  for (let i = 0; i < mounts.length; i++) {
    const m: unknown = mounts[i];
    if (!isObject(m)) continue;
    const p = fld.index(i);
    const name = str(m['name']);
    const mountPath = str(m['mountPath']);
    if (!name) errs.push(required(String(p.child('name'))));
    if (!volumes.has(name)) errs.push(notFound(p.child('name'), name));
    if (!mountPath) errs.push(required(String(p.child('mountPath'))));
    if (mountPoints.has(mountPath)) errs.push(invalid(String(p.child('mountPath')), mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (deviceNames.has(name)) errs.push(invalid(String(p.child('name')), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(invalid(String(p.child('mountPath')), mountPath, 'must not already exist as a path in volumeDevices'));
    const subPath = str(m['subPath']);
    // kube reports subPath errors at the list's path, not the item's.
    if (subPath) append(errs, validateLocalDescendingPath(subPath, fld.child('subPath')));
    const subPathExpr = str(m['subPathExpr']);
    if (subPathExpr) {
      if (subPath) errs.push(invalid(String(p.child('subPathExpr')), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      append(errs, validateLocalDescendingPath(subPathExpr, fld.child('subPathExpr')));
    }
    const propagation = m['mountPropagation'];
    if (typeof propagation === 'string' && !mountPropagationModes.includes(propagation)) {
      errs.push(notSupported(String(fld.child('mountPropagation')), propagation, ['Bidirectional', 'HostToContainer', 'None']));
    }
  }
  return errs;
}

/** ValidateVolumeDevices: named volumes at unique paths. */
export function validateVolumeDevices(devices: unknown, mounts: unknown, volumes: Set<string>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const mountNames = new Set(objects(mounts).map(([m]) => str(m['name'])));
  const mountPaths = new Set(objects(mounts).map(([m]) => str(m['mountPath'])));
  const seenNames = new Set<string>();
  const seenPaths = new Set<string>();
  for (const [d, i] of objects(devices)) {
    const p = fld.index(i);
    const name = str(d['name']);
    const devicePath = str(d['devicePath']);
    if (!name) errs.push(required(String(p.child('name'))));
    if (!volumes.has(name)) errs.push(notFound(p.child('name'), name));
    if (!devicePath) errs.push(required(String(p.child('devicePath'))));
    if (seenNames.has(name)) errs.push(invalid(String(p.child('name')), name, 'must be unique'));
    if (devicePath && seenPaths.has(devicePath)) errs.push(invalid(String(p.child('devicePath')), devicePath, 'must be unique'));
    if (mountNames.has(name)) errs.push(invalid(String(p.child('name')), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(invalid(String(p.child('devicePath')), devicePath, 'must not already exist as a path in volumeMounts'));
    seenNames.add(name);
    seenPaths.add(devicePath);
  }
  return errs;
}
