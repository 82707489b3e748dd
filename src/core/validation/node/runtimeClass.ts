/** RuntimeClass validation (ValidateRuntimeClass / ...Update): handler (a DNS label, fixed), overhead, scheduling. */
import { invalid, type FieldError } from '../../errors';
import { validateContainerResourceName, validateResourceQuantityValue } from '../core/resourceNames';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabels } from '../labels';
import { nameIsDNSLabel } from '../names';
import { obj, optObj, str, validateImmutableField, type Obj } from '../values';

function validateRuntimeClass(rc: Obj): FieldError[] {
  const handler = str(rc, 'handler');
  const errs = nameIsDNSLabel(handler, false).map((m) => invalid('handler', handler, m));
  const overhead = optObj(rc, 'overhead');
  if (overhead) {
    for (const [k, v] of Object.entries(obj(overhead, 'podFixed'))) {
      const p = newPath('overhead', 'podFixed').key(k);
      errs.push(...validateContainerResourceName(k, p), ...validateResourceQuantityValue(k, v, p));
    }
  }
  const scheduling = optObj(rc, 'scheduling');
  if (scheduling) errs.push(...validateLabels(scheduling['nodeSelector'], 'scheduling.nodeSelector'));
  return errs;
}

export const runtimeClassValidation: KindValidation = {
  validate: (rc) => validateRuntimeClass(rc),
  validateUpdate: (rc, old) => validateImmutableField(str(rc, 'handler'), str(old, 'handler'), newPath('handler')),
};
