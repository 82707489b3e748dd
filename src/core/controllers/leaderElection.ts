/**
 * Leader election over a Lease (client-go tools/leaderelection with a
 * LeaseLock), as kube-controller-manager runs it with --leader-elect: when
 * several API servers share one store, the controllers run on the one
 * server holding kube-system/kube-controller-manager.
 *
 * Every retry period a candidate reads the Lease. A Lease held by someone
 * else counts as expired once its record has not changed for the lease
 * duration, measured on this candidate's own clock from when it last saw the
 * record change (so clocks need not agree); then the candidate takes it with
 * a compare-and-swap on the resourceVersion it read. The leader renews every
 * retry period and gives up when it could not renew for the renew deadline.
 * Stopping releases a held Lease (ReleaseOnCancel), so others take over at
 * their next retry instead of after the lease duration.
 */
import type { KubeObject } from '../api/types';
import type { NamespaceControllerDeps } from './namespace';
import { newEventRecorder } from './events';

export interface LeaderElectionConfig {
  /** This candidate's identity (kube: hostname_uuid). */
  identity: string;
  /** Lease name and namespace (kube-controller-manager in kube-system). */
  leaseName?: string;
  leaseNamespace?: string;
  /** --leader-elect-lease-duration (15s), --leader-elect-renew-deadline (10s), --leader-elect-retry-period (2s). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * The component whose event recorder reports `<identity> became leader` and
   * `<identity> stopped leading` (reason LeaderElection) on the Lease, as
   * client-go's LeaseLock.RecordEvent does; none when absent.
   */
  eventComponent?: string;
  /** Told when this candidate starts (true) or stops (false) leading, after the controllers started or stopped. */
  onLeadingChange?: (leading: boolean) => void;
}

export interface LeaderCallbacks {
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

export interface LeaderElector {
  isLeader(): boolean;
  /** Stops campaigning; a held Lease is released and onStoppedLeading runs. */
  stop(): Promise<void>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function startLeaderElection(deps: NamespaceControllerDeps, config: LeaderElectionConfig, callbacks: LeaderCallbacks): LeaderElector {
  const leases = deps.storeFor(deps.registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!);
  const namespace = config.leaseNamespace ?? 'kube-system';
  const name = config.leaseName ?? 'kube-controller-manager';
  const leaseDurationMs = config.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = config.retryPeriodMs ?? 2_000;
  const leaseDurationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
  const stopped = new AbortController();
  let leading = false;
  let observed: string | undefined;
  let observedAt = 0;
  /** The Lease as last written by this candidate: the object its events are about. */
  let held: KubeObject | undefined;
  const recorder = config.eventComponent ? newEventRecorder(deps, config.eventComponent) : undefined;
  const recordEvent = (what: string) => {
    if (recorder && held) recorder.event(held, 'Normal', 'LeaderElection', `${config.identity} ${what}`);
  };

  const now = () => deps.clock.now();

  /** One tryAcquireOrRenew: whether this candidate holds the Lease afterwards. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    const at = now();
    const kv = await leases.getKv(namespace, name);
    if (!kv) {
      const spec: LeaseSpec = { holderIdentity: config.identity, leaseDurationSeconds, acquireTime: microTime(at), renewTime: microTime(at), leaseTransitions: 0 };
      held = await leases.create(namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec } as KubeObject);
      observed = JSON.stringify(spec);
      observedAt = at.getTime();
      return true;
    }
    const lease = leases.decode(kv);
    const record = (lease['spec'] ?? {}) as LeaseSpec;
    const text = JSON.stringify(record);
    if (text !== observed) {
      observed = text;
      observedAt = at.getTime();
    }
    const holder = record.holderIdentity ?? '';
    const duration = (record.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder && holder !== config.identity && observedAt + duration > at.getTime()) return false;
    const mine = holder === config.identity;
    const spec: LeaseSpec = {
      holderIdentity: config.identity,
      leaseDurationSeconds,
      acquireTime: mine && record.acquireTime ? record.acquireTime : microTime(at),
      renewTime: microTime(at),
      leaseTransitions: mine ? (record.leaseTransitions ?? 0) : (record.leaseTransitions ?? 0) + 1,
    };
    // Compare-and-swap on the resourceVersion read: two candidates cannot both take it.
    held = (await leases.update(namespace, name, () => ({ ...lease, spec } as KubeObject))).object;
    observed = JSON.stringify(spec);
    observedAt = at.getTime();
    return true;
  }

  const attempt = () => tryAcquireOrRenew().catch(() => false);
  // A fresh signal per sleep: the clock's abort listener must not pile up on the long-lived one.
  const sleep = async (ms: number) => {
    const wake = new AbortController();
    const onStop = () => wake.abort();
    stopped.signal.addEventListener('abort', onStop, { once: true });
    try {
      await deps.clock.sleep(ms, wake.signal);
    } finally {
      stopped.signal.removeEventListener('abort', onStop);
    }
  };

  const loop = (async () => {
    while (!stopped.signal.aborted) {
      while (!stopped.signal.aborted && !(await attempt())) await sleep(retryPeriodMs);
      if (stopped.signal.aborted) break;
      leading = true;
      recordEvent('became leader');
      callbacks.onStartedLeading();
      config.onLeadingChange?.(true);
      let renewedAt = now().getTime();
      while (!stopped.signal.aborted) {
        await sleep(retryPeriodMs);
        if (stopped.signal.aborted) break;
        if (await attempt()) renewedAt = now().getTime();
        else if (now().getTime() - renewedAt >= renewDeadlineMs) break;
      }
      if (stopped.signal.aborted) break;
      leading = false;
      recordEvent('stopped leading');
      callbacks.onStoppedLeading();
      config.onLeadingChange?.(false);
    }
  })();

  return {
    isLeader: () => leading,
    async stop() {
      stopped.abort();
      await loop;
      if (!leading) return;
      leading = false;
      callbacks.onStoppedLeading();
      config.onLeadingChange?.(false);
      // ReleaseOnCancel: an empty holder with a one-second lease lets the next candidate in at once.
      await leases
        .update(namespace, name, (current) => {
          const spec = (current?.['spec'] ?? {}) as LeaseSpec;
          if (spec.holderIdentity !== config.identity) throw new Error('lease no longer held');
          const at = microTime(now());
          return { ...current!, spec: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at, leaseTransitions: spec.leaseTransitions ?? 0 } } as KubeObject;
        })
        .catch(() => {});
    },
  };
}
