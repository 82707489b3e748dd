/**
 * ControllerRevision history (pkg/controller/history): the immutable
 * snapshots the StatefulSet controller (and DaemonSet's) keeps of its
 * template. A revision is named `<parent>-<hash>`, the hash being FNV-32 of
 * its data followed by the parent's collision count, safely encoded; it
 * carries the parent's template labels plus `controller.kubernetes.io/hash`,
 * a controller reference to the parent and a revision number. A name already
 * taken by other data raises the collision count and hashes again.
 */
import { isObject, type KubeObject } from '../api/types';
import { jsonEqual } from '../api/equality';
import { isAlreadyExists, newNotFound } from '../errors';
import type { Store } from '../registry/generic/store';
import { newControllerRef } from './controllerUtils';
import { safeEncode } from './deployment';

export const controllerRevisionHashLabel = 'controller.kubernetes.io/hash';

/** encoding/json's Marshal of decoded JSON: object keys sorted, `<`, `>`, `&` and U+2028/9 escaped. */
export function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${goString(k)}:${goJson(v[k])}`).join(',')}}`;
  return typeof v === 'string' ? goString(v) : JSON.stringify(v);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** hashControllerRevision: FNV-1 (32 bit) of the data's bytes, then of the probe's decimal digits. */
export function hashControllerRevision(data: unknown, probe?: number): string {
  const bytes = new TextEncoder().encode(goJson(data) + (probe === undefined ? '' : String(probe)));
  let h = 0x811c9dc5;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return safeEncode(String(h));
}

/** ControllerRevisionName: prefix-hash, the prefix cut to 223 characters so the name fits 253. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

export const revisionOf = (cr: KubeObject): number => Number(cr['revision'] ?? 0);

/** NewControllerRevision: labels, controller reference, data and revision number; the name is set on create. */
export function newControllerRevision(parent: KubeObject, templateLabels: Record<string, string> | undefined, data: unknown, revision: number, collisionCount: number): KubeObject {
  const hash = hashControllerRevision(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(parent.metadata.name!, hash),
      labels: { ...templateLabels, [controllerRevisionHashLabel]: hash },
      ownerReferences: [newControllerRef(parent)],
    },
    data,
    revision,
  };
}

/** SortControllerRevisions: by revision number, then creation time, then name (a stable sort). */
export function sortControllerRevisions(revisions: KubeObject[]): KubeObject[] {
  return revisions.sort((a, b) =>
    revisionOf(a) - revisionOf(b)
    || (Date.parse(a.metadata.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata.creationTimestamp ?? '') || 0)
    || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
}

/** EqualRevision: different hash labels say unequal at once; otherwise the data decides. */
export function equalRevision(a: KubeObject | undefined, b: KubeObject | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = a.metadata.labels?.[controllerRevisionHashLabel];
  const hb = b.metadata.labels?.[controllerRevisionHashLabel];
  // The labels are compared only when both parse as integers, as history does; safely encoded hashes never do.
  if (ha !== undefined && hb !== undefined && /^-?\d+$/.test(ha) && /^-?\d+$/.test(hb) && Number(ha) !== Number(hb)) return false;
  return jsonEqual(a['data'], b['data']);
}

/** FindEqualRevisions: the revisions whose data equals needle's, in the given order. */
export function findEqualRevisions(revisions: KubeObject[], needle: KubeObject): KubeObject[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/**
 * CreateControllerRevision: creates the revision under the name its hash gives; a name taken by the
 * same data returns the stored one, a name taken by other data raises collisionCount and tries again.
 */
export async function createControllerRevision(
  store: Store,
  parent: KubeObject,
  revision: KubeObject,
  collision: { count: number },
): Promise<KubeObject> {
  const namespace = parent.metadata.namespace!;
  for (;;) {
    const hash = hashControllerRevision(revision['data'], collision.count);
    const clone = structuredClone(revision);
    clone.metadata.name = controllerRevisionName(parent.metadata.name!, hash);
    try {
      return await store.create(namespace, clone);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const exists = await store.get(namespace, clone.metadata.name);
      if (jsonEqual(exists['data'], clone['data'])) return exists;
      collision.count++;
    }
  }
}

/** UpdateControllerRevision: moves a revision to a new revision number (a rollback to it). */
export async function updateControllerRevision(store: Store, revision: KubeObject, newRevision: number): Promise<KubeObject> {
  if (revisionOf(revision) === newRevision) return revision;
  const { object } = await store.update(revision.metadata.namespace!, revision.metadata.name!, (cur) => {
    if (!cur || cur.metadata.uid !== revision.metadata.uid) throw newNotFound({ group: 'apps', resource: 'controllerrevisions' }, revision.metadata.name!);
    cur['revision'] = newRevision;
    return cur;
  });
  return object;
}
