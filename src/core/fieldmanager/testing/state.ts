/**
 * Operation tables for the updater, in the manner of structured-merge-diff's
 * fixture: a named case is a list of Apply/Update steps run against one live
 * object, then checked against the expected object and managed fields.
 */
import { fieldsV1ToSet, PathSet, setToFieldsV1, type FieldsV1 } from '../fieldpath';
import { Updater, type Conflicts, type ManagedFields, type VersionedSet } from '../merge';
import { Schema, type TypeNode } from '../schema';
import type { SchemaObject } from '../../registry/types';
import type { JsonObject, JsonValue } from '../value';

export interface ApplyStep {
  op: 'apply';
  manager: string;
  object: JsonObject;
  apiVersion?: string;
  force?: boolean;
  /** Expected conflicts, as "manager path" strings (path as in messages). */
  conflicts?: string[];
}
export interface UpdateStep {
  op: 'update';
  manager: string;
  object: JsonObject;
  apiVersion?: string;
}
/** Replaces the schema mid-case (topology changes). */
export interface ChangeSchemaStep {
  op: 'schema';
  root: SchemaObject;
}
export type Step = ApplyStep | UpdateStep | ChangeSchemaStep;

export interface TestCase {
  /** Root schema; omitted for schemaless (unstructured) objects. */
  root?: SchemaObject;
  definitions?: Record<string, SchemaObject>;
  ops: Step[];
  object?: JsonObject;
  /** Expected ownership: manager -> FieldsV1. */
  managed?: Record<string, FieldsV1>;
}

export interface State {
  live: JsonValue;
  managers: ManagedFields;
}

export class StepError extends Error {}

export function runCase(tc: TestCase): State {
  let schema = new Schema(tc.definitions ?? {});
  let root: TypeNode = schema.rootNode(tc.root);
  let state: State = { live: {}, managers: new Map() };
  tc.ops.forEach((step, i) => {
    if (step.op === 'schema') {
      schema = new Schema(tc.definitions ?? {});
      root = schema.rootNode(step.root);
      return;
    }
    const updater = new Updater({ schema, root });
    const apiVersion = step.apiVersion ?? 'v1';
    if (step.op === 'update') {
      state = {
        live: step.object,
        managers: updater.updateOperation(state.live, step.object, apiVersion, state.managers, step.manager),
      };
      return;
    }
    const r = updater.applyOperation(state.live, step.object, apiVersion, state.managers, step.manager, step.force ?? false);
    if (!r.ok) {
      const got = conflictStrings(r.conflicts);
      if (!step.conflicts) throw new StepError(`step ${i}: unexpected conflicts: ${got.join(', ')}`);
      if (JSON.stringify(got) !== JSON.stringify(step.conflicts)) {
        throw new StepError(`step ${i}: conflicts ${JSON.stringify(got)}, want ${JSON.stringify(step.conflicts)}`);
      }
      return;
    }
    if (step.conflicts) throw new StepError(`step ${i}: expected conflicts ${step.conflicts.join(', ')}, got none`);
    state = { live: r.object ?? state.live, managers: r.managers };
  });
  return state;
}

export function conflictStrings(c: Conflicts): string[] {
  const out: string[] = [];
  for (const [m, paths] of c.byManager()) {
    for (const p of paths) out.push(`${m} ${p.map((pe) => (pe.type === 'field' ? `.${pe.name}` : `[${pe.id}]`)).join('')}`);
  }
  return out;
}

/** Ownership as manager -> FieldsV1, for comparing with a table's expectation. */
export function managedAsFields(managers: ManagedFields): Record<string, FieldsV1> {
  const out: Record<string, FieldsV1> = {};
  for (const [m, vs] of [...managers].sort(([a], [b]) => (a < b ? -1 : 1))) out[m] = setToFieldsV1(vs.set);
  return out;
}

export function managersFrom(fields: Record<string, FieldsV1>, applied = true, apiVersion = 'v1'): ManagedFields {
  const m = new Map<string, VersionedSet>();
  for (const [k, f] of Object.entries(fields)) m.set(k, { set: fieldsV1ToSet(f), apiVersion, applied });
  return m;
}

export { PathSet };
