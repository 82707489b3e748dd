import type { ApplyResult, Manager, UpdateResult } from './manager';
import { buildManagerIdentifier, type Managed } from './managedFields';
import type { JsonObject } from './value';

export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Bounds the number of Update entries: past the cap, the oldest entries are
 * merged, per API version, into an `ancient-changes` entry.
 */
export class CapManagersManager implements Manager {
  constructor(
    private readonly inner: Manager,
    private readonly maxUpdateManagers = DEFAULT_MAX_UPDATE_MANAGERS,
  ) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    const r = this.inner.update(liveObj, newObj, managed, manager);
    if (r.ok) this.cap(r.managed);
    return r;
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    return this.inner.apply(liveObj, appliedObj, managed, manager, force);
  }

  private cap(managed: Managed): void {
    const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([m]) => m);
    if (updaters.length <= this.maxUpdateManagers) return;
    const secs = (m: string) => {
      const t = managed.times.get(m);
      return t ? Math.floor(Date.parse(t) / 1000) || 0 : 0;
    };
    updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstByVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > this.maxUpdateManagers; i++) {
      const manager = updaters[i];
      const vs = managed.fields.get(manager)!;
      const time = managed.times.get(manager);
      const bucket = buildManagerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
      const first = firstByVersion.get(vs.apiVersion);
      if (first === undefined) {
        firstByVersion.set(vs.apiVersion, manager);
        continue;
      }
      if (!managed.fields.has(bucket)) {
        managed.fields.set(bucket, managed.fields.get(first)!);
        managed.fields.delete(first);
        managed.times.delete(first);
      }
      managed.fields.set(bucket, { ...vs, set: vs.set.union(managed.fields.get(bucket)!.set) });
      managed.fields.delete(manager);
      managed.times.delete(manager);
      managed.times.set(bucket, time);
      length--;
    }
  }
}
