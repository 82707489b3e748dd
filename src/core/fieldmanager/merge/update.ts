import { PathSet } from '../fieldpath';
import type { Schema, TypeNode } from '../schema';
import {
  compare,
  comparisonIsSame,
  ensureNamedFieldsAreMembers,
  mergeComparing,
  reconcileFieldSetWithSchema,
  removeItems,
  toFieldSet,
  type Comparison,
} from '../typed';
import { equals, type JsonValue } from '../value';
import { Conflicts } from './conflict';

/** The fields one manager owns, at the API version it last wrote with. */
export interface VersionedSet {
  readonly set: PathSet;
  readonly apiVersion: string;
  /** True when the manager is an applier (its last operation was Apply). */
  readonly applied: boolean;
}

/** Ownership of an object: manager identifier -> owned fields. */
export type ManagedFields = ReadonlyMap<string, VersionedSet>;

export interface UpdaterOptions {
  schema: Schema;
  /** Root type of the objects this updater sees. */
  root: TypeNode;
  /** Fields never tracked (reset fields of the resource, e.g. status on main-resource writes). */
  ignoredFields?: PathSet;
}

export type ApplyResult =
  | { ok: true; object: JsonValue | undefined; managers: ManagedFields }
  | { ok: false; conflicts: Conflicts };

/**
 * The updater: computes ownership for Update and Apply operations. Objects
 * are plain JSON with the managedFields already taken out. Apply returns
 * `object: undefined` when the apply changes nothing in the object.
 * Throws TypedError when a value does not fit the schema.
 */
export class Updater {
  constructor(private readonly opts: UpdaterOptions) {}

  private filter(set: PathSet): PathSet {
    return this.opts.ignoredFields ? set.recursiveDifference(this.opts.ignoredFields) : set;
  }

  private filterComparison(c: Comparison): Comparison {
    return { added: this.filter(c.added), modified: this.filter(c.modified), removed: this.filter(c.removed) };
  }

  /** Applies the topology-change rules to every manager's set. */
  reconcile(managers: ManagedFields): Map<string, VersionedSet> {
    const out = new Map<string, VersionedSet>();
    for (const [m, vs] of managers) {
      const reconciled = reconcileFieldSetWithSchema(this.opts.schema, this.opts.root, vs.set);
      out.set(m, reconciled ? { ...vs, set: reconciled } : vs);
    }
    return out;
  }

  /**
   * Computes who loses what when `oldObject` becomes `newObject` on behalf of
   * `workflow`: other managers lose changed fields (a conflict unless forced)
   * and removed ones. `known` is the comparison of the two when the caller
   * has it already.
   */
  private update(
    oldObject: JsonValue,
    newObject: JsonValue,
    apiVersion: string,
    managers: Map<string, VersionedSet>,
    workflow: string,
    force: boolean,
    known?: Comparison,
  ): { ok: true; comparison: Comparison } | { ok: false; conflicts: Conflicts } {
    const comparison = this.filterComparison(known ?? compare(this.opts.schema, this.opts.root, oldObject, newObject));
    void apiVersion;
    const changed = comparison.modified.union(comparison.added);
    if (!force) {
      const conflicts = new Map<string, PathSet>();
      for (const [manager, vs] of managers) {
        if (manager === workflow) continue;
        const c = vs.set.intersection(changed);
        if (!c.empty()) conflicts.set(manager, c);
      }
      if (conflicts.size > 0) return { ok: false, conflicts: Conflicts.fromManagers(conflicts) };
    }
    // Forced (or without conflicts): the others lose what changed (set minus its conflicts) and what was removed.
    for (const [manager, vs] of [...managers]) {
      if (manager === workflow) continue;
      let set = vs.set;
      if (force) set = set.difference(changed);
      set = set.difference(comparison.removed);
      if (set.empty()) managers.delete(manager);
      else if (set !== vs.set) managers.set(manager, { ...vs, set });
    }
    return { ok: true, comparison };
  }

  /** Update operation: never conflicts; the manager takes the fields it changed. */
  updateOperation(
    liveObject: JsonValue,
    newObject: JsonValue,
    apiVersion: string,
    managedFields: ManagedFields,
    manager: string,
  ): ManagedFields {
    const managers = this.reconcile(managedFields);
    const r = this.update(liveObject, newObject, apiVersion, managers, manager, true);
    if (!r.ok) throw new Error('unreachable: forced update reported conflicts');
    const prev = managers.get(manager)?.set ?? PathSet.EMPTY;
    const c = r.comparison;
    const set = this.filter(prev.difference(c.removed).union(c.modified).union(c.added));
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion, applied: false });
    return managers;
  }

  /** Apply operation: merges the configuration, prunes what the manager stopped applying. */
  applyOperation(
    liveObject: JsonValue,
    configObject: JsonValue,
    apiVersion: string,
    managedFields: ManagedFields,
    manager: string,
    force: boolean,
  ): ApplyResult {
    const { schema, root } = this.opts;
    const managers = this.reconcile(managedFields);
    const { merged, comparison } = mergeComparing(schema, root, liveObject, configObject);
    const lastSet = managers.get(manager);
    const set = this.filter(toFieldSet(schema, root, configObject));
    managers.set(manager, { set, apiVersion, applied: true });
    const newObject = this.prune(merged, managers, manager, lastSet);
    // The merge's own comparison holds unless pruning removed something: then compare afresh.
    const r = this.update(liveObject, newObject, apiVersion, managers, manager, force, newObject === merged ? comparison : undefined);
    if (!r.ok) return r;
    if (managers.get(manager)?.set.empty()) managers.delete(manager);
    const unchanged = comparisonIsSame(r.comparison) && equals(liveObject, newObject);
    return { ok: true, object: unchanged ? undefined : newObject, managers };
  }

  /**
   * Removes a field, list or map entry when the applier applied it last time,
   * did not apply it now, and no other manager owns it.
   */
  private prune(
    merged: JsonValue,
    managers: Map<string, VersionedSet>,
    applier: string,
    lastSet: VersionedSet | undefined,
  ): JsonValue {
    if (!lastSet || lastSet.set.empty()) return merged;
    // Nothing applied last time is missing now: nothing can be pruned.
    if (lastSet.set.isSubsetOf(managers.get(applier)?.set ?? PathSet.EMPTY)) return merged;
    const { schema, root } = this.opts;
    const named = (s: PathSet) => ensureNamedFieldsAreMembers(schema, root, s);
    let pruned = removeItems(schema, root, merged, named(lastSet.set));
    // Add back what any manager (including the applier's new set) still owns.
    let managed = PathSet.EMPTY;
    for (const vs of managers.values()) managed = managed.union(vs.set);
    const mergedSet = named(toFieldSet(schema, root, merged));
    let prunedSet = named(toFieldSet(schema, root, pruned));
    pruned = removeItems(schema, root, merged, mergedSet.difference(prunedSet.union(named(managed))));
    // Only what the applier owned before may disappear; everything else comes back.
    prunedSet = named(toFieldSet(schema, root, pruned));
    return removeItems(schema, root, merged, mergedSet.difference(prunedSet).intersection(named(lastSet.set)));
  }
}
