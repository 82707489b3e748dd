/**
 * The Job controller (pkg/controller/job): runs a Job's pods from
 * spec.template until enough of them succeed, or fails the Job.
 *
 * - Pods are named `<job>-` (Indexed: `<job>-<index>-`, with the index as
 *   annotation, label, hostname and JOB_COMPLETION_INDEX), have the Job as
 *   controller and the tracking finalizer; matching orphans are adopted (and
 *   get the finalizer), pods whose labels stop matching are released.
 * - At most parallelism pods are active, no more than the completions left;
 *   excess pods go first when unbound, pending, not ready and newest.
 * - Finished pods are tracked in two steps: their uids go to
 *   status.uncountedTerminatedPods (Indexed successes to completedIndexes),
 *   their finalizer is removed, then they are counted in succeeded / failed.
 * - A failure past backoffLimit, a FailJob rule of podFailurePolicy, more
 *   failed indexes than allowed, or activeDeadlineSeconds passed mark the Job
 *   FailureTarget, delete its active pods, then Failed once none terminates;
 *   enough successes (or an Indexed Job's successPolicy) mark it
 *   SuccessCriteriaMet, then Complete.
 * - Failed pods are replaced after 10s, doubling per failure since the last
 *   success (at most 10 minutes), on the server clock; suspend deletes the
 *   active pods, resume restarts startTime.
 * - A deleted or finished Job's pods lose the finalizer, so the garbage
 *   collector can delete them.
 *
 * kubesim has no kubelet: a Job's pods stay Pending until someone writes
 * their phase (`kubectl patch pod --subresource=status`).
 */
