/**
 * The CronJob controller's helpers (pkg/controller/cronjob/utils.go): which
 * scheduled time is due, when to look again, the Job a CronJob makes for a
 * scheduled time, and its active list.
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import { CronParseError, parseStandard, type CronSchedule } from '../util/cronSchedule';
import { formatRFC3339In, loadLocation } from '../util/zonedTime';
import { newControllerRef, specOf, statusOf } from './controllerUtils';

type Obj = Record<string, unknown>;

/** batchv1.CronJobScheduledTimestampAnnotation: the scheduled time of a Job, in the CronJob's zone. */
export const scheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** A corev1.ObjectReference to a Job, as status.active holds them. */
export interface JobRef {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

/** A metav1.Time's instant, if it is one. */
export const timeMs = (v: unknown): number | undefined => {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
};

export const activeOf = (cj: KubeObject): JobRef[] => {
  const active = statusOf(cj)['active'];
  return Array.isArray(active) ? (active as unknown[]).filter(isObject) as JobRef[] : [];
};

export function setActive(cj: KubeObject, active: JobRef[]): void {
  const status = (cj['status'] = isObject(cj['status']) ? cj['status'] : {}) as Obj;
  // An empty list is left out, as omitempty leaves it.
  if (active.length) status['active'] = active;
  else delete status['active'];
}

export const inActiveList = (cj: KubeObject, uid: string | undefined): boolean => activeOf(cj).some((r) => r.uid === uid);

export const deleteFromActiveList = (cj: KubeObject, uid: string | undefined): void => setActive(cj, activeOf(cj).filter((r) => r.uid !== uid));

/** ref.GetReference for a Job. */
export function jobRef(job: KubeObject): JobRef {
  return { kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion };
}

/** The Job's Complete or Failed condition that is True (jobutil.FinishedCondition). */
export function finishedCondition(job: KubeObject): 'Complete' | 'Failed' | undefined {
  const conditions = statusOf(job)['conditions'];
  if (!Array.isArray(conditions)) return undefined;
  for (const c of conditions as unknown[]) {
    if (isObject(c) && (c['type'] === 'Complete' || c['type'] === 'Failed') && c['status'] === 'True') return c['type'];
  }
  return undefined;
}

export const isJobSucceeded = (job: KubeObject): boolean =>
  Array.isArray(statusOf(job)['conditions']) && (statusOf(job)['conditions'] as unknown[]).some((c) => isObject(c) && c['type'] === 'Complete' && c['status'] === 'True');

/** formatSchedule: the schedule with the CronJob's zone as a TZ= prefix, unless the schedule names one itself or the zone is unknown. */
export function formatSchedule(cj: KubeObject): string {
  const schedule = String(specOf(cj)['schedule'] ?? '');
  const timeZone = specOf(cj)['timeZone'];
  if (schedule.includes('TZ')) return schedule;
  if (typeof timeZone === 'string') return loadLocation(timeZone) ? `TZ=${timeZone} ${schedule}` : schedule;
  return schedule;
}

/** cron.ParseStandard(formatSchedule(cj)): the schedule, or the parser's message. */
export function parseSchedule(cj: KubeObject): CronSchedule | string {
  try {
    return parseStandard(formatSchedule(cj));
  } catch (e) {
    if (e instanceof CronParseError) return e.message;
    throw e;
  }
}

export type MissedSchedules = 'none' | 'few' | 'many';

export interface MostRecent {
  /** The last schedule time, or the CronJob's creation. */
  earliest: number;
  /** The most recent time a Job should have been made, if any by now. */
  mostRecent?: number;
  missed: MissedSchedules;
  error?: string;
}

/**
 * mostRecentScheduleTime: the last scheduled time not after now since the
 * last schedule (or creation; or, with the deadline counted, no earlier than
 * startingDeadlineSeconds ago), found by estimating how many periods passed
 * and walking the schedule from just before the estimate.
 */
export function mostRecentScheduleTime(cj: KubeObject, now: number, schedule: CronSchedule, includeStartingDeadlineSeconds: boolean): MostRecent {
  let earliest = timeMs(cj.metadata.creationTimestamp) ?? 0;
  const last = timeMs(statusOf(cj)['lastScheduleTime']);
  if (last !== undefined) earliest = last;
  const deadline = specOf(cj)['startingDeadlineSeconds'];
  if (includeStartingDeadlineSeconds && typeof deadline === 'number') {
    const schedulingDeadline = now - deadline * 1000;
    if (schedulingDeadline > earliest) earliest = schedulingDeadline;
  }
  const t1 = schedule.next(earliest);
  const t2 = schedule.next(t1);
  if (now < t1) return { earliest, missed: 'none' };
  if (now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  // A schedule that parses but never comes ("59 23 31 2 *") gives zero times, and no period.
  const period = Math.round((t2 - t1) / 1000);
  if (period < 1) return { earliest, missed: 'none', error: 'time difference between two schedules is less than 1 second' };
  const missedCount = Math.trunc((now - t1) / 1000 / period) + 1;
  let mostRecent: number | undefined;
  const potentialEarliest = t1 + (missedCount - 2) * period * 1000;
  for (let t = schedule.next(potentialEarliest); t <= now; t = schedule.next(t)) mostRecent = t;
  const missed: MissedSchedules = missedCount > 100 ? 'many' : missedCount > 0 ? 'few' : 'none';
  return { earliest, ...(mostRecent !== undefined ? { mostRecent } : {}), missed };
}

/**
 * nextScheduleTimeDuration: how long until the next scheduled time, counted
 * from the last one due (or now, when schedules were missed). Kubernetes
 * adds 100ms against clock skew between the controller and the apiserver;
 * kubesim's controllers read the apiserver's own clock, so it looks again
 * exactly then, and moving a fake clock to a scheduled time runs it.
 */
export function nextScheduleDelayMs(cj: KubeObject, now: number, schedule: CronSchedule): number {
  const r = mostRecentScheduleTime(cj, now, schedule, false);
  let from: number;
  if (r.error) from = now;
  else if (r.mostRecent !== undefined) from = r.mostRecent;
  else from = r.missed === 'none' ? r.earliest : now;
  return schedule.next(from) - now;
}

/** The Job's name for a scheduled time: the CronJob's, then minutes since the epoch. */
export const jobName = (cj: KubeObject, scheduledMs: number): string => `${cj.metadata.name}-${Math.floor(scheduledMs / 60_000)}`;

/** getJobFromTemplate2: the template's labels and annotations, the scheduled timestamp, the CronJob as controller. */
export function jobFromTemplate(cj: KubeObject, scheduledMs: number): KubeObject {
  const template = isObject(specOf(cj)['jobTemplate']) ? (specOf(cj)['jobTemplate'] as Obj) : {};
  const meta = isObject(template['metadata']) ? (template['metadata'] as KubeObject['metadata']) : {};
  const timeZone = specOf(cj)['timeZone'];
  const zone = loadLocation(typeof timeZone === 'string' ? timeZone : '');
  const annotations = { ...(meta.annotations ?? {}), ...(zone ? { [scheduledTimestampAnnotation]: formatRFC3339In(scheduledMs, zone) } : {}) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduledMs),
      ...(meta.labels && Object.keys(meta.labels).length ? { labels: { ...meta.labels } } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      creationTimestamp: formatTime(new Date(scheduledMs)),
      ownerReferences: [newControllerRef(cj)],
    },
    spec: structuredClone(template['spec'] ?? {}),
  };
}

/** byJobStartTime: by status.startTime (unset last), then by name. */
export function byJobStartTime(a: KubeObject, b: KubeObject): number {
  const sa = timeMs(statusOf(a)['startTime']);
  const sb = timeMs(statusOf(b)['startTime']);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0;
  return sa! - sb!;
}
