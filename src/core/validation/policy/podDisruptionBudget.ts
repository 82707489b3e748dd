/** PodDisruptionBudget validation (ValidatePodDisruptionBudget / ...StatusUpdate): one of minAvailable or maxUnavailable, selector, eviction policy. */
import { invalid, notSupported, type FieldError } from '../../errors';
import { newPath } from '../field';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../intOrPercent';
import type { KindValidation } from '../kinds';
import { validateLabelSelector, type LabelSelectorValidationOptions } from '../metav1';
import { has, num, obj, optStr, validateNonnegativeField, type Obj } from '../values';

const evictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

function validateSpec(pdb: Obj, opts: LabelSelectorValidationOptions): FieldError[] {
  const spec = obj(pdb, 'spec');
  const fld = newPath('spec');
  const errs: FieldError[] = [];
  if (has(spec, 'minAvailable') && has(spec, 'maxUnavailable')) {
    errs.push({ ...invalid(String(fld), null, 'minAvailable and maxUnavailable cannot be both set'), valueText: 'policy.PodDisruptionBudgetSpec{...}' });
  }
  for (const key of ['minAvailable', 'maxUnavailable']) {
    if (!has(spec, key)) continue;
    errs.push(...validatePositiveIntOrPercent(spec[key], fld.child(key)), ...isNotMoreThan100Percent(spec[key], fld.child(key)));
  }
  errs.push(...validateLabelSelector(spec['selector'], opts, fld.child('selector')));
  const policy = optStr(spec, 'unhealthyPodEvictionPolicy');
  if (policy !== undefined && !evictionPolicies.includes(policy)) errs.push(notSupported(String(fld.child('unhealthyPodEvictionPolicy')), policy, evictionPolicies));
  return errs;
}

function validateStatus(pdb: Obj): FieldError[] {
  const status = obj(pdb, 'status');
  return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((k) => validateNonnegativeField(num(status, k), newPath('status', k)));
}

export const podDisruptionBudgetValidation: KindValidation = {
  validate: (pdb) => validateSpec(pdb, {}),
  validateUpdate(pdb, old, ctx) {
    if (ctx.subresource === 'status') return validateStatus(pdb);
    const oldInvalid = validateLabelSelector(obj(old, 'spec')['selector'], {}, newPath('spec')).length > 0;
    return validateSpec(pdb, { allowInvalidLabelValueInSelector: oldInvalid });
  },
};
