/**
 * The CPU a simulated server spends answering requests, by pod and
 * container: what a load generator makes the HPA walkthrough's php-apache
 * use (each request to registry.k8s.io/hpa-example burns its loop of square
 * roots). metrics.ts adds the recent average to the container's usage, so
 * `kubectl top` and the HorizontalPodAutoscaler see the load arrive and go.
 */

/** The window the average is taken over: metrics-server's resolution. */
export const loadWindowMs = 15_000;
/** Requests kept per container, so a flood cannot grow it without bound. */
const maxKept = 20_000;

/** Each container's served requests: when, and the cpu milliseconds each took. */
const served = new Map<string, { at: number; cpuMs: number }[]>();

const keyOf = (podUID: string, container: string) => `${podUID}/${container}`;

/** A request the container's server answered at `at`, costing cpuMs of cpu. */
export function recordWork(podUID: string, container: string, at: number, cpuMs: number): void {
  const key = keyOf(podUID, container);
  let list = served.get(key);
  if (!list) {
    // A container seen for the first time: let go of those that served nothing within every window (their pods gone, or idle).
    for (const [k, l] of served) if (l[l.length - 1]!.at < at - 2 * loadWindowMs) served.delete(k);
    served.set(key, (list = []));
  }
  list.push({ at, cpuMs });
  // Drop what is out of every window (a replayed or late request can arrive out of order: keep those within one).
  const cut = list.findIndex((r) => r.at >= at - 2 * loadWindowMs);
  if (cut > 0) list.splice(0, cut);
  if (list.length > maxKept) list.splice(0, list.length - maxKept);
}

/** The container's average cpu over the window before `now`, in nanocores (0 with no requests). */
export function recentWorkNano(podUID: string, container: string, now: number): bigint {
  const list = served.get(keyOf(podUID, container));
  if (!list) return 0n;
  let ms = 0;
  for (const r of list) if (r.at > now - loadWindowMs && r.at <= now) ms += r.cpuMs;
  return BigInt(Math.round((ms / loadWindowMs) * 1_000_000_000));
}
