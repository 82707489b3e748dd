/**
 * A watch the user steps through: events arrive into a queue, and each step
 * applies the next one to the objects seen so far, keeping the object as it
 * was before so the step can show a diff. Pure, so it is checked without a
 * browser; the panel holds one in a reducer.
 */
import { stringify } from 'yaml';
import type { KubeObject, Status, WatchEvent } from '../../api';

export interface WatchParams {
  resourceVersion: string;
  /** Sends resourceVersionMatch=NotOlderThan with it, as the API requires. */
  sendInitialEvents: boolean;
  allowWatchBookmarks: boolean;
  labelSelector: string;
  fieldSelector: string;
}

export const DEFAULT_WATCH_PARAMS: WatchParams = { resourceVersion: '', sendInitialEvents: false, allowWatchBookmarks: true, labelSelector: '', fieldSelector: '' };

/** The query of a watch request; empty fields are left out, as kubectl leaves unset flags out. */
export function watchQuery(params: WatchParams): URLSearchParams {
  const query = new URLSearchParams({ watch: '1' });
  if (params.resourceVersion !== '') query.set('resourceVersion', params.resourceVersion);
  if (params.allowWatchBookmarks) query.set('allowWatchBookmarks', 'true');
  if (params.sendInitialEvents) {
    query.set('sendInitialEvents', 'true');
    query.set('resourceVersionMatch', 'NotOlderThan');
  }
  if (params.labelSelector.trim()) query.set('labelSelector', params.labelSelector.trim());
  if (params.fieldSelector.trim()) query.set('fieldSelector', params.fieldSelector.trim());
  return query;
}

export interface AppliedEvent {
  seq: number;
  event: WatchEvent;
  /** The same object before this event (undefined for the first time it is seen). */
  before: KubeObject | undefined;
}

export interface WatchSession {
  /** Every event received, in order. */
  received: WatchEvent[];
  /** How many of `received` have been applied. */
  applied: number;
  history: AppliedEvent[];
  /** The objects as the applied events leave them, by namespace/name. */
  objects: Record<string, KubeObject>;
  /** The Status that ended the watch (410 Expired, a 400), if any. */
  failure: Status | undefined;
  /** The last relist: how many objects at which resourceVersion the watch resumed from. */
  relist: { count: number; resourceVersion: string } | undefined;
}

export const EMPTY_SESSION: WatchSession = { received: [], applied: 0, history: [], objects: {}, failure: undefined, relist: undefined };

export type SessionAction =
  | { type: 'received'; event: WatchEvent }
  | { type: 'failed'; status: Status }
  | { type: 'step' }
  | { type: 'reset' }
  /** After a 410: the fresh list replaces what the events built; the queue restarts empty. */
  | { type: 'relisted'; items: KubeObject[]; resourceVersion: string };

export function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

export function sessionReducer(session: WatchSession, action: SessionAction): WatchSession {
  switch (action.type) {
    case 'reset':
      return EMPTY_SESSION;
    case 'received':
      return { ...session, received: [...session.received, action.event] };
    case 'failed':
      return { ...session, failure: action.status };
    case 'relisted':
      return {
        ...EMPTY_SESSION,
        history: session.history,
        objects: Object.fromEntries(action.items.map((item) => [objectKey(item), item])),
        relist: { count: action.items.length, resourceVersion: action.resourceVersion },
      };
    case 'step': {
      const event = session.received[session.applied];
      if (!event) return session;
      const applied = session.applied + 1;
      const seq = session.history.length + 1;
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') {
        return { ...session, applied, history: [...session.history, { seq, event, before: undefined }] };
      }
      const key = objectKey(event.object);
      const before = session.objects[key];
      const objects = { ...session.objects };
      if (event.type === 'DELETED') delete objects[key];
      else objects[key] = event.object;
      return { ...session, applied, objects, history: [...session.history, { seq, event, before }] };
    }
  }
}

export function queued(session: WatchSession): number {
  return session.received.length - session.applied;
}

export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/** The object as YAML without managedFields, the text the diff compares. */
export function objectText(object: KubeObject | undefined): string {
  if (!object) return '';
  const { managedFields: _, ...metadata } = object.metadata ?? {};
  return stringify({ ...object, metadata });
}

/** A line diff (longest common subsequence), as `diff -u` shows changes without the hunks. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ op: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) lines.push({ op: '-', text: a[i++]! });
    else lines.push({ op: '+', text: b[j++]! });
  }
  while (i < a.length) lines.push({ op: '-', text: a[i++]! });
  while (j < b.length) lines.push({ op: '+', text: b[j++]! });
  return lines;
}
