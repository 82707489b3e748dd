/**
 * The kubelet's crash-loop back-off (client-go's flowcontrol.Backoff as
 * kubeGenericRuntimeManager.doBackOff uses it), one entry per container.
 *
 * A container that exits is started again at once the first time: no entry
 * exists, so it is not in back-off, and starting it records one of 10s.
 * Each later exit waits out the entry's back-off, counted from the exit;
 * each start after a wait doubles it, up to 5 minutes. An entry not updated
 * for twice that (a container that ran ten minutes) has expired: the exit
 * restarts at once and the back-off starts again from 10s. Entries live in
 * the kubelet's memory, as in kube: a kubelet that starts again has none.
 */
export const initialBackOffMs = 10_000;
export const maxBackOffMs = 300_000;

interface Entry {
  backOffMs: number;
  /** When the entry was last moved on (the container's last start after an exit). */
  lastUpdate: number;
}

export class ContainerBackOff {
  readonly #entries = new Map<string, Entry>();

  /** Whether an entry updated at lastUpdate is stale by eventMs (hasExpired). */
  static #expired(entry: Entry, eventMs: number): boolean {
    return eventMs - entry.lastUpdate > 2 * maxBackOffMs;
  }

  /**
   * IsInBackOffSince(exit): while the container that ended at exitMs must wait, its back-off and when the
   * wait ends; undefined when it may start now.
   */
  waiting(key: string, exitMs: number, nowMs: number): { backOffMs: number; until: number } | undefined {
    const entry = this.#entries.get(key);
    if (!entry || ContainerBackOff.#expired(entry, exitMs)) return undefined;
    return nowMs - exitMs < entry.backOffMs ? { backOffMs: entry.backOffMs, until: exitMs + entry.backOffMs } : undefined;
  }

  /** Next(exit): the container is started again after the exit at exitMs; the next wait doubles. */
  next(key: string, exitMs: number, nowMs: number): void {
    const entry = this.#entries.get(key);
    const backOffMs = !entry || ContainerBackOff.#expired(entry, exitMs) ? initialBackOffMs : Math.min(entry.backOffMs * 2, maxBackOffMs);
    this.#entries.set(key, { backOffMs, lastUpdate: nowMs });
  }

  /** Lets go of every entry whose key starts with prefix (a deleted pod's containers). */
  forget(prefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}
