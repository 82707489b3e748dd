/**
 * Package typed: a JSON value walked with its schema. Computes the field
 * set of a value, compares two values, merges an applied configuration into
 * a live object, removes paths, reconciles field sets with schema
 * changes, and validates a value against its schema. Imports fieldpath, schema and value.
 */
export { toFieldSet } from './toFieldSet';
export { compare, comparisonIsSame, mergeComparing, type Comparison } from './compare';
export { mergeWalk, type MergeRules } from './merge';
export { removeItems } from './remove';
export { ensureNamedFieldsAreMembers, reconcileFieldSetWithSchema } from './schemaSet';
export { listItemElement } from './listItems';
export { TypedError, ValidationErrors, type ValidationError } from './errors';
export { validate, type ValidationOptions } from './validate';

import type { Schema, TypeNode } from '../schema';
import { deepCopy, type JsonValue } from '../value';
import { mergeWalk, type MergeRules } from './merge';

/**
 * Merges an applied configuration (rhs) into a live object (lhs): the
 * configuration wins at every leaf, granular maps and lists keep entries of
 * both sides. The result shares no object or list with either input, so its
 * owner may change it in place. Throws TypedError on an invalid configuration.
 */
export function merge(schema: Schema, node: TypeNode, lhs: JsonValue, rhs: JsonValue): JsonValue {
  return mergeWalk(schema, node, lhs, rhs, MERGE_RULES) ?? {};
}

const MERGE_RULES: MergeRules = {
  leaf: (_path, l, r) => deepCopy(r !== undefined ? r : (l as JsonValue)),
  strictRHS: true,
};
