/**
 * What a kind's validation looks like to the registry: the ValidateX /
 * ValidateXUpdate pair of kube's pkg/apis/<group>/validation. Each API group
 * folder under validation/ exports a table of these keyed by resource name;
 * registry/strategies.ts composes them into the resource's strategy.
 */
import type { KubeObject } from '../api/types';
import type { FieldError } from '../errors';
import type { StrategyContext } from '../registry/generic/strategy';

export interface KindValidation {
  /** Create: every error found, never throws, never mutates. */
  validate?(obj: KubeObject, ctx: StrategyContext): FieldError[];
  /** Update (also status and other subresource writes: ctx.subresource says which). Never mutates. */
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
}

/** resource name (`pods`, `deployments`) -> validation of that resource's kind. */
export type ValidationTable = Record<string, KindValidation>;
