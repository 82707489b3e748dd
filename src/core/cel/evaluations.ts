// The virtual resource POST /apis/cel.kubesim.dev/v1alpha1/evaluations:
// compile and evaluate one expression in a chosen environment and report
// the value, its type, the error, the actual cost and the static estimate.

import { estimateCost, formatEstimate, type TypeSizes } from './checker/cost';
import { UNBOUNDED } from './library/costs';
import { typeToString, type CelType } from './common/types';
import { formatDouble } from './common/ops';
import { formatDuration, formatTimestamp } from './common/time';
import {
  CelDuration,
  CelMap,
  CelOpaque,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  CelUnknown,
  fromJson,
  isPlainObject,
  typeOfValue,
  type CelValue,
} from './common/values';
import type { CelEnv } from './env';
import {
  PER_CALL_LIMIT,
  STATIC_ESTIMATED_COST_LIMIT,
  compileKubernetes,
  newEnvironment,
  type EnvironmentKind,
} from './environments';
import { AuthorizerValue, DecisionValue, type AuthorizationAttributes, type CelAuthorizer } from './library/k8s/authz';
import { CelCIDR, CelIP } from './library/k8s/net';
import { CelQuantity } from './library/k8s/quantity';
import { CelSemver } from './library/k8s/semver';
import { CelURL } from './library/k8s/urls';
import { costErrorMessage } from './schema/crdCost';
import { schemaValue, type CelSchema } from './schema/types';

export interface EvaluationSpec {
  expression: string;
  environment: EnvironmentKind;
  variables?: Record<string, unknown>;
  /** OpenAPI schema typing self and oldSelf (crd environment) */
  schema?: CelSchema;
  /** per-call cost limit; defaults to the API server's 1000000 */
  perCallLimit?: number;
  /**
   * sizes the estimator assumes for strings and bytes it cannot size otherwise, as a
   * size estimator's EstimateSize does (Kubernetes' library cost tests use 0..12)
   */
  typeSizes?: TypeSizes;
  /**
   * cel-go's OptOptimize: literals and conversions of constants are built once and cost nothing at
   * runtime. The API server's programs run with it (the default in its environments); Kubernetes'
   * library cost tests build theirs without it (false). The plain environment never optimizes.
   */
  optimize?: boolean;
}

export interface EvaluationStatus {
  /** the result as JSON; see README for the encoding */
  value?: unknown;
  /** CEL type of the result */
  type?: string;
  /** compile or evaluation error, cel-go formatted with line:column and a caret */
  error?: string;
  /** failing sub-expression of a runtime error */
  errorExpression?: string;
  /** runtime cost of the evaluation (also reported when evaluation failed) */
  cost?: number;
  /** static estimate over the checked expression (string when unbounded) */
  estimatedCost?: { min: number | string; max: number | string };
  /** the API server's limits each figure is held to, and how far over a limit it is */
  costLimits?: CostLimitStatus[];
  warnings: string[];
}

/** One of the API server's cost limits, next to the figure it applies to. */
export interface CostLimitStatus {
  /** the API server's name for it: PerCallLimit (runtime) or StaticEstimatedCostLimit (a CRD rule's estimate) */
  name: 'PerCallLimit' | 'StaticEstimatedCostLimit';
  limit: number;
  /** runtime cost, or the estimate's max (a string when unbounded) */
  value: number | string;
  /** how much the figure is over the limit; absent when within it */
  exceededBy?: number | string;
}

function limitStatus(name: CostLimitStatus['name'], limit: number, value: number): CostLimitStatus {
  const out: CostLimitStatus = { name, limit, value: formatEstimate(value) };
  if (value > limit) out.exceededBy = formatEstimate(value >= UNBOUNDED ? UNBOUNDED : value - limit);
  return out;
}

export interface EvaluationDeps {
  /** authorizer behind the `authorizer` variable (admission) */
  authorizer?: CelAuthorizer;
  /** requesting user the authorizer checks on behalf of */
  user?: AuthorizationAttributes['user'];
}

const noAuthorizer: CelAuthorizer = {
  authorize: () => ({ decision: 'noOpinion', reason: 'no authorizer configured' }),
};

const envCache = new Map<string, CelEnv>();

function environmentFor(spec: EvaluationSpec): CelEnv {
  const optimize = spec.optimize ?? true;
  const key = `${spec.environment === 'crd' && spec.schema ? `crd:${JSON.stringify(spec.schema)}` : spec.environment}${optimize ? '' : ':unoptimized'}`;
  let env = envCache.get(key);
  if (!env) {
    if (spec.environment === 'plain') {
      const vars: Record<string, CelType> = {};
      for (const k of Object.keys(spec.variables ?? {})) vars[k] = { kind: 'dyn' };
      env = newEnvironment('plain', { variables: vars });
      return env;
    }
    env = newEnvironment(spec.environment, { schema: spec.schema, optimize });
    if (envCache.size > 100) envCache.clear();
    envCache.set(key, env);
  }
  return env;
}

