/**
 * CSI kinds (ValidateCSIDriver, ValidateCSINode, ValidateCSIStorageCapacity
 * and their updates): driver names, the driver spec's fixed fields, node
 * drivers and topology keys, capacities.
 */
import { duplicate, invalid, notSupported, required, tooLong, type FieldError } from '../../errors';
import { quantityOf, quantitySign, quantityString } from '../core/quantityCheck';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { isDNS1123Subdomain, isQualifiedName } from '../names';
import { has, obj, objs, optNum, optStr, str, strs, validateImmutableField, type Obj } from '../values';

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Ephemeral', 'Persistent'];
const csiNodeIDMaxLength = 192;

/** ValidateCSIDriverName */
export function validateCSIDriverName(name: string, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(required(String(fld)));
  if (name.length > 63) errs.push(tooLong(String(fld), name, 63));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(String(fld), name, m));
  return errs;
}

function validateCSIDriver(d: Obj): FieldError[] {
  const errs = validateCSIDriverName(str(d['metadata'], 'name'), newPath('name'));
  const spec = obj(d, 'spec');
  const fld = newPath('spec');
  const policy = optStr(spec, 'fsGroupPolicy');
  if (policy !== undefined && !fsGroupPolicies.includes(policy)) errs.push(notSupported(String(fld.child('fsGroupPolicy')), policy, fsGroupPolicies));
  strs(spec, 'volumeLifecycleModes').forEach((m) => {
    if (!lifecycleModes.includes(m)) errs.push(notSupported(String(fld.child('volumeLifecycleModes')), m, lifecycleModes));
  });
  const audiences = new Set<string>();
  objs(spec, 'tokenRequests').forEach((t, i) => {
    const p = fld.child('tokenRequests').index(i);
    const audience = str(t, 'audience');
    if (audiences.has(audience)) errs.push(duplicate(String(p.child('audience')), audience));
    audiences.add(audience);
    const exp = optNum(t, 'expirationSeconds');
    if (exp !== undefined && exp < 600) errs.push(invalid(String(p.child('expirationSeconds')), exp, 'may not specify a duration less than 10 minutes'));
    if (exp !== undefined && exp > 2 ** 32) errs.push(invalid(String(p.child('expirationSeconds')), exp, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** The driver spec with kube's defaults, for the immutability checks. */
const driverSpec = (d: Obj) => {
  const spec = obj(d, 'spec');
  return {
    attachRequired: spec['attachRequired'] ?? true,
    podInfoOnMount: spec['podInfoOnMount'] ?? false,
    fsGroupPolicy: spec['fsGroupPolicy'] ?? 'ReadWriteOnceWithFSType',
    volumeLifecycleModes: spec['volumeLifecycleModes'] ?? ['Persistent'],
  };
};

export const csiDriverValidation: KindValidation = {
  validate: (d) => validateCSIDriver(d),
  validateUpdate(d, old) {
    const next = driverSpec(d);
    const prev = driverSpec(old);
    return [
      ...validateCSIDriver(d),
      // kube-apiserver's own spelling of this path.
      ...validateImmutableField(next.attachRequired, prev.attachRequired, newPath('spec', 'attachedRequired')),
      ...validateImmutableField(next.fsGroupPolicy, prev.fsGroupPolicy, newPath('spec', 'fsGroupPolicy')),
      ...validateImmutableField(next.podInfoOnMount, prev.podInfoOnMount, newPath('spec', 'podInfoOnMount')),
      ...validateImmutableField(next.volumeLifecycleModes, prev.volumeLifecycleModes, newPath('spec', 'volumeLifecycleModes'), '[]storage.VolumeLifecycleMode{...}'),
    ];
  },
};

function validateCSINode(n: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(obj(n, 'spec'), 'drivers').forEach((d, i) => {
    const p = newPath('spec', 'drivers').index(i);
    const name = str(d, 'name');
    errs.push(...validateCSIDriverName(name, p.child('name')));
    const nodeID = str(d, 'nodeID');
    if (!nodeID) errs.push(required(String(p.child('nodeID')), nodeID));
    else if (nodeID.length > csiNodeIDMaxLength) errs.push(invalid(String(p.child('nodeID')), nodeID, `must be ${csiNodeIDMaxLength} characters or less`));
    const keys = new Set<string>();
    strs(d, 'topologyKeys').forEach((k) => {
      if (!k) errs.push(required(String(p.child('topologyKeys')), k));
      if (keys.has(k)) errs.push(duplicate(String(p.child('topologyKeys')), k));
      keys.add(k);
      for (const m of isQualifiedName(k)) errs.push(invalid(String(p.child('topologyKeys')), k, m));
    });
    const count = optNum(obj(d, 'allocatable'), 'count');
    if (count !== undefined && count < 0) errs.push(invalid(String(p.child('allocatable', 'count')), count, 'must be greater than or equal to 0'));
    if (names.has(name)) errs.push(duplicate(String(p.child('name')), name));
    names.add(name);
  });
  return errs;
}

export const csiNodeValidation: KindValidation = {
  validate: (n) => validateCSINode(n),
  validateUpdate: (n) => validateCSINode(n),
};

function validateCapacity(c: Obj): FieldError[] {
  const errs = validateLabelSelector(c['nodeTopology'], {}, newPath('nodeTopology'));
  const className = str(c, 'storageClassName');
  for (const m of isDNS1123Subdomain(className)) errs.push(invalid('storageClassName', className, m));
  for (const key of ['capacity', 'maximumVolumeSize']) {
    if (!has(c, key)) continue;
    const q = quantityOf(c[key]);
    if (q && quantitySign(q) < 0) errs.push(invalid(key, quantityString(q), 'must be greater than or equal to 0'));
  }
  return errs;
}

export const csiStorageCapacityValidation: KindValidation = {
  validate: (c) => validateCapacity(c),
  validateUpdate: (c, old) => [
    ...validateCapacity(c),
    ...validateImmutableField(c['nodeTopology'], old['nodeTopology'], newPath('nodeTopology'), '&v1.LabelSelector{...}'),
    ...validateImmutableField(str(c, 'storageClassName'), str(old, 'storageClassName'), newPath('storageClassName')),
  ],
};
