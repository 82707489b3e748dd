// Function declarations shared by the checker (signatures), the planner
// (implementations and runtime overload matching) and cost accounting.

import type { Expr } from '../ast';
import { NameSet } from '../common/names';
import { parseSignature, type CelType, type Signature } from '../common/types';
import {
  CelDuration,
  CelMap,
  CelOpaque,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  isPlainObject,
  type CelValue,
} from '../common/values';

export type Impl = (...args: CelValue[]) => CelValue;

export interface SizeRange {
  min: number;
  max: number;
}

/** What the static estimator knows about one argument of a call. */
export interface EstimateNode {
  expr: Expr;
  type: CelType;
  /** size estimate of the value (string length, list items, ...) */
  size(): SizeRange;
  /** size estimate of the elements when the value is a list */
  elementSize(): SizeRange;
  /** size known from the expression itself (literals, call results), if any */
  computedSize?(): SizeRange | undefined;
}

export interface CallEstimate {
  cost: SizeRange;
  resultSize?: SizeRange;
}

export type EstimateFn = (target: EstimateNode | undefined, args: EstimateNode[]) => CallEstimate | undefined;

export interface OverloadDecl {
  id: string;
  sig: Signature;
  impl: Impl;
  /** receives error and unknown arguments instead of short-circuiting on them */
  nonStrict?: boolean;
  /** runtime cost (cel-go CallCost); args include the receiver first. Default 1. */
  cost?: (args: CelValue[], result: CelValue) => number;
  /** static cost estimate (checker.EstimateCallCost); default 1 */
  estimate?: EstimateFn;
}

export interface Library {
  name: string;
  overloads: OverloadDecl[];
  /** names of the opaque types the library declares, usable as type identifiers (`net.IP`) */
  types?: string[];
}

export function def(
  id: string,
  signature: string,
  impl: Impl,
  extra: Partial<Pick<OverloadDecl, 'nonStrict' | 'cost' | 'estimate'>> = {},
): OverloadDecl {
  return { id, sig: parseSignature(signature), impl, ...extra };
}

/** Functions by name, each with its overloads. */
export class FunctionRegistry {
  readonly byName = new Map<string, OverloadDecl[]>();
  readonly byId = new Map<string, OverloadDecl>();
  /** overloads by name, then by arity × 2 + member: built on first use, dropped when a library is added */
  private tables = new Map<string, OverloadDecl[][]>();
  private roots: NameSet | undefined;
  /** reprices an overload (the API server's library cost estimator); applied per function name on first use */
  pricing: ((name: string, o: OverloadDecl) => OverloadDecl) | undefined;
  private pricedByName = new Map<string, OverloadDecl[]>();
  add(lib: Library): void {
    for (const o of lib.overloads) {
      let list = this.byName.get(o.sig.name);
      if (!list) this.byName.set(o.sig.name, (list = []));
      const existing = list.findIndex((x) => x.id === o.id);
      if (existing >= 0) list[existing] = o;
      else list.push(o);
      this.byId.set(o.id, o);
    }
    this.invalidate();
  }
  /** changes with every change of the declarations: tables derived elsewhere are rebuilt when it differs */
  version = 0;
  /** Drops the derived tables (after byName or byId were changed directly). */
  invalidate(): void {
    this.version++;
    this.tables.clear();
    this.pricedByName.clear();
    this.roots = undefined;
  }
  has(name: string): boolean {
    return this.byName.has(name);
  }
  get(name: string): OverloadDecl[] {
    return this.byName.get(name) ?? [];
  }
  /** The overloads of `name` with their costs as the environment prices them; do not mutate. */
  priced(name: string): readonly OverloadDecl[] {
    const pricing = this.pricing;
    if (pricing === undefined) return this.get(name);
    let l = this.pricedByName.get(name);
    if (l === undefined) this.pricedByName.set(name, (l = this.get(name).map((o) => pricing(name, o))));
    return l;
  }
  /** The overloads of `name` taking `arity` arguments (the receiver counted) in member or global form; do not mutate. */
  overloads(name: string, member: boolean, arity: number): readonly OverloadDecl[] {
    let t = this.tables.get(name);
    if (t === undefined) this.tables.set(name, (t = []));
    const k = arity * 2 + (member ? 1 : 0);
    let l = t[k];
    if (l === undefined) t[k] = l = this.priced(name).filter((o) => o.sig.member === member && o.sig.params.length === arity);
    return l;
  }
  /** First segments of dotted function names (`optional` of `optional.of`): only chains rooted there can name a function. */
  qualifiedRoots(): ReadonlySet<string> {
    if (this.roots === undefined) {
      this.roots = new NameSet();
      for (const name of this.byName.keys()) {
        const dot = name.indexOf('.');
        if (dot > 0) this.roots.add(name.slice(0, dot));
      }
    }
    return this.roots;
  }
}

/** Does a runtime value fit a declared parameter type? */
export function valueMatches(t: CelType, v: CelValue): boolean {
  switch (t.kind) {
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return v instanceof CelUint;
    case 'double':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null':
      return v === null;
    case 'timestamp':
      return v instanceof CelTimestamp;
    case 'duration':
      return v instanceof CelDuration;
    case 'list':
      return Array.isArray(v);
    case 'map':
    case 'object':
      return v instanceof CelMap || isPlainObject(v);
    case 'type':
      return v instanceof CelTypeValue;
    case 'opaque':
      if (t.name === 'optional_type') return v instanceof CelOptional;
      return v instanceof CelOpaque && v.typeName === t.name;
    default:
      return true;
  }
}
