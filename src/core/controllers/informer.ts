/**
 * A controller's informer, reduced to what kubesim needs: a list, then watches
 * from the list's revision on the primary resource and on what it owns, each
 * event turned into `namespace/name` keys of the work queue.
 */
import type { Store } from '../registry/generic/store';
import type { StorageEvent } from '../storage/interface';
import type { NamespaceControllerDeps } from './namespace';
import type { WorkQueue } from './workqueue';

export interface RunningController {
  stop(): void;
  /** Resolves once no work is queued or running. */
  idle(): Promise<void>;
}

/** A controller whose API is switched off (--runtime-config): kube-controller-manager skips it. */
export const skippedController: RunningController = { stop() {}, idle: async () => {} };

/** Starts a controller fed by watches on the given stores' prefixes; events map to queue keys. */
export function watchInto(
  deps: NamespaceControllerDeps,
  queue: WorkQueue,
  primary: Store,
  secondary: { store: Store; keysFor(kv: StorageEvent): (string | undefined)[] }[],
  /** Whether a primary event queues its key at once (the controller may queue it for later itself); always, by default. */
  queueNow: (e: StorageEvent, key: string) => boolean = () => true,
): RunningController {
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  const started = (async () => {
    const listed = await primary.list('');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(primary.prefix, listed.revision, (e) => {
      // Keys are namespace/name; a cluster-scoped object's is /name.
      const rest = e.kv.key.slice(primary.prefix.length);
      const key = rest.includes('/') ? rest : `/${rest}`;
      if (queueNow(e, key)) queue.add(key);
    }));
    for (const s of secondary) {
      unsubscribes.push(await deps.storage.watch(s.store.prefix, listed.revision, (e) => {
        for (const key of s.keysFor(e)) if (key) queue.add(key);
      }));
    }
    for (const obj of listed.items) queue.add(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })().catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: controller start:', e);
  });
  return {
    async idle() {
      await started;
      await queue.idle();
    },
    stop() {
      stopped.abort();
      queue.stop();
      for (const u of unsubscribes) u();
    },
  };
}

