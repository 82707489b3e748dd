import { buildLastApplied, getLastApplied, KUBECTL_APPLY_MANAGER, withLastApplied } from './lastApplied';
import type { ApplyResult, Manager, UpdateResult } from './manager';
import type { Managed } from './managedFields';
import type { JsonObject } from './value';

/**
 * Keeps the client-side apply annotation in step when `kubectl` applies
 * server-side to an object that has one, so a later client-side apply still
 * computes the right patch.
 */
export class LastAppliedUpdater implements Manager {
  constructor(private readonly inner: Manager) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.inner.update(liveObj, newObj, managed, manager);
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const r = this.inner.apply(liveObj, appliedObj, managed, manager, force);
    if (!r.ok || manager !== KUBECTL_APPLY_MANAGER) return r;
    const result = r.object ?? liveObj;
    if (!getLastApplied(result)) return r;
    const value = buildLastApplied(appliedObj);
    if (getLastApplied(result) === value) return r;
    return { ...r, object: withLastApplied(result, value) };
  }
}
