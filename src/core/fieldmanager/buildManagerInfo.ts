import type { ApplyResult, Manager, UpdateResult } from './manager';
import { buildManagerIdentifier, type Managed } from './managedFields';
import type { JsonObject } from './value';

/** Turns a manager name into the identifier of its entry for this operation. */
export class BuildManagerInfoManager implements Manager {
  constructor(
    private readonly inner: Manager,
    private readonly apiVersion: string,
    private readonly subresource: string,
  ) {}

  update(liveObj: JsonObject, newObj: JsonObject, managed: Managed, manager: string): UpdateResult {
    const id = buildManagerIdentifier({ manager, operation: 'Update', apiVersion: this.apiVersion, subresource: this.subresource });
    return this.inner.update(liveObj, newObj, managed, id);
  }

  apply(liveObj: JsonObject, appliedObj: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const id = buildManagerIdentifier({ manager, operation: 'Apply', apiVersion: this.apiVersion, subresource: this.subresource });
    return this.inner.apply(liveObj, appliedObj, managed, id, force);
  }
}
