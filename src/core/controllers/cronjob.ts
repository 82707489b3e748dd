/**
 * The CronJob controller (pkg/controller/cronjob, ControllerV2): at each
 * scheduled time of a CronJob it makes a Job named after the CronJob and the
 * time, honouring suspend, startingDeadlineSeconds and concurrencyPolicy;
 * it keeps status.active, lastScheduleTime and lastSuccessfulTime from the
 * Jobs it controls, and deletes the oldest finished ones past the history
 * limits. It only makes and deletes Jobs: the Job controller runs them.
 *
 * Time is the server clock's: after each sync a CronJob is queued again for
 * its next scheduled time on that clock (the delaying queue's AddAfter), so
 * moving a fake clock to a scheduled time runs it.
 */
import { formatTime, type KubeObject } from '../api/types';
import { isAlreadyExists, isNotFound, StatusError } from '../errors';
import type { StorageEvent } from '../storage/interface';
import { realClock } from '../util/clock';
import { loadLocation } from '../util/zonedTime';
import { controllerKeyOf, controllerRefOf, specOf, statusOf } from './controllerUtils';
import {
  activeOf,
  byJobStartTime,
  deleteFromActiveList,
  finishedCondition,
  inActiveList,
  isJobSucceeded,
  jobFromTemplate,
  jobName,
  jobRef,
  mostRecentScheduleTime,
  nextScheduleDelayMs,
  parseSchedule,
  timeMs,
} from './cronjobUtils';
import { newEventRecorder } from './events';
import { skippedController, watchInto, type RunningController } from './informer';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

/** A create refused by admission is tried again after 5ms doubling up to 1000s (the queue's rate limiter), on the real clock. */
const failureBackoffMs = (failures: number): number => Math.min(5 * 2 ** failures, 1_000_000);

/** What one sync decided: look again after requeueMs, write the status, or retry on an error. */
interface SyncResult {
  requeueMs?: number;
  updateStatus: boolean;
  error?: unknown;
}

