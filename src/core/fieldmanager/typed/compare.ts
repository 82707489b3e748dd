import { PathSetBuilder, type PathSet } from '../fieldpath';
import type { Schema, TypeNode } from '../schema';
import { equals, type JsonValue } from '../value';
import { mergeWalk } from './merge';

/** What changed between two versions of an object, as field sets. */
export interface Comparison {
  added: PathSet;
  modified: PathSet;
  removed: PathSet;
}

/**
 * Compares two values of one type. Leaves are added, removed or modified;
 * maps, lists and entries that appear or disappear as a whole are added or
 * removed themselves too (so a new map carries `.` in FieldsV1).
 */
export function compare(schema: Schema, node: TypeNode, lhs: JsonValue, rhs: JsonValue): Comparison {
  const added = new PathSetBuilder();
  const modified = new PathSetBuilder();
  const removed = new PathSetBuilder();
  mergeWalk(schema, node, lhs, rhs, {
    leaf(path, l, r) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
      else if (!equals(l, r)) modified.insert(path);
      return undefined;
    },
    post(path, l, r) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
    },
    discardOutput: true,
  });
  return { added: added.build(), modified: modified.build(), removed: removed.build() };
}

export function comparisonIsSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}
