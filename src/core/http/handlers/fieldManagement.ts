/**
 * The handlers' bridge to the field manager: KubeObjects in and out, and
 * apply failures as Status errors (409 Conflict with one cause per field).
 */
import type { KubeObject } from '../../api/types';
import { FieldManager } from '../../fieldmanager';
import type { JsonObject } from '../../patch';
import { StatusError, type StatusDetails } from '../../errors';
import type { GroupResource } from '../../errors';

const asJson = (o: KubeObject | undefined) => o as unknown as JsonObject | undefined;

/** Records an Update by manager: ownership of what changed between live and next. */
export function trackUpdate(fm: FieldManager, live: KubeObject | undefined, next: KubeObject, manager: string): KubeObject {
  return fm.update(asJson(live), asJson(next)!, manager) as unknown as KubeObject;
}

/** Server-side apply of `applied` onto live (or onto nothing, to create). */
export function trackApply(fm: FieldManager, live: KubeObject | undefined, applied: JsonObject, manager: string, force: boolean, gr: GroupResource, name: string): KubeObject {
  const r = fm.apply(asJson(live), applied, manager, force);
  if (r.ok) return r.object as unknown as KubeObject;
  const conflicts = FieldManager.conflictStatus(r.error);
  if (conflicts) {
    const details: StatusDetails = { name };
    if (gr.group) details.group = gr.group;
    details.kind = gr.resource;
    details.causes = conflicts.causes.map((c) => ({ reason: c.type, message: c.message, field: c.field }));
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: conflicts.message, reason: 'Conflict', details, code: 409 });
  }
  const error = r.error as { reason: 'BadRequest' | 'InternalError'; message: string };
  const code = error.reason === 'BadRequest' ? 400 : 500;
  throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: error.message, reason: error.reason, code });
}
