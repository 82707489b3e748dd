// Static cost of a CRD schema's x-kubernetes-validations rules, as the
// apiextensions-apiserver checks it when a CustomResourceDefinition is
// created or updated: each rule's estimated cost is multiplied by how many
// times the rule can run for one object (the product of maxItems /
// maxProperties of the lists and maps above it, or, when one of them is
// unbounded, the most elements of the rule's type a 3 MiB request can hold),
// rules over the per-rule limit are forbidden, and the total over all rules
// and messageExpressions is held to the per-CRD limit.

import { estimateCost } from '../checker/cost';
import { compileKubernetes, newEnvironment, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '../environments';
import { UNBOUNDED } from '../library/costs';
import { MAX_REQUEST_SIZE_BYTES, minSerializedSize, type CelSchema } from './types';

export { minSerializedSize };
import type { FieldError } from '../../errors/fieldErrors';
import { goQuote } from '../../errors/goFormat';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** One costed expression of the schema. */
export interface ExpressionCost {
  /** field path as the API server reports it: `<root>.properties[spec].x-kubernetes-validations[0].rule` */
  path: string;
  expression: string;
  /** estimated worst-case cost of one evaluation */
  estimatedCost: number;
  /** how many times the expression can run for one object (1 for messageExpressions, which are not multiplied) */
  cardinality: number;
  /** estimatedCost × cardinality, saturating at 2^64-1 */
  cost: number;
}

export interface CrdCostReport {
  expressions: ExpressionCost[];
  /** sum over every rule and messageExpression, saturating */
  total: number;
  /** Forbidden field errors with the API server's texts, in the order it reports them */
  errors: FieldError[];
}

const MAX_MOST_EXPENSIVE = 4;

/** Go's %f: six decimals. */
const goFloat = (x: number): string => x.toFixed(6);

/** getCostErrorMessage of the apiextensions validation. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${goFloat(f)}x` : `${f.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** multiplyWithOverflowGuard: saturates at math.MaxUint64. */
export function multiplyCost(cost: number, cardinality: number): number {
  if (cost === 0) return 0;
  const p = cost * cardinality;
  return p >= UNBOUNDED || !Number.isFinite(p) ? UNBOUNDED : p;
}

function addCost(a: number, b: number): number {
  const s = a + b;
  return s >= UNBOUNDED ? UNBOUNDED : s;
}

/**
 * The rule as the API server prints it in an Invalid field error (Go's %#v
 * of apiextensions.ValidationRule). Set pointer fields print as an address,
 * which differs from run to run there too.
 */
export function goValidationRule(r: ValidationRule): string {
  const ptr = (type: string, set: boolean): string => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule)}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, ` +
    `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason !== undefined)}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf !== undefined)}}`
  );
}

/** Most times data of this minimal size can appear in one request: 3 MiB / (size + one comma). */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}

/** The factor by which a schema multiplies the occurrences of its children; undefined when unbounded. */
function maxElements(s: CelSchema): number | undefined {
  if (s.type === 'object') {
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) return s.maxProperties === undefined ? undefined : Math.max(0, s.maxProperties);
    return 1;
  }
  if (s.type === 'array') return s.maxItems === undefined ? undefined : Math.max(0, s.maxItems);
  return 1;
}

/**
 * Estimates every x-kubernetes-validations rule of a CRD version's schema.
 * `rootPath` is the schema's field path (`spec.versions[0].schema.openAPIV3Schema`).
 * Rules that do not compile are skipped: their compile errors are reported elsewhere.
 */
export function estimateCrdCost(root: CelSchema, rootPath: string): CrdCostReport {
  const expressions: ExpressionCost[] = [];
  const errors: FieldError[] = [];
  let total = 0;
  let mostExpensive: { path: string; cost: number }[] = [];
  const observe = (path: string, cost: number): void => {
    total = addCost(total, cost);
    // rules under 1% of the per-CRD limit are never named as contributors
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    mostExpensive.push({ path, cost });
    mostExpensive.sort((a, b) => b.cost - a.cost);
    mostExpensive = mostExpensive.slice(0, MAX_MOST_EXPENSIVE);
  };

  const walk = (s: CelSchema, path: string, cardinality: number | undefined): void => {
    const rules = (s as { 'x-kubernetes-validations'?: ValidationRule[] })['x-kubernetes-validations'] ?? [];
    if (rules.length) {
      // rules at the root see the apiVersion, kind and metadata the API server adds there
      const env = newEnvironment('crd', { schema: s, resourceRoot: s === root });
      const own = cardinality ?? maxCardinality(minSerializedSize(s));
      rules.forEach((r, i) => {
        const base = `${path}.x-kubernetes-validations[${i}]`;
        const compiled = compileKubernetes(env, r.rule);
        if (compiled.ast) {
          const est = estimateCost(compiled.ast, env.functions).max;
          const cost = multiplyCost(est, own);
          expressions.push({ path: `${base}.rule`, expression: r.rule, estimatedCost: est, cardinality: own, cost });
          if (cost > STATIC_ESTIMATED_COST_LIMIT) {
            errors.push({ type: 'FieldValueForbidden', field: `${base}.rule`, detail: costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT) });
          }
          observe(`${base}.rule`, cost);
        }
        if (r.messageExpression) {
          const m = compileKubernetes(env, r.messageExpression);
          if (m.ast && m.ast.type.kind !== 'string') {
            // the message is the error text: anything but a string (dyn included) is rejected, and not costed
            errors.push({ type: 'FieldValueInvalid', field: `${base}.messageExpression`, valueText: goValidationRule(r), detail: 'messageExpression must evaluate to a string' });
          } else if (m.ast) {
            const est = estimateCost(m.ast, env.functions).max;
            expressions.push({ path: `${base}.messageExpression`, expression: r.messageExpression, estimatedCost: est, cardinality: 1, cost: est });
            if (est > STATIC_ESTIMATED_COST_LIMIT) {
              errors.push({ type: 'FieldValueForbidden', field: `${base}.messageExpression`, detail: costErrorMessage('estimated messageExpression cost', est, STATIC_ESTIMATED_COST_LIMIT) });
            }
            observe(`${base}.messageExpression`, est);
          }
        }
      });
    }
    const factor = maxElements(s);
    const child = cardinality === undefined || factor === undefined ? undefined : multiplyCost(cardinality, factor);
    for (const [name, ps] of Object.entries(s.properties ?? {})) walk(ps as CelSchema, `${path}.properties[${name}]`, child);
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) walk(s.items as CelSchema, `${path}.items`, child);
    const ap = s.additionalProperties;
    if (ap && typeof ap === 'object') walk(ap as CelSchema, `${path}.additionalProperties`, child);
  };
  walk(root, rootPath, 1);

  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of mostExpensive) {
      errors.push({ type: 'FieldValueForbidden', field: e.path, detail: 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema' });
    }
    errors.push({
      type: 'FieldValueForbidden',
      field: rootPath,
      detail: costErrorMessage('x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT),
    });
  }
  return { expressions, total, errors };
}
