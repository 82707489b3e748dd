/**
 * x-kubernetes-validations: the CEL rules of a CRD schema, compiled at CRD
 * write (compile errors, non-bool rules, messageExpressions, reasons) and
 * evaluated against custom objects (self / oldSelf typed from the schema,
 * transition rules only on update with an old value, per-rule cost limit and
 * per-object budget), with errors as apiextensions-apiserver reports them.
 */
import {
  CelOptional,
  compileKubernetes,
  goValidationRule,
  newEnvironment,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  schemaValue,
  type CelProgram,
  type CelSchema,
  type CelValue,
} from '../cel';
import { duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../errors';
import { celCompilationDuration, celEvaluationDuration, timed } from '../ops/processMetrics';
import type { JSONSchemaProps, ValidationRule } from './types';

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const usesOldSelf = (text: string) => /\boldSelf\b/.test(text);

/** Compile-time checks of every rule of a schema (validation of the CRD). */
export function validateSchemaRules(root: JSONSchemaProps, rootPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (s: JSONSchemaProps, path: string): void => {
    const rules = s['x-kubernetes-validations'] ?? [];
    if (rules.length) {
      const env = newEnvironment('crd', { schema: s as CelSchema, resourceRoot: s === root });
      rules.forEach((r, i) => {
        const base = `${path}.x-kubernetes-validations[${i}]`;
        const value = goValidationRule(r);
        if (!r.rule) {
          errs.push(required(`${base}.rule`, 'rule is not specified'));
          return;
        }
        const c = compileKubernetes(r.optionalOldSelf ? optionalEnv(s, s === root) : env, r.rule);
        if (!c.program) errs.push({ ...invalid(`${base}.rule`, null, `compilation failed: ${c.message ?? ''}`), valueText: value });
        else if (c.ast && c.ast.type.kind !== 'bool' && c.ast.type.kind !== 'dyn') {
          errs.push({ ...invalid(`${base}.rule`, null, 'cel expression must evaluate to a bool'), valueText: value });
        }
        if (r.messageExpression) {
          const m = compileKubernetes(env, r.messageExpression);
          if (!m.program) errs.push({ ...invalid(`${base}.messageExpression`, null, `messageExpression compilation failed: ${m.message ?? ''}`), valueText: value });
        }
        if (r.message !== undefined && r.message.trim() === '' && r.message !== '') {
          errs.push(required(`${base}.message`, 'message must be non-empty if specified'));
        }
        if (r.reason !== undefined && !REASONS.includes(r.reason)) errs.push(notSupported(`${base}.reason`, r.reason, REASONS));
      });
    }
    for (const [name, p] of Object.entries(s.properties ?? {})) walk(p, `${path}.properties[${name}]`);
    if (s.items && !Array.isArray(s.items)) walk(s.items, `${path}.items`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}.additionalProperties`);
  };
  walk(root, rootPath);
  return errs;
}

/** The environment of rules with optionalOldSelf: oldSelf is optional(self's type). */
function optionalEnv(s: JSONSchemaProps, isRoot: boolean) {
  return newEnvironment('crd', { schema: s as CelSchema, resourceRoot: isRoot, optionalOldSelf: true });
}

interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  message?: CelProgram;
  transition: boolean;
  optionalOldSelf: boolean;
}

/** Compiled rules of one schema node, cached by node (a CRD version's schema is immutable once registered). */
const compiledByNode = new WeakMap<JSONSchemaProps, CompiledRule[]>();

function compiledRules(s: JSONSchemaProps, isRoot: boolean): CompiledRule[] {
  let out = compiledByNode.get(s);
  if (!out) out = timed(celCompilationDuration, () => compileNode(s, isRoot));
  return out;
}

/** Compiles one schema node's rules (apiserver_cel_compilation_duration_seconds times it). */
function compileNode(s: JSONSchemaProps, isRoot: boolean): CompiledRule[] {
  const env = newEnvironment('crd', { schema: s as CelSchema, resourceRoot: isRoot });
  let optional: ReturnType<typeof newEnvironment> | undefined;
  const out = (s['x-kubernetes-validations'] ?? []).map((rule) => {
    const e = rule.optionalOldSelf ? (optional ??= optionalEnv(s, isRoot)) : env;
    return {
      rule,
      program: rule.rule ? compileKubernetes(e, rule.rule).program : undefined,
      message: rule.messageExpression ? compileKubernetes(e, rule.messageExpression).program : undefined,
      transition: usesOldSelf(rule.rule ?? '') || usesOldSelf(rule.messageExpression ?? ''),
      optionalOldSelf: !!rule.optionalOldSelf,
    };
  });
  compiledByNode.set(s, out);
  return out;
}

/** Whether any node of the schema has rules (skip the walk otherwise). */
const hasRulesCache = new WeakMap<JSONSchemaProps, boolean>();
export function schemaHasRules(s: JSONSchemaProps): boolean {
  let v = hasRulesCache.get(s);
  if (v === undefined) {
    v = !!s['x-kubernetes-validations']?.length ||
      Object.values(s.properties ?? {}).some(schemaHasRules) ||
      (!!s.items && !Array.isArray(s.items) && schemaHasRules(s.items)) ||
      (!!s.additionalProperties && typeof s.additionalProperties === 'object' && schemaHasRules(s.additionalProperties));
    hasRulesCache.set(s, v);
  }
  return v;
}

function schemaTypeName(s: JSONSchemaProps): string {
  return s.type ?? (s['x-kubernetes-int-or-string'] ? 'string' : 'object');
}

/** The field error a failed rule produces (reason, message, messageExpression, fieldPath). */
function ruleError(c: CompiledRule, path: string, s: JSONSchemaProps, vars: Record<string, CelValue | undefined>, budget: { left: number }): FieldError {
  let message = c.rule.message || `failed rule: ${c.rule.rule}`;
  if (c.message) {
    const r = c.message.eval(vars, { costLimit: Math.min(PER_CALL_LIMIT, budget.left) });
    budget.left -= r.cost;
    if (r.ok && typeof r.value === 'string' && r.value.trim() !== '' && !r.value.includes('\n')) message = r.value;
  }
  let field = path;
  if (c.rule.fieldPath) field = path === '<nil>' ? c.rule.fieldPath.replace(/^\./, '') : `${path}${c.rule.fieldPath}`;
  switch (c.rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(field, message);
    case 'FieldValueRequired':
      return required(field, message);
    case 'FieldValueDuplicate':
      return duplicate(field, message);
    default:
      return invalid(field, schemaTypeName(s), message);
  }
}

/**
 * Evaluates the rules of a custom object (and, on update, its old version)
 * against the schema; errors in kube's order (depth first, rules in order).
 */
export function validateRules(schema: JSONSchemaProps, obj: unknown, old: unknown): FieldError[] {
  if (!schemaHasRules(schema)) return [];
  return timed(celEvaluationDuration, () => evaluateRules(schema, obj, old));
}

function evaluateRules(schema: JSONSchemaProps, obj: unknown, old: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const budget = { left: RUNTIME_CEL_COST_BUDGET };
  let exhausted = false;
  const walk = (s: JSONSchemaProps, v: unknown, o: unknown, hasOld: boolean, path: string, isRoot: boolean): void => {
    if (exhausted || v === undefined || v === null) return;
    const rules = s['x-kubernetes-validations'];
    if (rules?.length) {
      const self = schemaValue(v, s as CelSchema);
      const oldSelf = hasOld && o !== undefined && o !== null ? schemaValue(o, s as CelSchema) : undefined;
      for (const c of compiledRules(s, isRoot)) {
        if (!c.program) continue;
        // Transition rules run only with an old value, unless oldSelf is optional (then it may be none).
        if (c.transition && oldSelf === undefined && !c.optionalOldSelf) continue;
        const vars = { self, oldSelf: c.optionalOldSelf ? (oldSelf === undefined ? CelOptional.NONE : new CelOptional(oldSelf)) : oldSelf };
        if (budget.left <= 0) {
          errs.push(invalid(path, schemaTypeName(s), 'validation failed due to running out of cost budget, no further validation rules will be run'));
          exhausted = true;
          return;
        }
        const r = c.program.eval(vars, { costLimit: Math.min(PER_CALL_LIMIT, budget.left) });
        budget.left -= r.cost;
        if (!r.ok) {
          if (r.error.costLimitExceeded) {
            if (budget.left <= 0) {
              errs.push(invalid(path, schemaTypeName(s), 'validation failed due to running out of cost budget, no further validation rules will be run'));
              exhausted = true;
              return;
            }
            errs.push(invalid(path, schemaTypeName(s), `call cost exceeds limit for rule: ${c.rule.rule}`));
          } else {
            errs.push(invalid(path, schemaTypeName(s), r.error.message));
          }
          continue;
        }
        if (r.value !== true) errs.push(ruleError(c, path, s, vars, budget));
      }
    }
    const child = (p: string) => (path === '<nil>' ? p : `${path}.${p}`);
    if (isPlainObject(v)) {
      const oo = isPlainObject(o) ? o : undefined;
      if (s.properties) {
        for (const [k, ps] of Object.entries(s.properties)) {
          if (k in v) walk(ps, v[k], oo?.[k], hasOld && !!oo && k in oo, child(k), false);
        }
      } else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        for (const k of Object.keys(v)) walk(s.additionalProperties, v[k], oo?.[k], hasOld && !!oo && k in oo, `${path === '<nil>' ? '' : path}[${k}]`, false);
      }
    } else if (Array.isArray(v) && s.items && !Array.isArray(s.items)) {
      const items = s.items;
      const lt = s['x-kubernetes-list-type'];
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const olds = Array.isArray(o) ? o : [];
      v.forEach((item, i) => {
        // Old items correlate only through list-map keys (and set values): atomic lists have no oldSelf below them.
        let match: unknown;
        let found = false;
        if (lt === 'map' && isPlainObject(item)) {
          match = olds.find((x) => isPlainObject(x) && keys.every((k) => JSON.stringify(x[k]) === JSON.stringify(item[k])));
          found = match !== undefined;
        } else if (lt === 'set') {
          found = olds.some((x) => JSON.stringify(x) === JSON.stringify(item));
          match = found ? item : undefined;
        }
        walk(items, item, match, hasOld && found, `${path === '<nil>' ? '' : path}[${i}]`, false);
      });
    }
  };
  walk(schema, obj, old, old !== undefined, '<nil>', true);
  return errs;
}
