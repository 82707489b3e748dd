import { PathSet, PathSetBuilder, type Path, type PathElement } from '../fieldpath';
import type { Atom, Schema, TypeNode } from '../schema';

function childNode(atom: Atom, id: string, name: string | undefined): TypeNode | undefined {
  if (atom.kind === 'list') return atom.element;
  if (atom.kind === 'map') {
    if (name !== undefined && Object.prototype.hasOwnProperty.call(atom.fields, name)) return atom.fields[name];
    return atom.element;
  }
  void id;
  return undefined;
}

/**
 * Adds as members the struct fields that appear in the set only as parents,
 * so removing the set removes those fields too (used when pruning).
 */
export function ensureNamedFieldsAreMembers(schema: Schema, node: TypeNode, set: PathSet): PathSet {
  const b = new PathSetBuilder();
  fill(schema, node, set, b);
  return b.build();
}

/** Copies `set` into `b` (the builder node at the same place), adding the named fields. */
function fill(schema: Schema, node: TypeNode, set: PathSet, b: PathSetBuilder): void {
  const atom = schema.resolve(node, undefined);
  for (const pe of set.unsortedMembers()) b.addMember(pe);
  for (const c of set.unsortedChildren()) {
    const name = c.pe.type === 'field' ? c.pe.name : undefined;
    if (atom.kind === 'map' && name !== undefined && Object.prototype.hasOwnProperty.call(atom.fields, name)) {
      b.addMember(c.pe);
    }
    const child = childNode(atom, c.pe.id, name);
    if (child === undefined) {
      copy(c.set, b.descend(c.pe));
    } else {
      fill(schema, child, c.set, b.descend(c.pe));
    }
  }
}

function copy(set: PathSet, b: PathSetBuilder): void {
  for (const pe of set.unsortedMembers()) b.addMember(pe);
  for (const c of set.unsortedChildren()) copy(c.set, b.descend(c.pe));
}

/**
 * Reconciles a manager's set with the current schema. Where a granular list
 * or map became atomic, ownership of anything inside makes the manager own
 * the whole field. Where an atomic field became granular nothing changes: the
 * owner keeps the top-level field and the entries are unowned.
 * Returns undefined when the set needs no change.
 */
export function reconcileFieldSetWithSchema(schema: Schema, node: TypeNode, set: PathSet): PathSet | undefined {
  const toCollapse: Path[] = [];
  walkReconcile(schema, node, set, [], toCollapse);
  if (toCollapse.length === 0) return undefined;
  const collapse = PathSet.of(...toCollapse);
  return set.recursiveDifference(collapse).union(collapse);
}

function walkReconcile(schema: Schema, node: TypeNode, set: PathSet, prefix: PathElement[], out: Path[]): void {
  const atom = schema.resolve(node, undefined);
  // Schemaless maps carry no markers to reconcile against.
  if (atom.kind !== 'map' || atom.deduced) return;
  for (const c of set.unsortedChildren()) {
    const name = c.pe.type === 'field' ? c.pe.name : undefined;
    const child = childNode(atom, c.pe.id, name);
    if (child === undefined) continue;
    const childAtom = schema.resolve(child, undefined);
    if ((childAtom.kind === 'list' || childAtom.kind === 'map') && childAtom.relationship === 'atomic') {
      out.push([...prefix, c.pe]);
      continue;
    }
    if (childAtom.kind === 'map') {
      prefix.push(c.pe);
      walkReconcile(schema, child, c.set, prefix, out);
      prefix.pop();
    }
  }
}
