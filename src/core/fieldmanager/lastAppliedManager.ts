import type { PathSet } from './fieldpath';
import { getLastApplied, KUBECTL_APPLY_MANAGER } from './lastApplied';
import type { ApplyResult, Manager, UpdateResult } from './manager';
import type { Managed } from './managedFields';
import { Conflicts } from './merge';
import type { Schema, TypeNode } from './schema';
import { compare, toFieldSet } from './typed';
import { isObject, type JsonObject } from './value';

/**
 * Migration from client-side apply: when `kubectl` applies server-side and
 * conflicts only on fields its last-applied annotation still describes (same
 * value live), the apply goes through as forced. Other conflicts remain.
 */
export class LastAppliedManager implements Manager {
  constructor(
    private readonly inner: Manager,
    private readonly schema: Schema,
    private readonly root: TypeNode,
    private readonly apiVersion: string,
  ) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.inner.update(liveObj, newObj, managed, manager);
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const r = this.inner.apply(liveObj, appliedObj, managed, manager, force);
    if (manager !== KUBECTL_APPLY_MANAGER || r.ok || r.error.reason !== 'Conflict') return r;
    const allowed = this.allowedConflicts(liveObj);
    if (!allowed) return r;
    const remaining = r.error.conflicts.items.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) return { ok: false, error: { reason: 'Conflict', conflicts: new Conflicts(remaining) } };
    return this.inner.apply(liveObj, appliedObj, managed, manager, true);
  }

  /** Fields of the last-applied configuration whose live value is still the applied one. */
  private allowedConflicts(liveObj: JsonObject): PathSet | undefined {
    const raw = getLastApplied(liveObj);
    if (!raw) return undefined;
    let lastApplied: unknown;
    try {
      lastApplied = JSON.parse(raw);
    } catch {
      return undefined;
    }
    if (!isObject(lastApplied) || lastApplied.apiVersion !== this.apiVersion) return undefined;
    try {
      const set = toFieldSet(this.schema, this.root, lastApplied);
      const c = compare(this.schema, this.root, lastApplied, liveObj);
      return set.difference(c.modified).difference(c.added).difference(c.removed);
    } catch {
      return undefined;
    }
  }
}
