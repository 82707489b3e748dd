/** ConfigMap validation (ValidateConfigMap / ValidateConfigMapUpdate): keys, total size, immutability. */
import { jsonEqual } from '../../api/equality';
import { forbidden, invalid, tooLong, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { obj, type Obj } from '../values';
import { base64Size, maxSecretSize, utf8Size, validateConfigKeys } from './configKeys';

const immutableMsg = 'field is immutable when `immutable` is set';

function validateConfigMap(cm: Obj): FieldError[] {
  const data = obj(cm, 'data');
  const binaryData = obj(cm, 'binaryData');
  const errs = validateConfigKeys(data, newPath('data'));
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    if (key in binaryData) errs.push(invalid(String(newPath('data').key(key)), key, 'duplicate of key present in binaryData'));
    total += utf8Size(value);
  }
  errs.push(...validateConfigKeys(binaryData, newPath('binaryData')));
  for (const value of Object.values(binaryData)) total += base64Size(value);
  // An empty path: the error is about the whole object.
  if (total > maxSecretSize) errs.push(tooLong('', '', maxSecretSize));
  return errs;
}

export const configMapValidation: KindValidation = {
  validate: (cm) => validateConfigMap(cm),
  validateUpdate(cm, old) {
    const errs: FieldError[] = [];
    if (old['immutable'] === true) {
      if (cm['immutable'] !== true) errs.push(forbidden('immutable', immutableMsg));
      if (!jsonEqual(cm['data'] ?? null, old['data'] ?? null)) errs.push(forbidden('data', immutableMsg));
      if (!jsonEqual(cm['binaryData'] ?? null, old['binaryData'] ?? null)) errs.push(forbidden('binaryData', immutableMsg));
    }
    return [...errs, ...validateConfigMap(cm)];
  },
};
