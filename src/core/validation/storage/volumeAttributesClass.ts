/** VolumeAttributesClass validation (ValidateVolumeAttributesClass / ...Update): driver and parameters, both fixed. */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, required, type FieldError } from '../../errors';
import type { KindValidation } from '../kinds';
import { isQualifiedName } from '../names';
import { obj, str, type Obj } from '../values';

function validateVolumeAttributesClass(vac: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const driver = str(vac, 'driverName');
  if (!driver) errs.push(required('driverName'));
  else for (const m of isQualifiedName(driver.toLowerCase())) errs.push(invalid('driverName', driver.toLowerCase(), m));
  const params = obj(vac, 'parameters');
  for (const k of Object.keys(params)) if (!k) errs.push(invalid('parameters', k, 'field can not be empty.'));
  if (Object.keys(params).length === 0) errs.push(required('parameters', 'must contain at least one key/value pair'));
  return errs;
}

export const volumeAttributesClassValidation: KindValidation = {
  validate: (vac) => validateVolumeAttributesClass(vac),
  validateUpdate(vac, old) {
    const errs = validateVolumeAttributesClass(vac);
    if (str(vac, 'driverName') !== str(old, 'driverName')) errs.push(forbidden('driverName', 'updates to driverName are forbidden.'));
    if (!jsonEqual(vac['parameters'] ?? {}, old['parameters'] ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    return errs;
  },
};
