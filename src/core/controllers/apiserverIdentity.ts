/**
 * kube-apiserver's identity (feature APIServerIdentity, on by default): the
 * Lease kube-system/apiserver-<id> that says this server is alive, renewed
 * every 10 seconds for an hour's duration by the post-start hook
 * start-kube-apiserver-identity-lease-controller, and the garbage collector
 * (start-kube-apiserver-identity-lease-garbage-collector) that deletes the
 * identity Leases of servers that stopped renewing them. With several servers
 * over one store, each holds its own Lease and any of them collects the
 * expired ones.
 */
import type { KubeObject } from '../api/types';
import { isNotFound, StatusError } from '../errors';
import type { Clock } from '../util/clock';
import type { NamespaceControllerDeps } from './namespace';
import { base32 } from '../util/base32';

export const identityLabel = 'apiserver.kubernetes.io/identity';
const identityLeaseDurationSeconds = 3600;
const identityRenewMs = 10_000;
const identityGCPeriodMs = 3600_000;

/**
 * The server's id: "apiserver-" and the lower-case, unpadded base32 of the
 * first 16 bytes of sha256 over the length-prefixed hostname and
 * "kube-apiserver" (as genericapiserver.NewConfig builds it).
 */
export async function apiServerId(hostname: string): Promise<string> {
  const data = [...lengthPrefixed(hostname), ...lengthPrefixed('kube-apiserver')];
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(data)));
  return `apiserver-${base32(hash.subarray(0, 16)).toLowerCase()}`;
}

/** cryptobyte's AddUint16LengthPrefixed. */
function lengthPrefixed(text: string): number[] {
  const bytes = new TextEncoder().encode(text);
  return [bytes.length >> 8, bytes.length & 0xff, ...bytes];
}

/** metav1.MicroTime, as a Lease's renewTime is written. */
const microTime = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** isLeaseExpired: no renewTime or duration, or renewTime + duration before now. */
export function identityLeaseExpired(lease: KubeObject, now: Date): boolean {
  const spec = (lease['spec'] ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
  if (!spec.renewTime || spec.leaseDurationSeconds === undefined || spec.leaseDurationSeconds === null) return true;
  return Date.parse(spec.renewTime) + spec.leaseDurationSeconds * 1000 < now.getTime();
}

export interface ApiServerIdentity {
  /** The Lease's name (apiserver-<id>). */
  id: string;
  /** Its holderIdentity: the id and a uuid of this run. */
  holderIdentity: string;
  hostname: string;
}

/** Sleeps on clock until ms passed or stopped; false once stopped. */
async function sleepUnlessStopped(clock: Clock, ms: number, stopped: AbortSignal): Promise<boolean> {
  await clock.sleep(ms, stopped);
  return !stopped.aborted;
}

/**
 * The identity Lease controller (component-helpers' lease controller with the
 * heartbeat's labels): creates the Lease when missing, else renews it, each
 * time setting the identity and hostname labels.
 */
export function startApiServerIdentityLease(deps: NamespaceControllerDeps, identity: ApiServerIdentity): { stop(): void; synced: Promise<void> } {
  const leases = deps.storeFor(deps.registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!);
  const stopped = new AbortController();
  const labels = { [identityLabel]: 'kube-apiserver', 'kubernetes.io/hostname': identity.hostname };

  async function renew(): Promise<void> {
    const spec = { holderIdentity: identity.holderIdentity, leaseDurationSeconds: identityLeaseDurationSeconds, renewTime: microTime(deps.clock.now()) };
    const kv = await leases.getKv('kube-system', identity.id);
    if (!kv) {
      await leases.create('kube-system', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: identity.id, namespace: 'kube-system', labels }, spec } as KubeObject);
      return;
    }
    await leases.update('kube-system', identity.id, (cur) => {
      if (!cur) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'lease deleted', reason: 'NotFound', code: 404 });
      return { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...labels } }, spec: { ...(cur['spec'] as object), ...spec } } as KubeObject;
    });
  }

  const attempt = () =>
    renew().catch((e) => {
      // Deleted between the read and the write, or created by a racing write: the next renewal sets it right.
      if (stopped.signal.aborted || (e instanceof StatusError && (e.code === 404 || e.code === 409))) return;
      console.error('kubesim: apiserver identity lease:', e);
    });
  const synced = attempt();
  void (async () => {
    await synced;
    while (await sleepUnlessStopped(deps.clock, identityRenewMs, stopped.signal)) await attempt();
  })();
  return { stop: () => stopped.abort(), synced };
}

/**
 * apiserverleasegc: at start and then every hour, the identity Leases (by label) whose renewal
 * expired are deleted, each read again first, since another server's
 * collector may have deleted it already.
 */
export function startApiServerLeaseGC(deps: NamespaceControllerDeps, periodMs = identityGCPeriodMs): { stop(): void; collect(): Promise<void> } {
  const leases = deps.storeFor(deps.registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!);
  const stopped = new AbortController();

  async function collect(): Promise<void> {
    const { items } = await leases.list('kube-system', { predicate: (o) => o.metadata.labels?.[identityLabel] === 'kube-apiserver' });
    for (const listed of items) {
      try {
        const lease = await leases.get('kube-system', listed.metadata.name!);
        if (!identityLeaseExpired(lease, deps.clock.now())) continue;
        await leases.delete('kube-system', lease.metadata.name!);
      } catch (e) {
        if (!isNotFound(e)) console.error('kubesim: apiserver lease garbage collection:', e);
      }
    }
  }

  const run = () => collect().catch((e) => console.error('kubesim: apiserver lease garbage collection:', e));
  // wait.Until: a pass at once, then one every period.
  void (async () => {
    do await run();
    while (await sleepUnlessStopped(deps.clock, periodMs, stopped.signal));
  })();
  return { stop: () => stopped.abort(), collect };
}
