/**
 * The CEL part of ValidatingAdmissionPolicy validation (kube's
 * ValidateValidatingAdmissionPolicy compiles every expression): matchConditions,
 * variables, validations (and their messageExpressions) and auditAnnotations
 * must compile in the admission environment, with the result type each field
 * needs. Structural field validation of the kind lives in validation/admissionregistration.
 */
import { isObject, type KubeObject } from '../api/types';
import { compileKubernetes, newEnvironment } from '../cel';
import { invalid, type FieldError } from '../errors';
import type { ResourceStrategy } from '../registry/generic/strategy';

type Want = 'bool' | 'string' | 'any';

function check(env: ReturnType<typeof newEnvironment>, expression: unknown, field: string, want: Want, errs: FieldError[]): void {
  // A missing expression is reported once, by the structural validation.
  if (typeof expression !== 'string' || expression.trim() === '') return;
  const c = compileKubernetes(env, expression);
  if (!c.program) {
    errs.push(invalid(field, expression, `compilation failed: ${c.message ?? ''}`));
    return;
  }
  const kind = c.ast?.type.kind;
  if (want !== 'any' && kind !== undefined && kind !== want && kind !== 'dyn') errs.push(invalid(field, expression, `must evaluate to ${want}`));
}

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

export function validatePolicyExpressions(obj: KubeObject): FieldError[] {
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const errs: FieldError[] = [];
  const env = newEnvironment('admission');
  list(spec['matchConditions']).forEach((m, i) => check(env, m['expression'], `spec.matchConditions[${i}].expression`, 'bool', errs));
  list(spec['variables']).forEach((v, i) => check(env, v['expression'], `spec.variables[${i}].expression`, 'any', errs));
  list(spec['validations']).forEach((v, i) => {
    check(env, v['expression'], `spec.validations[${i}].expression`, 'bool', errs);
    if (v['messageExpression'] !== undefined) check(env, v['messageExpression'], `spec.validations[${i}].messageExpression`, 'string', errs);
  });
  list(spec['auditAnnotations']).forEach((a, i) => check(env, a['valueExpression'], `spec.auditAnnotations[${i}].valueExpression`, 'any', errs));
  return errs;
}

export const validatingAdmissionPolicyStrategy: Partial<ResourceStrategy> = {
  validate: (obj) => validatePolicyExpressions(obj),
  validateUpdate: (obj, _old, ctx) => (ctx.subresource === 'status' ? [] : validatePolicyExpressions(obj)),
};