function activation(spec: EvaluationSpec, deps: EvaluationDeps): Record<string, CelValue> {
  const vars: Record<string, CelValue> = {};
  for (const [k, v] of Object.entries(spec.variables ?? {})) {
    if (spec.environment === 'crd' && (k === 'self' || k === 'oldSelf')) vars[k] = schemaValue(v, spec.schema);
    else vars[k] = fromJson(v);
  }
  if (spec.environment === 'admission') {
    const az = new AuthorizerValue(deps.authorizer ?? noAuthorizer, deps.user ?? userFromRequest(spec.variables?.request));
    vars.authorizer = az;
  }
  return vars;
}

function userFromRequest(req: unknown): AuthorizationAttributes['user'] {
  const u = isPlainObject(req) && isPlainObject(req.userInfo) ? (req.userInfo as Record<string, unknown>) : {};
  return { username: String(u.username ?? ''), groups: Array.isArray(u.groups) ? u.groups.map(String) : [] };
}

export function evaluateCel(spec: EvaluationSpec, deps: EvaluationDeps = {}): EvaluationStatus {
  const warnings: string[] = [];
  const env = environmentFor(spec);
  const compiled = spec.environment === 'plain' ? env.compile(spec.expression) : compileKubernetes(env, spec.expression);
  if (!compiled.program) return { error: compiled.message ?? 'compilation failed', warnings };
  const status: EvaluationStatus = { warnings };
  const limits: CostLimitStatus[] = [];
  if (compiled.ast) {
    const est = estimateCost(compiled.ast, env.functions, { presenceTestHasCost: spec.environment === 'plain', typeSizes: spec.typeSizes });
    status.estimatedCost = { min: formatEstimate(est.min), max: formatEstimate(est.max) };
    if (spec.environment === 'crd') {
      limits.push(limitStatus('StaticEstimatedCostLimit', STATIC_ESTIMATED_COST_LIMIT, est.max));
      if (est.max > STATIC_ESTIMATED_COST_LIMIT) {
        warnings.push(costErrorMessage('estimated rule cost', est.max, STATIC_ESTIMATED_COST_LIMIT));
      }
      const t = compiled.ast.type;
      if (t.kind !== 'bool' && t.kind !== 'dyn') warnings.push('cel expression must evaluate to a bool');
    }
  }
  const limit = spec.perCallLimit ?? PER_CALL_LIMIT;
  const r = compiled.program.eval(activation(spec, deps), { costLimit: limit });
  status.cost = r.cost;
  limits.unshift(limitStatus('PerCallLimit', limit, r.cost));
  status.costLimits = limits;
  if (!r.ok) {
    status.error = r.error.display ?? r.error.message;
    if (r.error.subExpression) status.errorExpression = r.error.subExpression;
    return status;
  }
  status.value = toJson(r.value);
  status.type = resultType(compiled.ast?.type, r.value);
  return status;
}

function resultType(t: CelType | undefined, v: CelValue): string {
  if (t && t.kind !== 'dyn' && t.kind !== 'param') return typeToString(t);
  return typeOfValue(v).name;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * JSON encoding of a CEL value: int and uint as numbers when within 2^53,
 * else decimal strings; doubles as numbers (NaN and infinities as strings);
 * bytes base64; timestamps RFC 3339; durations like "1.5s"; types by name;
 * optionals as their value or null; library values by their string form.
 */
export function toJson(v: CelValue): unknown {
  switch (typeof v) {
    case 'bigint':
      return v <= SAFE && v >= -SAFE ? Number(v) : String(v);
    case 'number':
      return Number.isFinite(v) ? v : formatDouble(v);
    case 'string':
    case 'boolean':
      return v;
  }
  if (v === null) return null;
  if (v instanceof CelUint) return v.v <= SAFE ? Number(v.v) : String(v.v);
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Uint8Array) {
    let s = '';
    for (const b of v) s += String.fromCharCode(b);
    return btoa(s);
  }
  if (v instanceof CelMap) {
    const out: Record<string, unknown> = {};
    for (const [, [k, x]] of v.entries) out[k instanceof CelUint ? String(k.v) : String(k)] = toJson(x);
    return out;
  }
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toJson(fromJson(v[k]));
    return out;
  }
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  if (v instanceof CelTypeValue) return v.name;
  if (v instanceof CelOptional) return v.value === undefined ? null : toJson(v.value);
  if (v instanceof CelUnknown) return { unknown: v.ids };
  if (v instanceof CelQuantity) return v.text || quantityString(v);
  if (v instanceof CelURL) return v.raw;
  if (v instanceof CelIP || v instanceof CelCIDR) return v.toString();
  if (v instanceof CelSemver) return `${v.major}.${v.minor}.${v.patch}${v.pre.length ? '-' + v.pre.join('.') : ''}`;
  if (v instanceof DecisionValue) return { decision: v.d.decision, reason: v.d.reason, ...(v.d.error ? { error: v.d.error } : {}) };
  if (v instanceof CelOpaque) return v.typeName;
  return null;
}

function quantityString(q: CelQuantity): string {
  if (q.exp >= 0) return String(q.mantissa * 10n ** BigInt(q.exp));
  const d = 10n ** BigInt(-q.exp);
  const neg = q.mantissa < 0n;
  const m = neg ? -q.mantissa : q.mantissa;
  const frac = String(m % d).padStart(-q.exp, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${m / d}${frac ? '.' + frac : ''}`;
}
