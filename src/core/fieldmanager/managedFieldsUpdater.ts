import type { ApplyResult, Manager, UpdateResult } from './manager';
import { formatTime, type Managed } from './managedFields';
import type { JsonObject } from './value';

const CURRENT_OPERATION = 'current-operation';

/**
 * Keeps each entry's time: an update that took any field merges into the
 * manager's previous entry and gets the current time; an apply gets the
 * current time only when it changed the object.
 */
export class ManagedFieldsUpdater implements Manager {
  constructor(
    private readonly inner: Manager,
    private readonly now: () => Date,
  ) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    const r = this.inner.update(liveObj, newObj, managed, CURRENT_OPERATION);
    if (!r.ok) return r;
    const vs = r.managed.fields.get(CURRENT_OPERATION);
    if (vs) {
      r.managed.fields.delete(CURRENT_OPERATION);
      const previous = r.managed.fields.get(manager);
      r.managed.fields.set(manager, previous ? { ...vs, set: vs.set.union(previous.set) } : vs);
      r.managed.times.set(manager, formatTime(this.now()));
    }
    return r;
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const r = this.inner.apply(liveObj, appliedObj, managed, manager, force);
    if (!r.ok) return r;
    if (r.object !== undefined) r.managed.times.set(manager, formatTime(this.now()));
    return r;
  }
}