export function startCronJobController(deps: NamespaceControllerDeps): RunningController {
  const cronJobType = deps.registry.resourceFor('batch', 'v1', 'cronjobs');
  const jobType = deps.registry.resourceFor('batch', 'v1', 'jobs');
  // batch/v1 switched off (--runtime-config=batch/v1=false): nothing to watch.
  if (!cronJobType || !jobType) return skippedController;
  const cronJobs = deps.storeFor(cronJobType);
  const jobs = deps.storeFor(jobType);
  const recorder = newEventRecorder(deps, 'cronjob-controller');
  const stopped = new AbortController();
  /** Keys waiting for a scheduled time, with when (the delaying queue: an earlier time replaces a later one). */
  const waiting = new Map<string, { atMs: number; cancel: AbortController }>();
  const failures = new Map<string, number>();

  function enqueueAfter(key: string, delayMs: number): void {
    if (delayMs <= 0) return queue.add(key);
    const atMs = deps.clock.now().getTime() + delayMs;
    const existing = waiting.get(key);
    if (existing && existing.atMs <= atMs) return;
    existing?.cancel.abort();
    const cancel = new AbortController();
    waiting.set(key, { atMs, cancel });
    void deps.clock.sleep(delayMs, cancel.signal).then(() => {
      if (cancel.signal.aborted) return;
      waiting.delete(key);
      queue.add(key);
    });
  }

  /** deleteJob: the Job in the background (the garbage collector takes its pods), then out of the active list. */
  async function deleteJob(cj: KubeObject, job: KubeObject): Promise<boolean> {
    try {
      await jobs.delete(job.metadata.namespace!, job.metadata.name!, { propagationPolicy: 'Background' });
    } catch (e) {
      recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(e as Error).message}`);
      return false;
    }
    deleteFromActiveList(cj, job.metadata.uid);
    recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
    return true;
  }

  /** cleanupFinishedJobs: the oldest finished Jobs past successfulJobsHistoryLimit and failedJobsHistoryLimit go. */
  async function cleanupFinishedJobs(cj: KubeObject, owned: KubeObject[]): Promise<boolean> {
    const spec = specOf(cj);
    let update = false;
    for (const [condition, limit] of [['Complete', spec['successfulJobsHistoryLimit']], ['Failed', spec['failedJobsHistoryLimit']]] as const) {
      if (typeof limit !== 'number') continue;
      const finished = owned.filter((j) => finishedCondition(j) === condition);
      const excess = finished.length - limit;
      if (excess <= 0) continue;
      for (const job of finished.sort(byJobStartTime).slice(0, excess)) if (await deleteJob(cj, job)) update = true;
    }
    return update;
  }

  async function syncCronJob(cj: KubeObject, owned: KubeObject[]): Promise<SyncResult> {
    const now = deps.clock.now().getTime();
    const namespace = cj.metadata.namespace!;
    let updateStatus = false;
    const children = new Set<string>();
    for (const job of owned) {
      children.add(job.metadata.uid!);
      const found = inActiveList(cj, job.metadata.uid);
      const finished = finishedCondition(job);
      if (!found && !finished) {
        // Made by someone else (`kubectl create job --from=cronjob/...`), or before a status write was lost.
        recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`);
      } else if (finished) {
        if (found) {
          deleteFromActiveList(cj, job.metadata.uid);
          recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finished}`);
          updateStatus = true;
        }
        // A succeeded Job need not be in the active list for its completion to count.
        if (isJobSucceeded(job)) {
          const completion = statusOf(job)['completionTime'];
          const last = timeMs(statusOf(cj)['lastSuccessfulTime']);
          const at = timeMs(completion);
          if (last === undefined || (at !== undefined && at > last)) {
            cj['status'] = { ...statusOf(cj), ...(at !== undefined ? { lastSuccessfulTime: completion } : {}) };
            updateStatus = true;
          }
        }
      }
    }
    // An active Job that is gone (deleted by hand) leaves the list, so the CronJob is not stuck active.
    for (const ref of activeOf(cj)) {
      if (children.has(ref.uid ?? '')) continue;
      if (!(await jobs.getKv(ref.namespace ?? namespace, ref.name ?? ''))) {
        recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        deleteFromActiveList(cj, ref.uid);
        updateStatus = true;
      }
    }
    if (cj.metadata.deletionTimestamp) return { updateStatus };

    const spec = specOf(cj);
    const timeZone = spec['timeZone'];
    if (typeof timeZone === 'string' && !loadLocation(timeZone)) {
      recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(timeZone)}: unknown time zone ${timeZone}`);
      return { updateStatus };
    }
    if (spec['suspend'] === true) return { updateStatus };
    const schedule = String(spec['schedule'] ?? '');
    if (schedule.includes('TZ')) {
      recorder.event(cj, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    const sched = parseSchedule(cj);
    if (typeof sched === 'string') {
      recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(schedule)} : ${sched}`);
      return { updateStatus };
    }
    // nextScheduleTime: the most recent unmet time, counting the starting deadline.
    const due = mostRecentScheduleTime(cj, now, sched, true);
    if (due.error) {
      recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${schedule} : ${due.error}`);
      return { updateStatus };
    }
    const requeueMs = () => nextScheduleDelayMs(cj, deps.clock.now().getTime(), sched);
    if (due.mostRecent === undefined || due.mostRecent > now) return { requeueMs: requeueMs(), updateStatus };
    const scheduled = due.mostRecent;
    if (due.missed === 'many') {
      recorder.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    }
    const deadline = spec['startingDeadlineSeconds'];
    if (typeof deadline === 'number' && scheduled + deadline * 1000 < now) {
      recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { requeueMs: requeueMs(), updateStatus };
    }
    const name = jobName(cj, scheduled);
    if (activeOf(cj).some((r) => r.name === name && r.namespace === namespace) || timeMs(statusOf(cj)['lastScheduleTime']) === scheduled) {
      return { requeueMs: requeueMs(), updateStatus };
    }
    const policy = spec['concurrencyPolicy'];
    if (policy === 'Forbid' && activeOf(cj).length > 0) {
      recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeueMs: requeueMs(), updateStatus };
    }
    if (policy === 'Replace') {
      for (const ref of activeOf(cj)) {
        let job: KubeObject;
        try {
          job = await jobs.get(ref.namespace ?? namespace, ref.name ?? '');
        } catch (e) {
          recorder.event(cj, 'Warning', 'FailedGet', `Get job: ${(e as Error).message}`);
          return { updateStatus, error: e };
        }
        if (!(await deleteJob(cj, job))) return { updateStatus, error: new Error(`could not replace job ${ref.namespace}/${ref.name}`) };
        updateStatus = true;
      }
    }

    let created: KubeObject;
    let alreadyExists = false;
    try {
      created = await jobs.create(namespace, jobFromTemplate(cj, scheduled));
    } catch (e) {
      if (e instanceof StatusError && e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) {
        // Every create fails while the namespace goes, and the CronJob goes with it.
        return { updateStatus };
      }
      if (!isAlreadyExists(e)) {
        recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
        return { updateStatus, error: e };
      }
      // Made before a status write was lost, or by someone else: only the controller's own Job joins the active list.
      alreadyExists = true;
      created = await jobs.get(namespace, name);
      if (controllerRefOf(created)?.uid !== cj.metadata.uid || inActiveList(cj, created.metadata.uid)) return { updateStatus };
    }
    if (!alreadyExists) recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    cj['status'] = { ...statusOf(cj), active: [...activeOf(cj), jobRef(created)], lastScheduleTime: formatTime(new Date(scheduled)) };
    return { requeueMs: requeueMs(), updateStatus: true };
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await cronJobs.getKv(namespace, name);
    if (!kv) {
      waiting.get(key)?.cancel.abort();
      waiting.delete(key);
      failures.delete(key);
      return;
    }
    const cj = cronJobs.decode(kv);
    const readVersion = cj.metadata.resourceVersion;
    // Every Job whose controller reference names this CronJob (getJobsToBeReconciled matches the name alone).
    const owned = (await jobs.list(namespace)).items.filter((j) => controllerRefOf(j)?.name === name);
    const cleaned = await cleanupFinishedJobs(cj, owned);
    const result = await syncCronJob(cj, owned);
    if (cleaned || result.updateStatus) {
      try {
        await cronJobs.update(namespace, name, (cur) => {
          if (!cur) throw gone;
          // UpdateStatus of the copy read at the start: a newer CronJob is a conflict, synced again.
          cur.metadata.resourceVersion = readVersion;
          cur['status'] = cj['status'] ?? {};
          return cur;
        }, { subresource: 'status' });
      } catch (e) {
        if (e === gone || isNotFound(e)) return;
        if (e instanceof StatusError && e.code === 409) return queue.add(key);
        throw e;
      }
    }
    if (result.requeueMs !== undefined) {
      failures.delete(key);
      enqueueAfter(key, result.requeueMs);
    } else if (result.error !== undefined) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      void realClock.sleep(failureBackoffMs(n), stopped.signal).then(() => {
        if (!stopped.signal.aborted) queue.add(key);
      });
    }
  }

  const gone = new Error('gone');
  const queue = newWorkQueue('cronjob-controller', sync);

  /**
   * updateCronJob: a new schedule or zone queues the CronJob for its next
   * time under it (or not at all when it does not parse); any other change
   * queues it now.
   */
  function queueNow(e: StorageEvent, key: string): boolean {
    if (e.type !== 'PUT' || !e.prevKv) return true;
    let cur: KubeObject;
    let old: KubeObject;
    try {
      cur = cronJobs.decode(e.kv);
      old = cronJobs.decode(e.prevKv);
    } catch {
      return true;
    }
    if (specOf(cur)['schedule'] === specOf(old)['schedule'] && specOf(cur)['timeZone'] === specOf(old)['timeZone']) return true;
    const sched = parseSchedule(cur);
    if (typeof sched === 'string') {
      recorder.event(cur, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${String(specOf(cur)['schedule'] ?? '')}`);
      return false;
    }
    enqueueAfter(key, nextScheduleDelayMs(cur, deps.clock.now().getTime(), sched));
    return false;
  }

  const running = watchInto(deps, queue, cronJobs, [{ store: jobs, keysFor: (e) => [controllerKeyOf(e.kv, 'CronJob'), controllerKeyOf(e.prevKv, 'CronJob')] }], queueNow);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      for (const w of waiting.values()) w.cancel.abort();
      waiting.clear();
      running.stop();
    },
  };
}

const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** time.RFC1123Z in UTC: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${monthNames[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}
