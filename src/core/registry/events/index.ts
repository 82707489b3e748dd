/**
 * events.k8s.io/v1 Events share their storage with core/v1 Events (one
 * resource, two groups), stored in the core/v1 layout as kube-apiserver
 * stores them. Reads through events.k8s.io convert from it and writes
 * convert to it (pkg/apis/events/v1 conversion): regarding <->
 * involvedObject, note <-> message, reportingController <->
 * reportingComponent, and the deprecated-prefixed fields <-> source,
 * firstTimestamp, lastTimestamp and count.
 */
import type { KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

type Obj = Record<string, unknown>;

/** [events.k8s.io/v1 field, core/v1 field] */
const renames: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
/** Fields both versions spell alike. */
const shared = ['metadata', 'eventTime', 'series', 'action', 'reason', 'type', 'related', 'reportingInstance'];

function rewrite(obj: KubeObject, apiVersion: string, pairs: [string, string][]): KubeObject {
  const src = obj as Obj;
  const out: Obj = { apiVersion, kind: 'Event' };
  for (const k of shared) if (src[k] !== undefined) out[k] = src[k];
  for (const [from, to] of pairs) if (src[from] !== undefined) out[to] = src[from];
  return out as KubeObject;
}

/** A stored (core/v1) Event as events.k8s.io/v1 serves it; an object already in that layout is left alone. */
export function eventFromCore(obj: KubeObject): KubeObject {
  const o = obj as Obj;
  if (o['involvedObject'] === undefined && (o['regarding'] !== undefined || o['note'] !== undefined || o['reportingController'] !== undefined)) return obj;
  return rewrite(obj, 'events.k8s.io/v1', renames.map(([e, c]) => [c, e]));
}

/** An events.k8s.io/v1 Event in the core/v1 layout it is stored in. */
export function eventToCore(obj: KubeObject): KubeObject {
  return rewrite(obj, 'v1', renames);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  events: { fromStorage: eventFromCore, toStorage: eventToCore },
};
