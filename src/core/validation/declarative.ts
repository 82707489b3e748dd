/**
 * Declarative validation (k8s.io/apiserver/pkg/registry/rest
 * ValidateDeclarativelyWithMigrationChecks): validation rules read from
 * +k8s: markers of the API types run beside the hand-written validation.
 *
 * - DeclarativeValidation on: both run; their errors on the fields the
 *   markers cover are compared, and a difference counts in
 *   declarative_validation_mismatch_total. The hand-written errors answer.
 * - DeclarativeValidationTakeover on as well: the declarative errors answer
 *   for the fields they cover (appended after the hand-written errors on the
 *   other fields, as the migration checks assemble them).
 * - DeclarativeValidation off: only hand-written validation runs, whatever
 *   the takeover gate says.
 *
 * The markers kubesim carries are the ones the first migrated type has:
 * ReplicationController spec.replicas (+k8s:optional, +k8s:minimum=0) and
 * spec.minReadySeconds (+k8s:minimum=0).
 */
import type { KubeObject } from '../api/types';
import { invalid, type FieldError } from '../errors';
import type { FeatureGates } from '../features';
import type { ResourceStrategy } from '../registry/generic/strategy';
import type { ResourceType } from '../registry/types';

interface MinimumRule {
  path: string[];
  minimum: number;
}

/** Declarative rules by `group/resource`. */
const declarativeRules: Record<string, MinimumRule[]> = {
  '/replicationcontrollers': [
    { path: ['spec', 'replicas'], minimum: 0 },
    { path: ['spec', 'minReadySeconds'], minimum: 0 },
  ],
};

export function hasDeclarativeValidation(type: ResourceType): boolean {
  return !type.custom && `${type.group}/${type.resource}` in declarativeRules;
}

/** The errors the declarative rules give for an object. */
export function validateDeclaratively(type: ResourceType, obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of declarativeRules[`${type.group}/${type.resource}`] ?? []) {
    let v: unknown = obj;
    for (const p of rule.path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
    // +k8s:optional: an unset field is not validated further.
    if (typeof v === 'number' && v < rule.minimum) errs.push(invalid(rule.path.join('.'), v, `must be greater than or equal to ${rule.minimum}`));
  }
  return errs;
}

function coveredFields(type: ResourceType): Set<string> {
  return new Set((declarativeRules[`${type.group}/${type.resource}`] ?? []).map((r) => r.path.join('.')));
}

const errorKey = (e: FieldError) => `${e.type}\u0000${e.field}\u0000${e.detail ?? ''}`;

/**
 * The strategy with declarative validation run beside validate and
 * validateUpdate, as the gates say; `onMismatch` counts each difference.
 */
export function withDeclarativeValidation(strategy: ResourceStrategy, type: ResourceType, gates: FeatureGates, onMismatch: () => void): ResourceStrategy {
  if (!gates.DeclarativeValidation || !hasDeclarativeValidation(type)) return strategy;
  const covered = coveredFields(type);
  const takeover = gates.DeclarativeValidationTakeover;
  const combine = (handwritten: FieldError[], obj: KubeObject): FieldError[] => {
    const declarative = validateDeclaratively(type, obj);
    const handwrittenCovered = handwritten.filter((e) => covered.has(e.field));
    const a = handwrittenCovered.map(errorKey).sort();
    const b = declarative.map(errorKey).sort();
    if (a.length !== b.length || a.some((k, i) => k !== b[i])) onMismatch();
    if (!takeover) return handwritten;
    return [...handwritten.filter((e) => !covered.has(e.field)), ...declarative];
  };
  return {
    ...strategy,
    validate: (obj, ctx) => combine(strategy.validate?.(obj, ctx) ?? [], obj),
    // A status write validates status: the spec markers do not apply to it.
    validateUpdate: (obj, old, ctx) => (ctx.subresource === 'status' ? strategy.validateUpdate?.(obj, old, ctx) ?? [] : combine(strategy.validateUpdate?.(obj, old, ctx) ?? [], obj)),
  };
}
