/**
 * MutatingAdmissionPolicy and its binding, structurally
 * (ValidateMutatingAdmissionPolicy / ...Binding): the parts shared with
 * ValidatingAdmissionPolicy (param kind, match constraints, variables,
 * param references) plus mutations and the reinvocation policy. Compiling
 * the CEL expressions is the CEL environment's part, not this module's.
 */
import { invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { has, objs, optObj, str, type Obj } from '../values';
import { validateBindingSpecCommon, validatePolicySpecCommon } from './validatingAdmissionPolicy';

const patchTypes = ['ApplyConfiguration', 'JSONPatch'];
const reinvocationPolicies = ['IfNeeded', 'Never'];

/** validateMutation: patchType says which of jsonPatch and applyConfiguration is set, and the other must not be. */
function validateMutation(m: Obj, fld: Path): FieldError[] {
  const patchType = str(m, 'patchType');
  if (!patchType) return [required(String(fld.child('patchType')))];
  const errs: FieldError[] = [];
  const member = (key: string, other: string) => {
    const value = optObj(m, key);
    if (!value) errs.push(required(String(fld.child(key)), `must be specified when patchType is ${patchType}`));
    else if (!str(value, 'expression').trim()) errs.push(required(String(fld.child(key, 'expression'))));
    // Go prints the placeholder string kube passes as the value.
    if (has(m, other)) errs.push(invalid(String(fld.child(other)), `{${other}}`, `must not be specified when patchType is ${patchType}`));
  };
  if (patchType === 'JSONPatch') member('jsonPatch', 'applyConfiguration');
  else if (patchType === 'ApplyConfiguration') member('applyConfiguration', 'jsonPatch');
  else errs.push(notSupported(String(fld.child('patchType')), patchType, patchTypes));
  return errs;
}

function validatePolicy(policy: Obj): FieldError[] {
  const spec = optObj(policy, 'spec') ?? {};
  const fld = newPath('spec');
  const errs: FieldError[] = validatePolicySpecCommon(spec, fld);
  const mutations = objs(spec, 'mutations');
  if (mutations.length === 0) errs.push(required(String(fld.child('mutations')), 'mutations must contain at least one item'));
  mutations.forEach((m, i) => errs.push(...validateMutation(m, fld.child('mutations').index(i))));
  const reinvocation = str(spec, 'reinvocationPolicy');
  if (!reinvocation) errs.push(required(String(fld.child('reinvocationPolicy'))));
  else if (!reinvocationPolicies.includes(reinvocation)) errs.push(notSupported(String(fld.child('reinvocationPolicy')), reinvocation, reinvocationPolicies));
  return errs;
}

function validateBinding(binding: Obj): FieldError[] {
  return validateBindingSpecCommon(optObj(binding, 'spec') ?? {}, newPath('spec'));
}

export const mutatingAdmissionPolicyValidation: KindValidation = {
  validate: (p) => validatePolicy(p),
  validateUpdate: (p, _old, ctx) => (ctx.subresource === 'status' ? [] : validatePolicy(p)),
};

export const mutatingAdmissionPolicyBindingValidation: KindValidation = {
  validate: (b) => validateBinding(b),
  validateUpdate: (b) => validateBinding(b),
};
