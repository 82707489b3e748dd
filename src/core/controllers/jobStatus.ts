/**
 * Job status as the Job controller writes it (pkg/controller/job): conditions
 * made and replaced as newCondition and ensureJobConditionStatus make them,
 * the finished condition, uncounted pods moved into the counters, and the
 * status in JobStatus's field order.
 */
import { isObject, type KubeObject } from '../api/types';
import { statusOf } from './controllerUtils';

type Obj = Record<string, unknown>;

/** A JobCondition. */
export interface Condition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** newCondition: both times now; an empty reason or message is left out (omitempty). */
export function newCondition(type: string, status: string, reason: string, message: string, now: string): Condition {
  return { type, status, lastProbeTime: now, lastTransitionTime: now, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

/** ensureJobConditionStatus: replaces the condition of that type when it differs; a False one is never added. */
export function ensureCondition(list: Condition[], c: Condition, now: string): boolean {
  const i = list.findIndex((x) => x.type === c.type);
  if (i >= 0) {
    const old = list[i]!;
    if (old.status === c.status && (old.reason ?? '') === (c.reason ?? '') && (old.message ?? '') === (c.message ?? '')) return false;
    list[i] = newCondition(c.type, c.status, c.reason ?? '', c.message ?? '', now);
    return true;
  }
  if (c.status === 'False') return false;
  list.push(newCondition(c.type, c.status, c.reason ?? '', c.message ?? '', now));
  return true;
}

export const conditionsOf = (status: Obj): Condition[] =>
  Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]).filter(isObject).map((c) => ({ ...c }) as unknown as Condition) : [];

/** util.FinishedCondition: Complete or Failed is True. */
export function jobFinishedCondition(job: KubeObject): Condition | undefined {
  return conditionsOf(statusOf(job)).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

const statusFields = ['conditions', 'startTime', 'completionTime', 'active', 'succeeded', 'failed', 'terminating', 'completedIndexes', 'failedIndexes', 'uncountedTerminatedPods', 'ready'];

/** JobStatus in its Go field order; pointers (terminating, ready, uncountedTerminatedPods, failedIndexes) stay when zero. */
export function inStatusOrder(s: Obj): Obj {
  const out: Obj = {};
  const nonEmpty = (k: string) => s[k] !== undefined && s[k] !== 0 && s[k] !== '' && !(Array.isArray(s[k]) && (s[k] as unknown[]).length === 0);
  for (const k of ['conditions', 'startTime', 'completionTime', 'active', 'succeeded', 'failed']) if (nonEmpty(k)) out[k] = s[k];
  if (s['terminating'] !== undefined) out['terminating'] = s['terminating'];
  if (nonEmpty('completedIndexes')) out['completedIndexes'] = s['completedIndexes'];
  if (s['failedIndexes'] !== undefined) out['failedIndexes'] = s['failedIndexes'];
  const u = isObject(s['uncountedTerminatedPods']) ? s['uncountedTerminatedPods'] : {};
  const uncounted: Obj = {};
  for (const k of ['succeeded', 'failed']) if (Array.isArray(u[k]) && (u[k] as unknown[]).length) uncounted[k] = u[k];
  out['uncountedTerminatedPods'] = uncounted;
  if (s['ready'] !== undefined) out['ready'] = s['ready'];
  for (const k in s) if (!statusFields.includes(k) && s[k] !== undefined) out[k] = s[k];
  return out;
}

/** cleanUncountedPodsWithoutFinalizers: uids whose finalizer is gone move into the counters. */
export function cleanUncounted(status: Obj, withFinalizer: Set<string>): boolean {
  const u = status['uncountedTerminatedPods'] as { succeeded?: string[]; failed?: string[] };
  let updated = false;
  for (const k of ['succeeded', 'failed'] as const) {
    const list = u[k] ?? [];
    const keep = list.filter((uid) => withFinalizer.has(uid));
    if (keep.length !== list.length) {
      updated = true;
      status[k] = Number(status[k] ?? 0) + list.length - keep.length;
      u[k] = keep;
    }
  }
  return updated;
}
