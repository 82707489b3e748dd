/**
 * Package fieldpath: paths into an object and sets of them.
 *
 * A path is a list of elements (field, list key, set value, index); a
 * PathSet is an immutable trie of paths with union, intersection, difference
 * and iteration; FieldsV1 is the nested-object encoding kept in
 * metadata.managedFields. Imports only value.
 */
export * from './element';
export * from './path';
export * from './set';
export * from './serialize';
