/**
 * ClaimObjects of pkg/controller/controller_ref_manager.go: a controller
 * keeps what it controls and still selects, adopts orphans it selects (unless
 * it or they are being deleted) and releases what it controls but no longer
 * selects (unless it is being deleted). Adoption adds its controller
 * reference; release removes every reference to it.
 */
import type { KubeObject } from '../api/types';
import { isConflict, isNotFound, newConflict, newNotFound } from '../errors';
import type { Store } from '../registry/generic/store';
import { controllerRefOf, newControllerRef } from './controllerUtils';

/** The objects owner controls after claiming; adoption and release write through store. */
export async function claimObjects(store: Store, owner: KubeObject, objects: KubeObject[], match: (obj: KubeObject) => boolean): Promise<KubeObject[]> {
  const claimed: KubeObject[] = [];
  const deleting = Boolean(owner.metadata.deletionTimestamp);
  for (const obj of objects) {
    const ref = controllerRefOf(obj);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (match(obj)) {
        claimed.push(obj);
        continue;
      }
      if (deleting) continue;
      await write(store, obj, (cur) => {
        const refs = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
        if (refs.length) cur.metadata.ownerReferences = refs;
        else delete cur.metadata.ownerReferences;
      });
      continue;
    }
    if (deleting || !match(obj) || obj.metadata.deletionTimestamp || obj.metadata.namespace !== owner.metadata.namespace) continue;
    const adopted = await write(store, obj, (cur) => {
      if (controllerRefOf(cur)) throw newConflict(store.gr, obj.metadata.name!, 'claimed by another controller');
      cur.metadata.ownerReferences = [...(cur.metadata.ownerReferences ?? []), newControllerRef(owner)];
    });
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

/** Writes a change to the object it was read as (the same uid); gone or claimed meanwhile is no error. */
async function write(store: Store, obj: KubeObject, change: (cur: KubeObject) => void): Promise<KubeObject | undefined> {
  try {
    const { object } = await store.update(obj.metadata.namespace ?? '', obj.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== obj.metadata.uid) throw newNotFound(store.gr, obj.metadata.name!);
      change(cur);
      return cur;
    });
    return object;
  } catch (e) {
    // The next event about it brings the work back.
    if (isNotFound(e) || isConflict(e)) return undefined;
    throw e;
  }
}
