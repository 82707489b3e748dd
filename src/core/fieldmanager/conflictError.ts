import { pathToString } from './fieldpath';
import { parseManagerIdentifier } from './managedFields';
import type { Conflicts } from './merge';

/** One `details.causes` item of an apply conflict. */
export interface ConflictCause {
  type: 'FieldManagerConflict';
  message: string;
  field: string;
}

/**
 * An apply conflict as the server reports it: a 409 Status with reason
 * Conflict, this message, and one FieldManagerConflict cause per field.
 */
export class FieldManagerConflicts {
  readonly code = 409;
  readonly reason = 'Conflict';
  readonly message: string;
  readonly causes: ConflictCause[];

  constructor(readonly conflicts: Conflicts) {
    const n = conflicts.items.length;
    this.message = `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${conflicts.message(printManager)}`;
    this.causes = conflicts.items.map((c) => ({
      type: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.manager)}`,
      field: pathToString(c.path),
    }));
  }
}

/** `"name"`, plus `with subresource "x"`, plus `using <apiVersion>` for updaters. */
export function printManager(id: string): string {
  const e = parseManagerIdentifier(id);
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') {
    s += e.time ? ` using ${e.apiVersion} at ${e.time}` : ` using ${e.apiVersion}`;
  }
  return s;
}
