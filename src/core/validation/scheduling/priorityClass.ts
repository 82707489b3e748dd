/** PriorityClass validation (ValidatePriorityClass / ...Update): reserved system names, the user maximum, fixed value and policy. */
import { forbidden, notSupported, type FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { num, optStr, str, validateImmutableField, type Obj } from '../values';

const systemPrefix = 'system-';
const highestUserDefinablePriority = 1000000000;
const systemClasses: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };
const preemptionPolicies = ['Never', 'PreemptLowerPriority'];

/** scheduling.IsKnownSystemPriorityClass: the reason a system- name is refused, or undefined. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = systemClasses[name];
  if (known === undefined) return `${name} is not a known system priority class`;
  if (value !== known) return `value of ${name} PriorityClass must be ${known}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

function validatePriorityClass(pc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(pc['metadata'], 'name');
  const value = num(pc, 'value');
  if (name.startsWith(systemPrefix)) {
    const why = systemClassError(name, value, pc['globalDefault'] === true);
    if (why) errs.push(forbidden('metadata.name', `priority class names with '${systemPrefix}' prefix are reserved for system use only. error: ${why}`));
  } else if (value > highestUserDefinablePriority) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  const policy = optStr(pc, 'preemptionPolicy');
  if (policy !== undefined && !preemptionPolicies.includes(policy)) errs.push(notSupported('preemptionPolicy', policy, ['Never', 'PreemptLowerPriority']));
  return errs;
}

const policyOf = (pc: Obj) => optStr(pc, 'preemptionPolicy') ?? 'PreemptLowerPriority';

export const priorityClassValidation: KindValidation = {
  validate: (pc) => validatePriorityClass(pc),
  validateUpdate(pc, old) {
    const errs: FieldError[] = [];
    if (num(pc, 'value') !== num(old, 'value')) errs.push(forbidden('value', 'may not be changed in an update.'));
    errs.push(...validateImmutableField(policyOf(pc), policyOf(old), newPath('preemptionPolicy')));
    return errs;
  },
};
