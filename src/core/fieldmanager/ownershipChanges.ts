/**
 * What a write did to field ownership: per manager (manager, operation,
 * subresource), the fields it gained and lost between two managedFields
 * lists, for explaining a request (the Trace). Field paths print as in
 * conflict messages (`.data.mode`, `.spec.containers[name="app"].image`).
 */
import { fieldsV1ToSet, pathToString, PathSet } from './fieldpath';
import type { ManagedFieldsEntry } from './managedFields';

export interface OwnershipChange {
  manager: string;
  operation: string;
  subresource?: string;
  /** Fields this manager owns after the write and did not before. */
  gained: string[];
  /** Fields this manager owned before the write and no longer does. */
  lost: string[];
  /** How many fields it owns after the write. */
  owns: number;
}

const keyOf = (e: ManagedFieldsEntry) => JSON.stringify([e.manager ?? '', e.operation ?? '', e.subresource ?? '']);

/** Each manager's fields, merged across API versions (an updater keeps one entry per version). */
function ownership(entries: readonly ManagedFieldsEntry[] | undefined): Map<string, { entry: ManagedFieldsEntry; fields: PathSet }> {
  const out = new Map<string, { entry: ManagedFieldsEntry; fields: PathSet }>();
  for (const e of entries ?? []) {
    const fields = fieldsV1ToSet(e.fieldsV1);
    const seen = out.get(keyOf(e));
    out.set(keyOf(e), { entry: e, fields: seen ? seen.fields.union(fields) : fields });
  }
  return out;
}

const strings = (set: PathSet) => set.paths().map(pathToString);

/** The managers whose fields changed, in the order of the entries after the write (then those that left). */
export function ownershipChanges(before: readonly ManagedFieldsEntry[] | undefined, after: readonly ManagedFieldsEntry[] | undefined): OwnershipChange[] {
  const was = ownership(before);
  const is = ownership(after);
  const changes: OwnershipChange[] = [];
  for (const key of new Set([...is.keys(), ...was.keys()])) {
    const now = is.get(key)?.fields ?? PathSet.EMPTY;
    const then = was.get(key)?.fields ?? PathSet.EMPTY;
    const gained = strings(now.difference(then));
    const lost = strings(then.difference(now));
    if (gained.length === 0 && lost.length === 0) continue;
    const { entry } = (is.get(key) ?? was.get(key))!;
    changes.push({
      manager: entry.manager ?? '',
      operation: entry.operation ?? '',
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
      gained,
      lost,
      owns: now.size(),
    });
  }
  return changes;
}
