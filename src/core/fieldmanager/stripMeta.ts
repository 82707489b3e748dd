import { fieldElement, PathSet } from './fieldpath';
import type { ApplyResult, Manager, UpdateResult } from './manager';
import type { Managed } from './managedFields';
import type { JsonObject } from './value';

const f = fieldElement;

/** Type and object metadata nobody owns: the server sets or checks them itself. */
export const STRIP_SET = PathSet.of(
  [f('apiVersion')],
  [f('kind')],
  [f('metadata')],
  [f('metadata'), f('name')],
  [f('metadata'), f('namespace')],
  [f('metadata'), f('creationTimestamp')],
  [f('metadata'), f('selfLink')],
  [f('metadata'), f('uid')],
  [f('metadata'), f('clusterName')],
  [f('metadata'), f('generation')],
  [f('metadata'), f('managedFields')],
  [f('metadata'), f('resourceVersion')],
);

/** Removes the strip set from the acting manager's fields. */
export class StripMetaManager implements Manager {
  constructor(private readonly inner: Manager) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    const r = this.inner.update(liveObj, newObj, managed, manager);
    if (r.ok) strip(r.managed, manager);
    return r;
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const r = this.inner.apply(liveObj, appliedObj, managed, manager, force);
    if (r.ok) strip(r.managed, manager);
    return r;
  }
}

function strip(managed: Managed, manager: string): void {
  const vs = managed.fields.get(manager);
  if (!vs) return;
  const set = vs.set.difference(STRIP_SET);
  if (set.empty()) managed.fields.delete(manager);
  else managed.fields.set(manager, { ...vs, set });
}
