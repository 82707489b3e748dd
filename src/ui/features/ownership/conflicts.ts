/**
 * An apply conflict, read off the 409 Status, and the three ways out the
 * server-side apply documentation gives: force the apply, drop the fields
 * from my manifest (give up managing them), or adopt the live values (share
 * ownership: applying the same value is no conflict).
 */
import { parseDocument } from 'yaml';
import type { Status } from '../../api';
import { documentPath, parseFieldPath, valueAt, type PathElement } from './fieldPath';

export interface FieldConflict {
  /** As the server printed it, e.g. `.data.mode`. */
  field: string;
  path: PathElement[];
  /** The cause's message, e.g. `conflict with "other-tool"`. */
  message: string;
}

/** The conflicting fields of a 409 Conflict from an apply (causes of type FieldManagerConflict). */
export function conflictsOf(status: Status): FieldConflict[] {
  const causes = (status.details?.causes ?? []) as { reason?: string; type?: string; message?: string; field?: string }[];
  return causes.flatMap((cause) => {
    if ((cause.reason ?? cause.type) !== 'FieldManagerConflict' || !cause.field) return [];
    const path = parseFieldPath(cause.field);
    return path ? [{ field: cause.field, path, message: cause.message ?? '' }] : [];
  });
}

/** The manifest without the conflicting fields (comments and layout kept). */
export function dropFields(manifest: string, conflicts: readonly FieldConflict[]): string {
  const document = parseDocument(manifest);
  // Deepest and last items first, so removing one leaves the other indexes valid.
  const paths = conflicts
    .map((c) => documentPath(document, c.path))
    .filter((p): p is (string | number)[] => p !== undefined)
    .sort((a, b) => compareKeyPaths(b, a));
  for (const keys of paths) document.deleteIn(keys);
  return document.toString();
}

/** The manifest with each conflicting field set to its live value. */
export function adoptLiveValues(manifest: string, conflicts: readonly FieldConflict[], live: unknown): string {
  const document = parseDocument(manifest);
  for (const conflict of conflicts) {
    const keys = documentPath(document, conflict.path);
    const value = valueAt(live, conflict.path);
    if (keys && value !== undefined) document.setIn(keys, value);
  }
  return document.toString();
}

function compareKeyPaths(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x).localeCompare(String(y));
  }
  return a.length - b.length;
}

/** One step of a walk over an object: a map field, or a list item with its position. */
export type WalkStep = { type: 'field'; name: string } | { type: 'item'; item: unknown; index: number };

/** Whether a walked position is the conflict's field. */
export function walkMatches(steps: readonly WalkStep[], path: readonly PathElement[]): boolean {
  if (steps.length !== path.length) return false;
  return steps.every((step, i) => {
    const element = path[i]!;
    if (step.type === 'field') return element.type === 'field' && element.name === step.name;
    switch (element.type) {
      case 'index':
        return element.index === step.index;
      case 'value':
        return JSON.stringify(element.value) === JSON.stringify(step.item);
      case 'key':
        return (
          typeof step.item === 'object' &&
          step.item !== null &&
          element.fields.every(([k, v]) => JSON.stringify((step.item as Record<string, unknown>)[k]) === JSON.stringify(v))
        );
      case 'field':
        return false;
    }
  });
}
