/**
 * StorageClass validation (ValidateStorageClass / ...Update): provisioner,
 * parameters, reclaim policy, binding mode and topologies; everything but
 * metadata, allowVolumeExpansion and mountOptions is fixed after creation.
 */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, objs, optStr, str, strs, validateImmutableField, type Obj } from '../values';

const maxParameters = 512;
const maxParametersSize = 256 * 1024;
const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

function validateStorageClass(sc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(sc, 'provisioner');
  if (!provisioner) errs.push(required('provisioner'));
  else for (const m of isQualifiedName(provisioner.toLowerCase())) errs.push(invalid('provisioner', provisioner.toLowerCase(), m));

  const params = obj(sc, 'parameters');
  const keys = Object.keys(params);
  if (keys.length > maxParameters) errs.push(tooLong('parameters', '', maxParameters));
  else {
    let size = 0;
    for (const k of keys) {
      if (k.length < 1) errs.push(invalid('parameters', k, 'field can not be empty.'));
      size += k.length + (typeof params[k] === 'string' ? (params[k] as string).length : 0);
    }
    if (size > maxParametersSize) errs.push(tooLong('parameters', '', maxParametersSize));
  }

  const reclaim = optStr(sc, 'reclaimPolicy');
  if (reclaim && !reclaimPolicies.includes(reclaim)) errs.push(notSupported('reclaimPolicy', reclaim, reclaimPolicies));
  const mode = optStr(sc, 'volumeBindingMode');
  if (mode !== undefined && !bindingModes.includes(mode)) errs.push(notSupported('volumeBindingMode', mode, bindingModes));

  objs(sc, 'allowedTopologies').forEach((term, i) => {
    const p = newPath('allowedTopologies').index(i);
    const exprs = objs(term, 'matchLabelExpressions');
    if (exprs.length === 0) errs.push(required(String(p.child('matchLabelExpressions')), 'must have at least one label key'));
    const seen = new Set<string>();
    exprs.forEach((e, j) => {
      const ep = p.child('matchLabelExpressions').index(j);
      const key = str(e, 'key');
      for (const m of isQualifiedName(key)) errs.push(invalid(String(ep.child('key')), key, m));
      if (seen.has(key)) errs.push(invalid(String(ep.child('key')), key, 'duplicate label key'));
      seen.add(key);
      if (strs(e, 'values').length === 0) errs.push(required(String(ep.child('values')), 'must specify as least one value'));
    });
  });
  return errs;
}

export const storageClassValidation: KindValidation = {
  validate: (sc) => validateStorageClass(sc),
  validateUpdate(sc, old) {
    const errs = validateStorageClass(sc);
    if (!jsonEqual(sc['parameters'] ?? {}, old['parameters'] ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    if (str(sc, 'provisioner') !== str(old, 'provisioner')) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if ((optStr(sc, 'reclaimPolicy') ?? 'Delete') !== (optStr(old, 'reclaimPolicy') ?? 'Delete')) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    errs.push(...validateImmutableField(optStr(sc, 'volumeBindingMode') ?? 'Immediate', optStr(old, 'volumeBindingMode') ?? 'Immediate', newPath('volumeBindingMode')));
    return errs;
  },
};