import { formatTime, isObject, type KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../selectors';
import type { StorageEvent } from '../storage/interface';
import { realClock } from '../util/clock';
import { controllerKeyOf, controllerRefOf, isPodActive, isPodReady, newControllerRef, specOf, statusOf, objectGone } from './controllerUtils';
import { newEventRecorder } from './events';
import { skippedController, watchInto, type RunningController } from './informer';
import { finishedTimeMs, nextBackoffRecord, remainingBackoffMs, type BackoffRecord } from './jobBackoff';
import {
  completionIndexOf,
  firstPendingIndexes,
  formatIntervals,
  intervalsHave,
  intervalsTotal,
  matchSuccessPolicy,
  parseIntervals,
  unknownIndex,
  withIndexes,
  mergeIntervals,
  type Intervals,
} from './jobIndexes';
import { matchPodFailurePolicy } from './jobPodFailurePolicy';
import {
  activePodsForRemoval,
  hasBackoffLimitPerIndex,
  hasFinalizer,
  indexFailureCount,
  isIndexFailed,
  isPodFailed,
  isPodTerminating,
  jobIndexFailureCountAnnotation,
  jobIndexIgnoredFailureCountAnnotation,
  jobTrackingFinalizer,
  onlyReplaceFailedPods,
  pastBackoffLimitOnFailure,
  phaseOf,
  podFromTemplate,
} from './jobPods';
import { cleanUncounted, conditionsOf, ensureCondition, inStatusOrder, jobFinishedCondition, newCondition, type Condition } from './jobStatus';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

type Obj = Record<string, unknown>;

/** spec.managedBy naming this controller (JobControllerName). */
const jobControllerName = 'kubernetes.io/job-controller';
/** MaxPodCreateDeletePerSync and MaxUncountedPods. */
const maxPodCreateDeletePerSync = 500;
const maxUncountedPods = 500;
/** enqueueSyncJobWithDelay waits at least syncJobBatchPeriod. */
const syncJobBatchPeriodMs = 1000;

/** What one sync knows (syncJobCtx). */
interface SyncCtx {
  job: KubeObject;
  spec: Obj;
  status: Obj;
  pods: KubeObject[];
  activePods: KubeObject[];
  indexed: boolean;
  completions: number | undefined;
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  prevSucceededIndexes: Intervals;
  succeededIndexes: Intervals;
  failedIndexes?: Intervals;
  finishedCondition?: Condition;
  newBackoff: BackoffRecord;
  podsWithDelayedDeletionPerIndex: Map<number, KubeObject>;
}

/** A refused or raced write the next event brings back: the sync ends quietly. */
const isGone = (e: unknown): boolean => e instanceof StatusError && (e.code === 404 || e.code === 409);

export function startJobController(deps: NamespaceControllerDeps): RunningController {
  const jobType = deps.registry.resourceFor('batch', 'v1', 'jobs');
  // batch/v1 switched off (--runtime-config=batch/v1=false): nothing to run.
  if (!jobType) return skippedController;
  const jobs = deps.storeFor(jobType);
  const pods = deps.storeFor(deps.registry.resourceFor('', 'v1', 'pods')!);
  const recorder = newEventRecorder(deps, 'job-controller');
  const stopped = new AbortController();
  /** podBackoffStore, per Job key. */
  const backoffs = new Map<string, BackoffRecord>();
  /** Pending AddAfter deadlines per key: only the earliest is kept. */
  const delayed = new Map<string, number>();
  /** Creates refused in a row per key (the queue's rate limiter). */
  const createFailures = new Map<string, number>();
  const nowMs = () => deps.clock.now().getTime();
  const now = () => formatTime(deps.clock.now());

  /** queue.AddAfter on the server clock. */
  function addAfter(key: string, ms: number): void {
    if (ms <= 0) return queue.add(key);
    const at = nowMs() + ms;
    const pending = delayed.get(key);
    if (pending !== undefined && pending <= at) return;
    delayed.set(key, at);
    void deps.clock.sleep(ms, stopped.signal).then(() => {
      if (stopped.signal.aborted || delayed.get(key) !== at) return;
      delayed.delete(key);
      queue.add(key);
    });
  }

  /** removeTrackingFinalizerPatch; a pod already gone counts as done. */
  async function removeFinalizer(pod: KubeObject): Promise<void> {
    try {
      await pods.update(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
        if (!cur || cur.metadata.uid !== pod.metadata.uid) throw notFound;
        const left = (cur.metadata.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer);
        if (left.length) cur.metadata.finalizers = left;
        else delete cur.metadata.finalizers;
        return cur;
      });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }

  /** syncOrphanPod for the pods `orphaned` picks: they lose the tracking finalizer. */
  async function releaseFinalizers(listed: KubeObject[], orphaned: (pod: KubeObject) => boolean): Promise<void> {
    for (const pod of listed) if (hasFinalizer(pod) && orphaned(pod)) await removeFinalizer(pod);
  }
  const listPods = async (namespace: string): Promise<KubeObject[]> => (await pods.list(namespace)).items;

  /** getPodsForJob: ClaimPods with the tracking finalizer, adopting and releasing. */
  async function podsForJob(job: KubeObject, listed: KubeObject[], matches: (labels: Record<string, string> | undefined) => boolean): Promise<KubeObject[]> {
    const namespace = job.metadata.namespace!;
    const uid = job.metadata.uid!;
    const owned: KubeObject[] = [];
    for (const pod of listed) {
      const ref = controllerRefOf(pod);
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches(pod.metadata.labels)) {
          owned.push(pod);
          continue;
        }
        if (job.metadata.deletionTimestamp) continue;
        // Release: the owner reference and the finalizer go.
        try {
          await pods.update(namespace, pod.metadata.name!, (cur) => {
            if (!cur || cur.metadata.uid !== pod.metadata.uid) throw notFound;
            const refs = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
            if (refs.length) cur.metadata.ownerReferences = refs;
            else delete cur.metadata.ownerReferences;
            const finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer);
            if (finalizers.length) cur.metadata.finalizers = finalizers;
            else delete cur.metadata.finalizers;
            return cur;
          });
        } catch (e) {
          if (!isGone(e)) throw e;
        }
        continue;
      }
      if (job.metadata.deletionTimestamp || pod.metadata.deletionTimestamp || !matches(pod.metadata.labels)) continue;
      // RecheckDeletionTimestamp: adopt only for the same Job, still not being deleted.
      const fresh = await jobs.getKv(namespace, job.metadata.name!);
      const freshJob = fresh ? jobs.decode(fresh) : undefined;
      if (!freshJob || freshJob.metadata.uid !== uid || freshJob.metadata.deletionTimestamp) continue;
      try {
        const { object } = await pods.update(namespace, pod.metadata.name!, (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid || controllerRefOf(cur)) throw conflict;
          cur.metadata.ownerReferences = [...(cur.metadata.ownerReferences ?? []), newControllerRef(job)];
          if (!hasFinalizer(cur)) cur.metadata.finalizers = [...(cur.metadata.finalizers ?? []), jobTrackingFinalizer];
          return cur;
        });
        owned.push(object);
      } catch (e) {
        if (!isGone(e)) throw e;
      }
    }
    return owned;
  }

  /** getValidPodsWithFilter: pods not counted yet (finalizer, not in `uncounted`), with a valid index when Indexed. */
  function validPods(ctx: SyncCtx, uncounted: Set<string> | undefined, filter: (p: KubeObject) => boolean): KubeObject[] {
    return ctx.pods.filter((p) => {
      if (!hasFinalizer(p) || uncounted?.has(p.metadata.uid!)) return false;
      if (ctx.indexed) {
        const ix = completionIndexOf(p);
        if (ix === unknownIndex || ix >= (ctx.completions ?? 0)) return false;
      }
      return filter(p);
    });
  }

  /** getPodsWithDelayedDeletionPerIndex: the last failed pod of each index still to run, kept until its replacement copies its counts. */
  function podsWithDelayedDeletion(ctx: SyncCtx): Map<number, KubeObject> {
    const activeIndexes = new Set(ctx.activePods.map(completionIndexOf));
    const out = new Map<number, KubeObject>();
    const absolute = (p: KubeObject) => indexFailureCount(p, jobIndexFailureCountAnnotation) + indexFailureCount(p, jobIndexIgnoredFailureCountAnnotation);
    for (const p of validPods(ctx, undefined, (pod) => isPodFailed(pod, ctx.job))) {
      const ix = completionIndexOf(p);
      if (intervalsHave(ctx.succeededIndexes, ix) || intervalsHave(ctx.failedIndexes ?? [], ix) || activeIndexes.has(ix)) continue;
      const last = out.get(ix);
      if (!last || absolute(last) <= absolute(p)) out.set(ix, p);
    }
    return out;
  }

  /** deleteJobPods (finalizer first, so the pod is not counted) or deleteActivePods (finalizer kept); returns [ready, deleted]. */
  async function deletePods(job: KubeObject, doomed: KubeObject[], dropFinalizer: boolean): Promise<[number, number]> {
    let deleted = 0;
    let ready = 0;
    for (const pod of doomed) {
      try {
        if (dropFinalizer && hasFinalizer(pod)) await removeFinalizer(pod);
        await pods.delete(pod.metadata.namespace!, pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } });
        recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
        deleted++;
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) deleted++;
        else if (e instanceof StatusError) recorder.event(job, 'Warning', 'FailedDelete', `Error deleting: ${e.message}`);
        else throw e;
      }
      if (isPodReady(pod)) ready++;
    }
    return [ready, deleted];
  }

  /** manageJob: deletes or creates pods toward the active count wanted; returns the active count. */
  async function manageJob(key: string, ctx: SyncCtx): Promise<number> {
    const { job, spec } = ctx;
    let active = ctx.activePods.length;
    const parallelism = Number(spec['parallelism'] ?? 1);
    if (spec['suspend'] === true) {
      const [ready, removed] = await deletePods(job, activePodsForRemoval(ctx.activePods, ctx.indexed, ctx.completions, active), true);
      ctx.terminating += removed;
      ctx.ready -= ready;
      return active - removed;
    }
    let wantActive: number;
    if (ctx.completions === undefined) wantActive = ctx.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(ctx.completions - ctx.succeeded, parallelism));
    const doomed = activePodsForRemoval(ctx.activePods, ctx.indexed, ctx.completions, Math.max(0, active - wantActive)).slice(0, maxPodCreateDeletePerSync);
    if (doomed.length) {
      // Deleting and creating in one sync never mix; deleting goes first.
      const [ready, removed] = await deletePods(job, doomed, true);
      ctx.terminating += removed;
      ctx.ready -= ready;
      return active - removed;
    }
    const terminating = onlyReplaceFailedPods(job) ? ctx.terminating : 0;
    let diff = Math.min(wantActive - terminating - active, maxPodCreateDeletePerSync);
    if (diff <= 0) return active;
    if (!hasBackoffLimitPerIndex(job)) {
      const remaining = remainingBackoffMs(ctx.newBackoff.failuresAfterLastSuccess, ctx.newBackoff.lastFailureMs, nowMs());
      if (remaining > 0) {
        addAfter(key, Math.max(remaining, syncJobBatchPeriodMs));
        // As kube's manageJob, a sync that backs off reports no active pods.
        return 0;
      }
    }
    let indexes: number[] = [];
    if (ctx.indexed) {
      let taken = withIndexes(ctx.succeededIndexes, ctx.activePods.map(completionIndexOf).filter((i) => i !== unknownIndex));
      if (onlyReplaceFailedPods(job)) taken = withIndexes(taken, ctx.pods.filter(isPodTerminating).map(completionIndexOf).filter((i) => i !== unknownIndex));
      if (ctx.failedIndexes) taken = mergeIntervals(taken, ctx.failedIndexes);
      indexes = firstPendingIndexes(taken, diff, ctx.completions ?? 0);
      if (hasBackoffLimitPerIndex(job)) {
        // getPodCreationInfoForIndependentIndexes: each index waits on its own last failure.
        const ready: number[] = [];
        let minWait: number | undefined;
        for (const ix of indexes) {
          const last = ctx.podsWithDelayedDeletionPerIndex.get(ix);
          const wait = last
            ? remainingBackoffMs(indexFailureCount(last, jobIndexFailureCountAnnotation) + indexFailureCount(last, jobIndexIgnoredFailureCountAnnotation) + 1, finishedTimeMs(last), nowMs())
            : 0;
          if (wait === 0) ready.push(ix);
          else minWait = Math.min(minWait ?? wait, wait);
        }
        if (!ready.length && minWait !== undefined) {
          addAfter(key, Math.max(minWait, syncJobBatchPeriodMs));
          return 0;
        }
        indexes = ready;
      }
      diff = indexes.length;
    }
    for (let i = 0; i < diff; i++) {
      const index = ctx.indexed ? indexes[i]! : unknownIndex;
      const pod = podFromTemplate(job, index, index === unknownIndex ? undefined : ctx.podsWithDelayedDeletionPerIndex.get(index));
      try {
        const created = await pods.create(job.metadata.namespace!, pod);
        recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        active++;
        createFailures.delete(key);
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        // A terminating namespace refuses every create: nothing to report.
        if (e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return active;
        recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
        // The queue's rate limiter: tried again after 1s, doubling up to a minute (DefaultJobApiBackOff, MaxJobApiBackOff).
        const n = createFailures.get(key) ?? 0;
        createFailures.set(key, n + 1);
        void realClock.sleep(Math.min(1000 * 2 ** n, 60_000), stopped.signal).then(() => queue.add(key));
        // Slow start: the creates left are not tried.
        return active;
      }
    }
    return active;
  }

  /** UpdateStatus: the status written over the object this sync read (a 409 when it changed meanwhile). */
  async function updateStatus(ctx: SyncCtx): Promise<void> {
    const { job } = ctx;
    const { object } = await jobs.update(job.metadata.namespace!, job.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== job.metadata.uid) throw notFound;
      cur.metadata.resourceVersion = job.metadata.resourceVersion;
      cur['status'] = inStatusOrder(ctx.status);
      return cur;
    }, { subresource: 'status' });
    ctx.job = object;
  }

  /** trackJobStatusAndRemoveFinalizers, with flushUncountedAndRemoveFinalizers and enactJobFinished. */
  async function trackStatus(key: string, ctx: SyncCtx, needsFlush: boolean): Promise<void> {
    const { status } = ctx;
    const u = status['uncountedTerminatedPods'] as { succeeded: string[]; failed: string[] };
    const completions = ctx.completions ?? 0;
    const podsInOrder = ctx.indexed ? [...ctx.pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b)) : ctx.pods;
    const withFinalizer = new Set(ctx.pods.filter(hasFinalizer).map((p) => p.metadata.uid!));
    if (cleanUncounted(status, withFinalizer)) needsFlush = true;
    const toRelease: KubeObject[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    for (const pod of podsInOrder) {
      if (!hasFinalizer(pod)) continue;
      const uid = pod.metadata.uid!;
      const failed = isPodFailed(pod, ctx.job);
      // canRemoveFinalizer
      const removable =
        !!ctx.job.metadata.deletionTimestamp || ctx.finishedCondition !== undefined || phaseOf(pod) === 'Succeeded' ||
        (failed && !(hasBackoffLimitPerIndex(ctx.job) && ctx.podsWithDelayedDeletionPerIndex.get(completionIndexOf(pod))?.metadata.uid === uid));
      if (!removable) continue;
      toRelease.push(pod);
      const ix = completionIndexOf(pod);
      if (phaseOf(pod) === 'Succeeded' && !ctx.uncountedFailed.has(uid)) {
        if (ctx.indexed) {
          if (ix !== unknownIndex && ix < completions && !intervalsHave(ctx.prevSucceededIndexes, ix)) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!ctx.uncountedSucceeded.has(uid)) {
          u.succeeded.push(uid);
          needsFlush = true;
        }
      } else if (failed || (ctx.finishedCondition && ctx.finishedCondition.type !== 'SuccessCriteriaMet')) {
        // A finished Job counts every pod that did not succeed as failed.
        if (!ctx.uncountedFailed.has(uid) && (!ctx.indexed || (ix !== unknownIndex && ix < completions))) {
          if (matchPodFailurePolicy(ctx.job, pod).countFailed) {
            u.failed.push(uid);
            needsFlush = true;
          }
        }
      }
      if (newSucceededIndexes.length + u.succeeded.length + u.failed.length >= maxUncountedPods) {
        reachedMax = true;
        break;
      }
    }
    if (ctx.indexed) {
      ctx.succeededIndexes = withIndexes(ctx.succeededIndexes, newSucceededIndexes);
      const completed = formatIntervals(ctx.succeededIndexes);
      if (completed !== (status['completedIndexes'] ?? '')) needsFlush = true;
      status['succeeded'] = intervalsTotal(ctx.succeededIndexes);
      status['completedIndexes'] = completed;
      const failedIndexes = ctx.failedIndexes ? formatIntervals(ctx.failedIndexes) : undefined;
      if (failedIndexes !== status['failedIndexes']) {
        status['failedIndexes'] = failedIndexes;
        needsFlush = true;
      }
    }
    const conditions = conditionsOf(status);
    if (ctx.finishedCondition?.type === 'FailureTarget') {
      // The interim FailureTarget goes out before the finalizers; Failed follows once they are gone.
      conditions.push(ctx.finishedCondition);
      status['conditions'] = conditions;
      needsFlush = true;
      ctx.finishedCondition = newCondition('Failed', 'True', ctx.finishedCondition.reason ?? '', ctx.finishedCondition.message ?? '', now());
    }
    if (ctx.finishedCondition?.type === 'SuccessCriteriaMet') {
      if (!conditions.some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True')) {
        conditions.push(ctx.finishedCondition);
        status['conditions'] = conditions;
        needsFlush = true;
      }
      ctx.finishedCondition = newCondition('Complete', 'True', ctx.finishedCondition.reason ?? '', ctx.finishedCondition.message ?? '', now());
    }
    // flushUncountedAndRemoveFinalizers
    if (needsFlush) {
      await updateStatus(ctx);
      backoffs.set(key, ctx.newBackoff);
      needsFlush = false;
    }
    let rmError: unknown;
    for (const pod of toRelease) {
      try {
        await removeFinalizer(pod);
        withFinalizer.delete(pod.metadata.uid!);
      } catch (e) {
        rmError ??= e;
      }
    }
    if (cleanUncounted(status, withFinalizer)) needsFlush = true;
    if (rmError) {
      if (needsFlush) await updateStatus(ctx);
      throw rmError;
    }
    // enactJobFinished: not while pods are uncounted or terminating.
    let finished = false;
    const fc = ctx.finishedCondition;
    if (fc && !reachedMax && u.succeeded.length + u.failed.length === 0 && ctx.terminating === 0) {
      const list = conditionsOf(status);
      ensureCondition(list, fc, now());
      status['conditions'] = list;
      if (fc.type === 'Complete') status['completionTime'] = list.find((c) => c.type === 'Complete')?.lastTransitionTime;
      finished = needsFlush = true;
    }
    if (needsFlush) {
      await updateStatus(ctx);
      if (finished && fc) {
        // recordJobFinished
        if (fc.type === 'Complete') {
          if (ctx.completions !== undefined && Number(status['succeeded'] ?? 0) > ctx.completions) {
            recorder.event(ctx.job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
          }
          recorder.event(ctx.job, 'Normal', 'Completed', 'Job completed');
        } else {
          recorder.event(ctx.job, 'Warning', fc.reason ?? '', fc.message ?? '');
        }
      }
    }
  }

  async function syncJob(key: string, namespace: string, name: string): Promise<void> {
    const kv = await jobs.getKv(namespace, name);
    if (!kv) {
      // The Job is gone: its pods lose the finalizer (cleanupPodFinalizers, syncOrphanPod).
      backoffs.delete(key);
      await releaseFinalizers(await listPods(namespace), (p) => {
        const ref = controllerRefOf(p);
        return ref?.kind === 'Job' && ref.apiVersion === 'batch/v1' && ref.name === name;
      });
      return;
    }
    const job = jobs.decode(kv);
    const spec = specOf(job);
    if (typeof spec['managedBy'] === 'string' && spec['managedBy'] !== jobControllerName) return;
    const uid = job.metadata.uid;
    // Pods left with the finalizer by an earlier Job of this name are orphans too.
    const orphanOfName = (p: KubeObject) => {
      const ref = controllerRefOf(p);
      return ref?.kind === 'Job' && ref.name === name && ref.uid !== uid;
    };
    if (jobFinishedCondition(job)) {
      backoffs.delete(key);
      await releaseFinalizers(await listPods(namespace), (p) => controllerRefOf(p)?.uid === uid || orphanOfName(p));
      return;
    }
    const mode = spec['completionMode'] ?? 'NonIndexed';
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      recorder.event(job, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const selector = labelSelectorFromObject(spec['selector'] as LabelSelectorObject | undefined);
    if (isSelectorError(selector)) return;
    const listed = await listPods(namespace);
    await releaseFinalizers(listed, orphanOfName);

    const status = structuredClone(statusOf(job));
    const uncounted = isObject(status['uncountedTerminatedPods']) ? status['uncountedTerminatedPods'] : {};
    const uncountedSucceeded = Array.isArray(uncounted['succeeded']) ? (uncounted['succeeded'] as string[]) : [];
    const uncountedFailed = Array.isArray(uncounted['failed']) ? (uncounted['failed'] as string[]) : [];
    status['uncountedTerminatedPods'] = { succeeded: [...uncountedSucceeded], failed: [...uncountedFailed] };
    const all = await podsForJob(job, listed.filter((p) => !orphanOfName(p)), (labels) => selector.matches(labels));
    const activePods = all.filter(isPodActive);
    const completions = typeof spec['completions'] === 'number' ? spec['completions'] : undefined;
    const ctx: SyncCtx = {
      job,
      spec,
      status,
      pods: all,
      activePods,
      indexed: mode === 'Indexed',
      completions,
      succeeded: 0,
      failed: 0,
      ready: activePods.filter(isPodReady).length,
      terminating: all.filter(isPodTerminating).length,
      uncountedSucceeded: new Set(uncountedSucceeded),
      uncountedFailed: new Set(uncountedFailed),
      prevSucceededIndexes: [],
      succeededIndexes: [],
      newBackoff: { failuresAfterLastSuccess: 0 },
      podsWithDelayedDeletionPerIndex: new Map(),
    };
    let active = activePods.length;
    const newSucceeded = validPods(ctx, ctx.uncountedSucceeded, (p) => phaseOf(p) === 'Succeeded');
    const newFailed = validPods(ctx, ctx.uncountedFailed, (p) => isPodFailed(p, job));
    const nonIgnoredFailed = newFailed.filter((p) => matchPodFailurePolicy(job, p).countFailed).length;
    ctx.succeeded = Number(status['succeeded'] ?? 0) + newSucceeded.length + uncountedSucceeded.length;
    ctx.failed = Number(status['failed'] ?? 0) + nonIgnoredFailed + uncountedFailed.length;
    const suspended = spec['suspend'] === true;
    if (status['startTime'] === undefined && !suspended) status['startTime'] = now();
    ctx.newBackoff = nextBackoffRecord(backoffs.get(key), newSucceeded, newFailed);

    const conditions = conditionsOf(status);
    const successCriteriaMet = conditions.find((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    ctx.finishedCondition = successCriteriaMet;
    if (!ctx.finishedCondition) {
      const target = conditions.find((c) => c.type === 'FailureTarget' && c.status === 'True');
      if (target) ctx.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now());
      else {
        const message = all.filter((p) => isPodFailed(p, job)).map((p) => matchPodFailurePolicy(job, p).failJobMessage).find((m) => m !== undefined);
        if (message !== undefined) ctx.finishedCondition = newCondition('FailureTarget', 'True', 'PodFailurePolicy', message, now());
      }
    }
    const activeDeadline = typeof spec['activeDeadlineSeconds'] === 'number' ? spec['activeDeadlineSeconds'] : undefined;
    if (!ctx.finishedCondition) {
      const backoffLimit = Number(spec['backoffLimit'] ?? 6);
      const startMs = Date.parse(String(status['startTime'] ?? ''));
      if (ctx.failed > backoffLimit || pastBackoffLimitOnFailure(job, all)) {
        ctx.finishedCondition = newCondition('FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now());
      } else if (activeDeadline !== undefined && !suspended && !Number.isNaN(startMs) && nowMs() - startMs >= activeDeadline * 1000) {
        ctx.finishedCondition = newCondition('FailureTarget', 'True', 'DeadlineExceeded', 'Job was active longer than specified deadline', now());
      } else if (activeDeadline !== undefined && !suspended && !Number.isNaN(startMs)) {
        addAfter(key, activeDeadline * 1000 - (nowMs() - startMs));
      }
    }
    if (ctx.indexed) {
      ctx.prevSucceededIndexes = parseIntervals(String(status['completedIndexes'] ?? ''), completions ?? 0);
      const newIndexes = all
        .filter((p) => phaseOf(p) === 'Succeeded' && hasFinalizer(p))
        .map(completionIndexOf)
        .filter((ix) => ix !== unknownIndex && ix < (completions ?? 0));
      ctx.succeededIndexes = withIndexes(ctx.prevSucceededIndexes, new Set(newIndexes));
      ctx.succeeded = intervalsTotal(ctx.succeededIndexes);
      if (hasBackoffLimitPerIndex(job)) {
        const prevFailed = typeof status['failedIndexes'] === 'string' ? parseIntervals(status['failedIndexes'], completions ?? 0) : [];
        const failedNow = all
          .filter((p) => hasFinalizer(p) && completionIndexOf(p) !== unknownIndex && completionIndexOf(p) < (completions ?? 0) && isIndexFailed(job, p))
          .map(completionIndexOf);
        ctx.failedIndexes = withIndexes(prevFailed, new Set(failedNow));
        if (!ctx.finishedCondition) {
          const maxFailedIndexes = spec['maxFailedIndexes'];
          const failedTotal = intervalsTotal(ctx.failedIndexes);
          if (typeof maxFailedIndexes === 'number' && failedTotal > maxFailedIndexes) {
            ctx.finishedCondition = newCondition('FailureTarget', 'True', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes', now());
          } else if (failedTotal > 0 && failedTotal + intervalsTotal(ctx.succeededIndexes) >= (completions ?? 0)) {
            ctx.finishedCondition = newCondition('FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes', now());
          }
        }
        ctx.podsWithDelayedDeletionPerIndex = podsWithDelayedDeletion(ctx);
      }
      if (!ctx.finishedCondition) {
        const message = matchSuccessPolicy(spec['successPolicy'], completions ?? 0, ctx.succeededIndexes);
        if (message) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', 'SuccessPolicy', message, now());
      }
    }

    let suspendChanged = false;
    if (ctx.finishedCondition) {
      // A finishing Job's active pods are deleted, keeping their finalizers until they are counted.
      const [ready, deleted] = await deletePods(job, ctx.activePods, false);
      if (deleted !== active) ctx.finishedCondition = undefined;
      active -= deleted;
      ctx.terminating += deleted;
      ctx.ready -= ready;
    } else {
      let managed = false;
      if (!job.metadata.deletionTimestamp) {
        active = await manageJob(key, ctx);
        managed = true;
      }
      const complete = completions === undefined ? ctx.succeeded > 0 && active === 0 : ctx.succeeded >= completions && active === 0;
      if (complete) {
        ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods', now());
      } else if (managed) {
        const list = conditionsOf(status);
        if (suspended) {
          if (ensureCondition(list, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }, now())) {
            suspendChanged = true;
            recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (ensureCondition(list, { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' }, now())) {
          suspendChanged = true;
          recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
          // ActiveDeadlineSeconds counts from the resume.
          status['startTime'] = now();
        }
        if (suspendChanged) status['conditions'] = list;
      }
    }
    const old = statusOf(job);
    const needsFlush = suspendChanged || active !== Number(old['active'] ?? 0) || old['ready'] !== ctx.ready || old['terminating'] !== ctx.terminating;
    status['active'] = active;
    status['ready'] = ctx.ready;
    status['terminating'] = ctx.terminating;
    await trackStatus(key, ctx, needsFlush);
  }

  async function sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (!name || name === adoptionKey) {
      // An orphan pod changed: one with the finalizer loses it (only then are the namespace's pods read), and the
      // namespace's Jobs look whether to adopt it.
      if (!name) await releaseFinalizers(await listPods(namespace), (p) => !controllerRefOf(p));
      for (const job of (await jobs.list(namespace)).items) queue.add(`${namespace}/${job.metadata.name}`);
      return;
    }
    try {
      await syncJob(key, namespace, name);
    } catch (e) {
      // Changed or deleted meanwhile: that change's event brings the Job back.
      if (!isGone(e)) throw e;
    }
  }

  /** The key of an orphan pod's namespace when only adoption is in question (`*` is no object name). */
  const adoptionKey = '*';
  const notFound = objectGone();
  const conflict = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message: 'claimed elsewhere' });
  const queue = newWorkQueue('job-controller', sync);
  /** A pod without a controller that some Job may adopt, or that keeps a finalizer of a Job no longer its owner. */
  const orphanKey = (e: StorageEvent): string | undefined => {
    if (e.type !== 'PUT' || e.kv.value.includes('"ownerReferences"')) return undefined;
    const namespace = e.kv.key.slice(pods.prefix.length).split('/')[0];
    if (e.kv.value.includes(jobTrackingFinalizer)) return `${namespace}/`;
    return e.kv.value.includes('"labels"') ? `${namespace}/${adoptionKey}` : undefined;
  };
  const running = watchInto(deps, queue, jobs, [{ store: pods, keysFor: (e) => [controllerKeyOf(e.kv, 'Job'), controllerKeyOf(e.prevKv, 'Job'), orphanKey(e)] }]);
  // Pods a Job deleted while the controller was away still hold the finalizer: their Jobs' keys clean them up.
  void running.idle().then(async () => {
    if (stopped.signal.aborted) return;
    for (const pod of (await pods.list('')).items) {
      if (!hasFinalizer(pod)) continue;
      const ref = controllerRefOf(pod);
      if (!ref) queue.add(`${pod.metadata.namespace}/`);
      else if (ref.kind === 'Job') queue.add(`${pod.metadata.namespace}/${ref.name}`);
    }
  }).catch(() => {});
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
