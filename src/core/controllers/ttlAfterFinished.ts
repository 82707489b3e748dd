/**
 * The TTL-after-finished controller (pkg/controller/ttlafterfinished): a
 * finished Job (Complete or Failed True) with spec.ttlSecondsAfterFinished is
 * deleted that many seconds after its condition's lastTransitionTime, on the
 * server clock, with foreground propagation (its pods go first) and its uid as
 * precondition. A Job read again just before the delete must still have expired.
 */
import type { KubeObject } from '../api/types';
import { StatusError } from '../errors';
import { specOf } from './controllerUtils';
import { skippedController, watchInto, type RunningController } from './informer';
import { jobFinishedCondition } from './jobStatus';
import type { NamespaceControllerDeps } from './namespace';
import { newWorkQueue } from './workqueue';

/** timeLeft: milliseconds until the Job expires, undefined when it needs no cleanup (needsCleanup) or is being deleted. */
export function ttlLeftMs(job: KubeObject, nowMs: number): number | undefined {
  const ttl = specOf(job)['ttlSecondsAfterFinished'];
  if (typeof ttl !== 'number' || job.metadata.deletionTimestamp) return undefined;
  const finishedAt = Date.parse(jobFinishedCondition(job)?.lastTransitionTime ?? '');
  if (Number.isNaN(finishedAt)) return undefined;
  return finishedAt + ttl * 1000 - nowMs;
}

export function startTTLAfterFinishedController(deps: NamespaceControllerDeps): RunningController {
  const jobType = deps.registry.resourceFor('batch', 'v1', 'jobs');
  if (!jobType) return skippedController;
  const jobs = deps.storeFor(jobType);
  const stopped = new AbortController();
  /** The expiry each key's timer waits for (enqueueAfter keeps one per key). */
  const waiting = new Map<string, number>();

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const kv = await jobs.getKv(namespace, name);
    if (!kv) return;
    const job = jobs.decode(kv);
    const now = deps.clock.now().getTime();
    const left = ttlLeftMs(job, now);
    if (left === undefined) return;
    if (left > 0) {
      const at = now + left;
      if (waiting.get(key) === at) return;
      waiting.set(key, at);
      void deps.clock.sleep(left, stopped.signal).then(() => {
        if (waiting.get(key) !== at || stopped.signal.aborted) return;
        waiting.delete(key);
        queue.add(key);
      });
      return;
    }
    try {
      await jobs.delete(namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid } });
    } catch (e) {
      // Deleted or replaced meanwhile.
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  const queue = newWorkQueue('ttl-after-finished-controller', sync);
  const running = watchInto(deps, queue, jobs, []);
  return {
    idle: running.idle,
    stop() {
      stopped.abort();
      running.stop();
    },
  };
}
