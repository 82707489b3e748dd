/**
 * The delay before a Job replaces failed pods (pkg/controller/job/backoff_utils.go):
 * per Job, the failures since the last success and when the last one
 * finished; 10s for the first failure, doubling, at most 10 minutes, counted
 * on the server clock from that finish.
 */
import { isObject, objectsOf, type KubeObject } from '../api/types';
import { statusOf } from './controllerUtils';

export const defaultPodFailureBackoffMs = 10_000;
export const maxPodFailureBackoffMs = 10 * 60_000;

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureMs?: number;
}


/**
 * getFinishedTime: the last container's finishedAt when all terminated, else
 * the time its Ready condition turned False, else deletionTimestamp less the
 * grace period, else its creation.
 */
export function finishedTimeMs(pod: KubeObject): number {
  const statuses = objectsOf(statusOf(pod)['containerStatuses']);
  let latest: number | undefined;
  for (const cs of statuses) {
    const state = isObject(cs['state']) ? cs['state'] : {};
    const at = isObject(state['terminated']) ? Date.parse(String(state['terminated']['finishedAt'] ?? '')) : NaN;
    if (Number.isNaN(at)) {
      latest = undefined;
      break;
    }
    latest = Math.max(latest ?? at, at);
  }
  if (latest !== undefined) return latest;
  const ready = objectsOf(statusOf(pod)['conditions']).find((c) => c['type'] === 'Ready');
  const readyFalse = ready?.['status'] === 'False' ? Date.parse(String(ready['lastTransitionTime'] ?? '')) : NaN;
  if (!Number.isNaN(readyFalse)) return readyFalse;
  if (pod.metadata.deletionTimestamp) return Date.parse(pod.metadata.deletionTimestamp) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
}

/** newBackoffRecord: the record after this sync's newly finished pods. */
export function nextBackoffRecord(old: BackoffRecord | undefined, succeeded: KubeObject[], failed: KubeObject[]): BackoffRecord {
  const record: BackoffRecord = { ...(old ?? { failuresAfterLastSuccess: 0 }) };
  const failedAt = failed.map(finishedTimeMs).sort((a, b) => a - b);
  if (!succeeded.length) {
    if (!failedAt.length) return record;
    return { failuresAfterLastSuccess: record.failuresAfterLastSuccess + failedAt.length, lastFailureMs: failedAt[failedAt.length - 1] };
  }
  const lastSuccess = Math.max(...succeeded.map(finishedTimeMs));
  const after = failedAt.filter((t) => t > lastSuccess);
  return after.length ? { failuresAfterLastSuccess: after.length, lastFailureMs: after[after.length - 1] } : { failuresAfterLastSuccess: 0 };
}

/** getRemainingTimeForFailuresCount: how long pod creation still waits, 0 when it need not. */
export function remainingBackoffMs(failures: number, lastFailureMs: number | undefined, nowMs: number): number {
  if (failures === 0 || lastFailureMs === undefined) return 0;
  let backoff = defaultPodFailureBackoffMs;
  for (let i = 1; i < failures; i++) {
    backoff *= 2;
    if (backoff >= maxPodFailureBackoffMs) {
      backoff = maxPodFailureBackoffMs;
      break;
    }
  }
  const elapsed = nowMs - lastFailureMs;
  return backoff < elapsed ? 0 : backoff - elapsed;
}
