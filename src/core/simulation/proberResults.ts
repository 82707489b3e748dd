/**
 * The prober's result counts, as the kubelet's /metrics/probes shows them
 * (prober_probe_total): one counter per pod, container, probe type and
 * result. A probe that errored is thrown away by its worker, uncounted. The
 * kubelet's probe workers live as long as their pod, so the counts go on
 * across the container's restarts and go with the pod.
 */
import type { ProbeKind } from './prober';

export type ProbeOutcome = 'successful' | 'failed';

export interface ProbeCount {
  container: string;
  probeType: ProbeKind;
  result: ProbeOutcome;
  count: number;
}

export class ProberResults {
  /** pod uid -> `container/type/result` -> count. */
  readonly #byPod = new Map<string, Map<string, ProbeCount>>();

  record(podUID: string, container: string, probeType: ProbeKind, result: ProbeOutcome): void {
    let counts = this.#byPod.get(podUID);
    if (!counts) this.#byPod.set(podUID, (counts = new Map()));
    const key = `${container}/${probeType}/${result}`;
    const known = counts.get(key);
    if (known) known.count++;
    else counts.set(key, { container, probeType, result, count: 1 });
  }

  /** The pod's counts, in the order they were first recorded. */
  of(podUID: string): readonly ProbeCount[] {
    return [...(this.#byPod.get(podUID)?.values() ?? [])];
  }

  forgetPod(podUID: string): void {
    this.#byPod.delete(podUID);
  }
}
